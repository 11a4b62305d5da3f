// DynamicsSIMD: the engine's C. Its kernels (the free-motion pass, the contact and rod passes) are declared in the
// headers included below and built per lane count (DynamicsLanes.h); this header adds two 4-wide helpers: the grid
// cells of a box (for the broadphase) and an optimization barrier (for the 4-lane kernels); and a prefetch hint.
#ifndef DYNAMICS_SIMD_H
#define DYNAMICS_SIMD_H

#include "DynamicsLanes.h"
#include "DynamicsFreeMotion.h"
#include "DynamicsContacts.h"
#include "DynamicsRods.h"
#include "DynamicsPool.h"
#include "DynamicsUnion.h"

typedef float dk_float4 __attribute__((ext_vector_type(4)));

#define DK_INLINE static inline __attribute__((always_inline))

/// v, unchanged, but opaque to the optimizer: it cannot move arithmetic across this point. After a split of (x, y)
/// pairs, LLVM otherwise tends to push the following arithmetic back through the shuffles and then break it into
/// partial and scalar vectors. Costs nothing: the value stays in its register.
typedef int dk_int4 __attribute__((ext_vector_type(4)));

/// ⌊v·inv⌋ with v·inv clamped to ±10⁹ first, for the four coordinates of a box (lower x, lower y, upper x,
/// upper y): the rectangle of grid cells it spans. SSE2 has no rounding instruction and `rounded(.down)` is a call
/// into the C library: the clamped value is truncated (cvttps2dq, no range check as Swift's Int32(Float) has) and
/// corrected down where truncation rounded up.
DK_INLINE dk_int4 dk_cell_coords(dk_float4 box, float inv) {
    dk_float4 v = box * inv;
    dk_float4 high = 1e9f, low = -1e9f;
    dk_float4 c = high < v ? high : v;
    c = low > c ? low : c;
    dk_int4 t = __builtin_convertvector(c, dk_int4);
    return __builtin_convertvector(t, dk_float4) > c ? t - 1 : t;
}

DK_INLINE dk_float4 dk_opaque4(dk_float4 v) {
#if defined(__x86_64__) || defined(__i386__)
    __asm__("" : "+x"(v));
#elif defined(__aarch64__) || defined(__arm__)
    __asm__("" : "+w"(v));
#endif
    return v;
}

/// Asks the processor to start loading the cache line at `p` (a hint: it changes no result and cannot fault). For
/// loops that visit records in an order the hardware cannot foresee, a few iterations ahead; also before a write
/// (the portable x86-64 target has no prefetch for writing: a hint to write compiles to this same instruction).
DK_INLINE void dk_prefetch(const void *p) { __builtin_prefetch(p, 0, 3); }

#endif
