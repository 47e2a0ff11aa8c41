// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl's hash map (lib/hmap.c): puts, gets, overwrites and iteration
 * through many grows, against a plain array of the same keys.
 */
#include <errno.h>
#include <stdlib.h>

#include "lib/hmap.h"
#include "tap.h"

#define N	100000

int main(void)
{
	static int vals[N];
	struct kp_hmap h = { 0 };
	unsigned int i, bad = 0, seen = 0;
	size_t pos = 0;
	uint64_t key;
	void *val;

	ok(kp_hmap__get(&h, 1) == NULL, "an empty map has nothing");
	ok(kp_hmap__put(&h, 0, vals) == -EINVAL, "key 0 is refused (it marks empty slots)");
	for (i = 0; i < N; i++)
		if (kp_hmap__put(&h, (uint64_t)i * 7919 + 1, &vals[i]))
			bad++;
	ok(!bad && h.used == N, "%u keys put through the grows", N);
	for (i = 0, bad = 0; i < N; i++)
		if (kp_hmap__get(&h, (uint64_t)i * 7919 + 1) != &vals[i])
			bad++;
	ok(!bad, "each key gets its own value back");
	ok(kp_hmap__get(&h, 2) == NULL && kp_hmap__get(&h, (uint64_t)N * 7919 + 1) == NULL,
	   "absent keys get NULL");
	ok(!kp_hmap__put(&h, 1, &vals[5]) && kp_hmap__get(&h, 1) == &vals[5] && h.used == N,
	   "a put of a key there replaces its value");
	for (bad = 0; kp_hmap__next(&h, &pos, &key, &val); seen++)
		if ((key - 1) % 7919 || !val)
			bad++;
	ok(seen == N && !bad, "iteration visits every entry once (%u)", seen);
	ok(kp_hash_str("") && kp_hash_str("a") != kp_hash_str("b"), "string hashes: never 0, distinct");
	kp_hmap__exit(&h);
	ok(h.keys == NULL && h.used == 0, "exit empties the map");
	return done_testing();
}
