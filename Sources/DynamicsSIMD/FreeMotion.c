// The free-motion pass (see DynamicsFreeMotion.h), instantiated from FreeMotionBody.h at 4 lanes and, on x86-64,
// at 8 lanes (AVX2) and 16 (AVX-512), chosen at run time (Lanes.c).
#pragma clang attribute push(__attribute__((nodebug)), apply_to = hasType(functionType))

#include "DynamicsSIMD.h"
#include "DynamicsFreeMotion.h"
#include "Widths.h"

#if defined(__x86_64__)
typedef float dk_v4sf __attribute__((vector_size(16)));
/// The sign bits of a mask (movmskps).
static inline __attribute__((always_inline)) int dk_movemask4(dk_vi4 m) {
    dk_v4sf t;
    __builtin_memcpy(&t, &m, sizeof t);
    return __builtin_ia32_movmskps(t);
}
#define DK_MOVEMASK4(m) dk_movemask4(m)
#else
static inline __attribute__((always_inline)) int dk_movemask4_generic(dk_vi4 m) {
    return (m.x < 0) | ((m.y < 0) << 1) | ((m.z < 0) << 2) | ((m.w < 0) << 3);
}
#define DK_MOVEMASK4(m) dk_movemask4_generic(m)
#endif

#define DK_LANES 4
#define DK_VF dk_vf4
#define DK_VI dk_vi4
#define EVEN(a, b) __builtin_shufflevector(a, b, 0, 2, 4, 6)
#define ODD(a, b) __builtin_shufflevector(a, b, 1, 3, 5, 7)
#define ZIPLO(x, y) __builtin_shufflevector(x, y, 0, 4, 1, 5)
#define ZIPHI(x, y) __builtin_shufflevector(x, y, 2, 6, 3, 7)
#define MOVEMASK(m) DK_MOVEMASK4(m)
#define ORDER(v) (v)
#define UNORDER(v) (v)
#define OPAQUE(v) dk_opaque4(v)
#include "FreeMotionBody.h"

#if defined(__x86_64__)
typedef float dk_v8sf __attribute__((vector_size(32)));

#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#define DK_LANES 8
#define DK_VF dk_vf8
#define DK_VI dk_vi8
// Lane order 0 1 4 5 2 3 6 7 (see FreeMotionBody.h): shufps, unpcklps and unpckhps within each half.
#define EVEN(a, b) __builtin_shufflevector(a, b, 0, 2, 8, 10, 4, 6, 12, 14)
#define ODD(a, b) __builtin_shufflevector(a, b, 1, 3, 9, 11, 5, 7, 13, 15)
#define ZIPLO(x, y) __builtin_shufflevector(x, y, 0, 8, 1, 9, 4, 12, 5, 13)
#define ZIPHI(x, y) __builtin_shufflevector(x, y, 2, 10, 3, 11, 6, 14, 7, 15)
#define ORDER(v) __builtin_shufflevector(v, v, 0, 1, 4, 5, 2, 3, 6, 7)
#define UNORDER(v) ORDER(v)
static inline __attribute__((always_inline)) dk_vf8 dk_opaque8(dk_vf8 v) {
    __asm__("" : "+x"(v));
    return v;
}
#define OPAQUE(v) dk_opaque8(v)
static inline __attribute__((always_inline)) int dk_movemask8(dk_vi8 m) {
    dk_v8sf t;
    __builtin_memcpy(&t, &m, sizeof t);
    return __builtin_ia32_movmskps256(t);
}
#define MOVEMASK(m) dk_movemask8(m)
#include "FreeMotionBody.h"
#pragma clang attribute pop

typedef int dk_v16si __attribute__((vector_size(64)));

#pragma clang attribute push(__attribute__((target("avx512f,avx512dq"))), apply_to = function)
#define DK_LANES 16
#define DK_VF dk_vf16
#define DK_VI dk_vi16
// Lane order 0 1 8 9 2 3 10 11 4 5 12 13 6 7 14 15: the same in-lane shuffles in each of the four 128-bit lanes.
#define EVEN(a, b) __builtin_shufflevector(a, b, 0, 2, 16, 18, 4, 6, 20, 22, 8, 10, 24, 26, 12, 14, 28, 30)
#define ODD(a, b) __builtin_shufflevector(a, b, 1, 3, 17, 19, 5, 7, 21, 23, 9, 11, 25, 27, 13, 15, 29, 31)
#define ZIPLO(x, y) __builtin_shufflevector(x, y, 0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29)
#define ZIPHI(x, y) __builtin_shufflevector(x, y, 2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27, 14, 30, 15, 31)
#define ORDER(v) __builtin_shufflevector(v, v, 0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15)
#define UNORDER(v) __builtin_shufflevector(v, v, 0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15)
static inline __attribute__((always_inline)) dk_vf16 dk_opaque16(dk_vf16 v) {
    __asm__("" : "+v"(v));
    return v;
}
#define OPAQUE(v) dk_opaque16(v)
static inline __attribute__((always_inline)) int dk_movemask16(dk_vi16 m) {
    dk_v16si t;
    __builtin_memcpy(&t, &m, sizeof t);
    return __builtin_ia32_cvtd2mask512(t);
}
#define MOVEMASK(m) dk_movemask16(m)
#include "FreeMotionBody.h"
#pragma clang attribute pop

#endif

int dk_free_motion_range(const dk_free_params *p, intptr_t from, intptr_t to) {
    int ready = 0;
    intptr_t s = from;
#if defined(__x86_64__)
    int w = dk_vector_width();
    if (w == 16) s = pass16(p, s, to, &ready);
    if (w >= 8) s = pass8(p, s, to, &ready);
#endif
    pass4(p, s, to, &ready);
    return ready;
}

int dk_free_motion(const dk_free_params *p) { return dk_free_motion_range(p, 0, p->count); }

#pragma clang attribute pop
