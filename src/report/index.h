/*
 * index.h -- hash indexes: an item kept in some array, found again by a
 * 64-bit hash and the caller's equality; and the hash functions the
 * engine keys them (and its string table) with.
 */
#ifndef HP_REPORT_INDEX_H
#define HP_REPORT_INDEX_H

#include <stddef.h>
#include <stdint.h>

/* 64-bit FNV-1a over bytes, then mixed: good enough for our tables. */
uint64_t hp_index_hash_bytes(const void *p, size_t n, uint64_t seed);
uint64_t hp_index_hash_u64(uint64_t x);

/*
 * An open-addressing index of items kept elsewhere (in an array): maps a
 * 64-bit hash to item numbers; the caller's eq function decides equality.
 */
struct hp_index {
	uint32_t *item;		/* item + 1; 0 is empty */
	uint64_t *hash;
	size_t n, cap;
};

typedef int hp_index_eq_fn(const void *ctx, uint32_t item, const void *key);

/* The item with hash h that eq(ctx, item, key) accepts, or -1. */
int64_t hp_index_find(const struct hp_index *ix, uint64_t h, hp_index_eq_fn *eq,
		      const void *ctx, const void *key);
/* Adds item under hash h (the caller checked it is not there). */
void hp_index_add(struct hp_index *ix, uint64_t h, uint32_t item);
void hp_index_release(struct hp_index *ix);

#endif
