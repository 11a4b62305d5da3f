// The free-motion pass (see DynamicsFreeMotion.h), instantiated from FreeMotionBody.h at 4 lanes and, on x86-64,
// at 8 lanes for processors with AVX2.
// No debug information from this file (every function here, the headers' included, is `nodebug`, and so are the
// two variables): valgrind 3.19 (Debian 12), which the performance gate runs, cannot read the DWARF 5 that Clang
// emits for C and gives up on the whole binary.
#pragma clang attribute push(__attribute__((nodebug)), apply_to = hasType(functionType))

#include "DynamicsSIMD.h"
#include "DynamicsFreeMotion.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

// Both widths must round alike: never fuse a multiply and an add.
#pragma clang fp contract(off)


#define DK_CAT_(a, b) a##b
#define DK_CAT(a, b) DK_CAT_(a, b)
#define FN(name) DK_CAT(name, W)

typedef float dk_vf4 __attribute__((ext_vector_type(4)));
typedef int dk_vi4 __attribute__((ext_vector_type(4)));

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

#define W 4
#define VF dk_vf4
#define VI dk_vi4
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
typedef float dk_vf8 __attribute__((ext_vector_type(8)));
typedef int dk_vi8 __attribute__((ext_vector_type(8)));
typedef float dk_v8sf __attribute__((vector_size(32)));

#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#define W 8
#define VF dk_vf8
#define VI dk_vi8
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

typedef float dk_vf16 __attribute__((ext_vector_type(16)));
typedef int dk_vi16 __attribute__((ext_vector_type(16)));
typedef int dk_v16si __attribute__((vector_size(64)));

#pragma clang attribute push(__attribute__((target("avx512f,avx512dq"))), apply_to = function)
#define W 16
#define VF dk_vf16
#define VI dk_vi16
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

/// The widest kernel the processor runs and the system supports: 16 lanes with AVX-512 F and DQ (XCR0 bits 1, 2
/// and 5 to 7), 8 with AVX2 (XCR0 bits 1 and 2), else 4.
static int dk_detect_width(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 4;
    if (!(c & (1u << 27)) || !(c & (1u << 28))) return 4; // OSXSAVE, AVX
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 6u) != 6u) return 4;
    if (__get_cpuid_max(0, 0) < 7) return 4;
    __cpuid_count(7, 0, a, b, c, d);
    if (!(b & (1u << 5))) return 4; // AVX2
    if ((b & (1u << 16)) && (b & (1u << 17)) && (lo & 0xe6u) == 0xe6u) return 16; // AVX512F, AVX512DQ
    return 8;
}
#endif

__attribute__((nodebug)) static int dk_width_detected = 0;
__attribute__((nodebug)) static int dk_width_limit = 0;

int dk_free_motion_width(void) {
    int w = __atomic_load_n(&dk_width_detected, __ATOMIC_RELAXED);
    if (w == 0) {
#if defined(__x86_64__)
        w = dk_detect_width();
#else
        w = 4;
#endif
        __atomic_store_n(&dk_width_detected, w, __ATOMIC_RELAXED);
    }
    int limit = __atomic_load_n(&dk_width_limit, __ATOMIC_RELAXED);
    while (limit >= 4 && w > limit) w /= 2;
    return w;
}

void dk_free_motion_limit_width(int lanes) { __atomic_store_n(&dk_width_limit, lanes > 0 ? lanes : 0, __ATOMIC_RELAXED); }

int dk_free_motion(const dk_free_params *p) {
    int ready = 0;
    intptr_t s = 0;
#if defined(__x86_64__)
    int w = dk_free_motion_width();
    if (w == 16) s = pass16(p, s, p->count, &ready);
    if (w >= 8) s = pass8(p, s, p->count, &ready);
#endif
    pass4(p, s, p->count, &ready);
    return ready;
}

#pragma clang attribute pop
