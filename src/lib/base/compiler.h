/*
 * compiler.h -- attributes, branch hints and the atomics vocabulary used by
 * every library module.  Owns no state.
 *
 * All shared counters in the library go through the HP_LOAD/HP_STORE/HP_ADD
 * wrappers so that the memory order of each access is written down where it
 * happens; relaxed accesses compile to plain moves on x86_64 and aarch64.
 */
#ifndef HP_COMPILER_H
#define HP_COMPILER_H

#define HP_LIKELY(x)   __builtin_expect(!!(x), 1)
#define HP_UNLIKELY(x) __builtin_expect(!!(x), 0)

#define HP_EXPORT      __attribute__((visibility("default")))
#define HP_HIDDEN      __attribute__((visibility("hidden")))
#define HP_NOINLINE    __attribute__((noinline))
#define HP_COLD        __attribute__((cold, noinline))
#define HP_INLINE      static inline __attribute__((always_inline))
#define HP_UNUSED      __attribute__((unused))
#define HP_PRINTF(f, a) __attribute__((format(printf, f, a)))

#define HP_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define HP_CACHELINE    64

#define HP_LOAD(p)          __atomic_load_n((p), __ATOMIC_RELAXED)
#define HP_LOAD_ACQ(p)      __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define HP_STORE(p, v)      __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define HP_STORE_REL(p, v)  __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define HP_ADD(p, v)        __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define HP_SUB(p, v)        __atomic_fetch_sub((p), (v), __ATOMIC_RELAXED)
#define HP_CAS(p, expp, v)  __atomic_compare_exchange_n((p), (expp), (v), 0, \
                                __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
#define HP_XCHG(p, v)       __atomic_exchange_n((p), (v), __ATOMIC_ACQ_REL)

#endif
