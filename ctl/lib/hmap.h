/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprofctl's hash map: non-zero 64-bit keys to pointers, open addressing
 * with linear probing, grown to keep it at most three quarters full.  A
 * zero key marks an empty slot, so maps of ids store id + 1.
 *
 *	struct kp_hmap h = { 0 };
 *	kp_hmap__put(&h, tid + 1, thread);	0 or -ENOMEM
 *	thread = kp_hmap__get(&h, tid + 1);	NULL when absent
 *	for (pos = 0; kp_hmap__next(&h, &pos, &key, &val); )
 *	kp_hmap__exit(&h);			the values are the caller's
 */
#ifndef KPROFCTL_HMAP_H
#define KPROFCTL_HMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kp_hmap {
	uint64_t	*keys;		/* 0: empty */
	void		**vals;
	size_t		mask;
	size_t		used;
};

void *kp_hmap__get(const struct kp_hmap *h, uint64_t key);
/* Set @key's value (@key non-zero); 0 or -ENOMEM. */
int kp_hmap__put(struct kp_hmap *h, uint64_t key, void *val);
/* The entry at or after slot *@pos, in no order; false after the last. */
bool kp_hmap__next(const struct kp_hmap *h, size_t *pos, uint64_t *key, void **val);
void kp_hmap__exit(struct kp_hmap *h);

/* A 64-bit mix of @k (murmur3's finalizer). */
uint64_t kp_hash64(uint64_t k);
/* FNV-1a of the string @s, never 0. */
uint64_t kp_hash_str(const char *s);

#endif /* KPROFCTL_HMAP_H */
