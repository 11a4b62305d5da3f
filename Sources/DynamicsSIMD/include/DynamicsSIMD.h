// Vector operations that the Swift standard library's SIMD types lower lane by lane.
//
// Swift's concrete SIMD arithmetic (+ − × ÷, comparisons, bitwise operators) maps to LLVM vector operations, but
// several generic members are loops over the lanes: `squareRoot()`, `replacing(with:where:)` (so also
// `pointwiseMin`/`pointwiseMax`), `evenHalf`/`oddHalf`. In a large kernel LLVM's vectoriser only partly
// reassembles those loops, leaving scalar pieces, per-lane branches and spills. These wrappers use Clang's
// target-independent vector builtins instead: one instruction, or a short fixed sequence, on every target (SSE2 on
// x86-64, NEON on arm64). Clang ext vectors import into Swift as `SIMD4<Float>` and `SIMD4<Int32>`.
//
// Masks are `SIMD4<Int32>` with all bits set (−1) in true lanes, as the comparisons below return.
#ifndef DYNAMICS_SIMD_H
#define DYNAMICS_SIMD_H

#include "DynamicsLanes.h"
#include "DynamicsFreeMotion.h"
#include "DynamicsContacts.h"
#include "DynamicsRods.h"

typedef float dk_float4 __attribute__((ext_vector_type(4)));
typedef int dk_int4 __attribute__((ext_vector_type(4)));

#define DK_INLINE static inline __attribute__((always_inline))

/// √v in every lane (IEEE: NaN for a negative lane, +0 for +0).
DK_INLINE dk_float4 dk_sqrt4(dk_float4 v) { return __builtin_elementwise_sqrt(v); }
/// |v| in every lane.
DK_INLINE dk_float4 dk_abs4(dk_float4 v) { return __builtin_elementwise_abs(v); }
/// Lane-wise a < b ? a : b and a > b ? a : b: SSE's minps and maxps exactly (b when either lane is NaN).
DK_INLINE dk_float4 dk_min4(dk_float4 a, dk_float4 b) { return a < b ? a : b; }
DK_INLINE dk_float4 dk_max4(dk_float4 a, dk_float4 b) { return a > b ? a : b; }

/// Comparisons: −1 in the lanes where they hold, 0 elsewhere (false for NaN lanes, except `ne`).
DK_INLINE dk_int4 dk_lt4(dk_float4 a, dk_float4 b) { return a < b; }
DK_INLINE dk_int4 dk_le4(dk_float4 a, dk_float4 b) { return a <= b; }
DK_INLINE dk_int4 dk_ne4(dk_float4 a, dk_float4 b) { return a != b; }

/// m ? a : b, lane by lane, for a mask m of −1 and 0 lanes.
DK_INLINE dk_float4 dk_select4(dk_int4 m, dk_float4 a, dk_float4 b) {
    return (dk_float4)((m & (dk_int4)a) | (~m & (dk_int4)b));
}

/// Whether any lane, or every lane, of a mask is set (the sign bits, as SSE's movmskps reads them).
DK_INLINE int dk_any4(dk_int4 m) { return (m.x | m.y | m.z | m.w) < 0; }
DK_INLINE int dk_all4(dk_int4 m) { return (m.x & m.y & m.z & m.w) < 0; }

/// Four (x, y) pairs held in two vectors (a = x0 y0 x1 y1, b = x2 y2 x3 y3), split into x and y, and back.
DK_INLINE dk_float4 dk_even4(dk_float4 a, dk_float4 b) { return __builtin_shufflevector(a, b, 0, 2, 4, 6); }
DK_INLINE dk_float4 dk_odd4(dk_float4 a, dk_float4 b) { return __builtin_shufflevector(a, b, 1, 3, 5, 7); }
DK_INLINE dk_float4 dk_ziplo4(dk_float4 x, dk_float4 y) { return __builtin_shufflevector(x, y, 0, 4, 1, 5); }
DK_INLINE dk_float4 dk_ziphi4(dk_float4 x, dk_float4 y) { return __builtin_shufflevector(x, y, 2, 6, 3, 7); }
/// (x0, x1, y0, y1) and (x2, x3, y2, y3): with the zips, a 4×4 transpose in eight shuffles.
DK_INLINE dk_float4 dk_lohalves4(dk_float4 x, dk_float4 y) { return __builtin_shufflevector(x, y, 0, 1, 4, 5); }
DK_INLINE dk_float4 dk_hihalves4(dk_float4 x, dk_float4 y) { return __builtin_shufflevector(x, y, 2, 3, 6, 7); }

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
