// Union-find joined from several threads at once over one table of parent indices (the islands' union-find on the
// workers).
//
// A root is its own parent; every other entry points at a smaller index on the way to its root, and of two roots
// joined the larger comes to point at the smaller, by a compare-and-swap that fails (and is tried again from the
// roots) if another thread joined it first. Finding a root halves the path (an entry visited is pointed at its
// grandparent, an ancestor still, whatever other threads wrote meanwhile); only roots are ever swapped, and an entry
// that is not a root never becomes one. So each group ends with its smallest index as root, whatever the order of the
// joins and the threads: the table after `dk_union_flatten` is the one a single thread's joins leave.
#ifndef DYNAMICS_UNION_H
#define DYNAMICS_UNION_H

#include <stdint.h>

/// The root of `x`'s group, halving the path on the way.
static inline int32_t dk_union_root(int32_t *parent, int32_t x) {
    for (;;) {
        int32_t p = __atomic_load_n(&parent[x], __ATOMIC_RELAXED);
        if (p == x) return x;
        int32_t g = __atomic_load_n(&parent[p], __ATOMIC_RELAXED);
        if (g != p) __atomic_store_n(&parent[x], g, __ATOMIC_RELAXED);
        x = g;
    }
}

/// Joins the groups of `a` and `b`: the larger root comes to point at the smaller.
static inline void dk_union_join(int32_t *parent, int32_t a, int32_t b) {
    for (;;) {
        a = dk_union_root(parent, a);
        b = dk_union_root(parent, b);
        if (a == b) return;
        if (a > b) { int32_t t = a; a = b; b = t; }
        int32_t expected = b;
        if (__atomic_compare_exchange_n(&parent[b], &expected, a, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return;
    }
}

/// Points entries `from ..< to` straight at their roots, once every join is done (the others may be doing the same
/// for theirs: they only read this range's entries, which point at an ancestor before and after).
static inline void dk_union_flatten(int32_t *parent, intptr_t from, intptr_t to) {
    for (intptr_t s = from; s < to; s++) {
        int32_t r = (int32_t)s;
        for (;;) {
            int32_t p = __atomic_load_n(&parent[r], __ATOMIC_RELAXED);
            if (p == r) break;
            r = p;
        }
        __atomic_store_n(&parent[s], r, __ATOMIC_RELAXED);
    }
}

#endif
