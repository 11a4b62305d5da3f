// DynamicsSIMD: the engine's C. Its kernels (the free-motion pass, the contact and rod passes) are declared in the
// headers included below and built per lane count (DynamicsLanes.h); this header adds the two scalar and 4-wide
// helpers that Swift and the 4-lane kernels use: a float-to-int truncation without Swift's range check, and an
// optimisation barrier. (The 4-wide helpers the Swift kernels used before they moved here are gone with them.)
#ifndef DYNAMICS_SIMD_H
#define DYNAMICS_SIMD_H

#include "DynamicsLanes.h"
#include "DynamicsFreeMotion.h"
#include "DynamicsContacts.h"
#include "DynamicsRods.h"

typedef float dk_float4 __attribute__((ext_vector_type(4)));

#define DK_INLINE static inline __attribute__((always_inline))

/// (int)v: truncation toward zero, one instruction (cvttss2si), without the range check of Swift's Int32(Float).
/// The caller keeps v within the range of int (the broadphase clamps to ±1e9 first).
DK_INLINE int dk_truncate(float v) { return (int)v; }

/// v, unchanged, but opaque to the optimiser: it cannot move arithmetic across this point. After a split of (x, y)
/// pairs, LLVM otherwise tends to push the following arithmetic back through the shuffles and then break it into
/// partial and scalar vectors. Costs nothing: the value stays in its register.
DK_INLINE dk_float4 dk_opaque4(dk_float4 v) {
#if defined(__x86_64__) || defined(__i386__)
    __asm__("" : "+x"(v));
#elif defined(__aarch64__) || defined(__arm__)
    __asm__("" : "+w"(v));
#endif
    return v;
}

#endif
