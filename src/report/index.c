/*
 * index.c -- hash indexes over items kept elsewhere, and the hash
 * functions that key them (see index.h).
 *
 * Owns nothing but each index's two arrays: open addressing with linear
 * probing, at most half full, doubled when it would be more.
 */
#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "util.h"

/* ---- hashing --------------------------------------------------------- */

uint64_t hp_index_hash_u64(uint64_t x)
{
	/* splitmix64's finalizer: every input bit reaches every output bit. */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

uint64_t hp_index_hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;

	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return hp_index_hash_u64(h);
}

/* ---- indexes --------------------------------------------------------- */

int64_t hp_index_find(const struct hp_index *ix, uint64_t h, hp_index_eq_fn *eq,
		      const void *ctx, const void *key)
{
	if (!ix->cap)
		return -1;
	for (size_t j = h & (ix->cap - 1); ix->item[j]; j = (j + 1) & (ix->cap - 1))
		if (ix->hash[j] == h && eq(ctx, ix->item[j] - 1, key))
			return ix->item[j] - 1;
	return -1;
}

static void index_put(uint32_t *item, uint64_t *hash, size_t cap, uint64_t h, uint32_t it)
{
	size_t j = h & (cap - 1);

	while (item[j])
		j = (j + 1) & (cap - 1);
	item[j] = it + 1;
	hash[j] = h;
}

void hp_index_add(struct hp_index *ix, uint64_t h, uint32_t it)
{
	if ((ix->n + 1) * 2 > ix->cap) {
		size_t cap = ix->cap ? ix->cap * 2 : 1024;
		uint32_t *item = hp_util_xcalloc(cap, sizeof(*item));
		uint64_t *hash = hp_util_xcalloc(cap, sizeof(*hash));
		for (size_t j = 0; j < ix->cap; j++)
			if (ix->item[j])
				index_put(item, hash, cap, ix->hash[j], ix->item[j] - 1);
		free(ix->item);
		free(ix->hash);
		ix->item = item;
		ix->hash = hash;
		ix->cap = cap;
	}
	index_put(ix->item, ix->hash, ix->cap, h, it);
	ix->n++;
}

void hp_index_release(struct hp_index *ix)
{
	free(ix->item);
	free(ix->hash);
	memset(ix, 0, sizeof(*ix));
}
