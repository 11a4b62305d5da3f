// The lane count of the C kernels (DynamicsLanes.h).

// No debug information from this file, for valgrind's sake: see FreeMotion.c.
#pragma clang attribute push(__attribute__((nodebug)), apply_to = hasType(functionType))

#include "DynamicsLanes.h"

#if defined(__x86_64__)
#include <cpuid.h>

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

int dk_vector_width(void) {
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

void dk_limit_vector_width(int lanes) { __atomic_store_n(&dk_width_limit, lanes > 0 ? lanes : 0, __ATOMIC_RELAXED); }

#pragma clang attribute pop
