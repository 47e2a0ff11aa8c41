// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl's hash map; see hmap.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"

uint64_t kp_hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

uint64_t kp_hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h | 1;
}

void kp_hmap__exit(struct kp_hmap *h)
{
	free(h->keys);
	free(h->vals);
	memset(h, 0, sizeof(*h));
}

static int hmap__grow(struct kp_hmap *h)
{
	size_t size = h->mask ? (h->mask + 1) * 2 : 64, i, j;
	struct kp_hmap n = { .mask = size - 1 };

	n.keys = calloc(size, sizeof(*n.keys));
	n.vals = calloc(size, sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		kp_hmap__exit(&n);
		return -ENOMEM;
	}
	for (i = 0; h->keys && i <= h->mask; i++) {
		if (!h->keys[i])
			continue;
		for (j = kp_hash64(h->keys[i]) & n.mask; n.keys[j]; j = (j + 1) & n.mask)
			;
		n.keys[j] = h->keys[i];
		n.vals[j] = h->vals[i];
		n.used++;
	}
	kp_hmap__exit(h);
	*h = n;
	return 0;
}

/* Slot of @key (non-zero): its own, or the empty one where it would go. */
static size_t hmap__slot(const struct kp_hmap *h, uint64_t key)
{
	size_t i;

	for (i = kp_hash64(key) & h->mask; h->keys[i] && h->keys[i] != key; i = (i + 1) & h->mask)
		;
	return i;
}

void *kp_hmap__get(const struct kp_hmap *h, uint64_t key)
{
	size_t i;

	if (!h->keys || !key)
		return NULL;
	i = hmap__slot(h, key);
	return h->keys[i] ? h->vals[i] : NULL;
}

int kp_hmap__put(struct kp_hmap *h, uint64_t key, void *val)
{
	size_t i;

	if (!key)
		return -EINVAL;
	if ((!h->keys || (h->used + 1) * 4 > (h->mask + 1) * 3) && hmap__grow(h))
		return -ENOMEM;
	i = hmap__slot(h, key);
	if (!h->keys[i])
		h->used++;
	h->keys[i] = key;
	h->vals[i] = val;
	return 0;
}

bool kp_hmap__next(const struct kp_hmap *h, size_t *pos, uint64_t *key, void **val)
{
	size_t i;

	for (i = *pos; h->keys && i <= h->mask; i++) {
		if (!h->keys[i])
			continue;
		*key = h->keys[i];
		*val = h->vals[i];
		*pos = i + 1;
		return true;
	}
	*pos = i;
	return false;
}
