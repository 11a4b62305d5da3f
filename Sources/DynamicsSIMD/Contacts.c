// The wide contact pass (see DynamicsContacts.h), instantiated from ContactBody.h at 4 lanes and, on x86-64, at 8
// (AVX2) and 16 (AVX-512) lanes, chosen at run time (Lanes.c).

#pragma clang attribute push(__attribute__((nodebug)), apply_to = hasType(functionType))

#include "DynamicsSIMD.h"
#include "DynamicsContacts.h"
#include "Widths.h"

#define W 4
#define VF dk_vf4
#define VI dk_vi4
#define ZIPLO(a, b) __builtin_shufflevector(a, b, 0, 4, 1, 5)
#define ZIPHI(a, b) __builtin_shufflevector(a, b, 2, 6, 3, 7)
#define LOHALF(a, b) __builtin_shufflevector(a, b, 0, 1, 4, 5)
#define HIHALF(a, b) __builtin_shufflevector(a, b, 2, 3, 6, 7)
#include "ContactBody.h"

#if defined(__x86_64__)

#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#define W 8
#define VF dk_vf8
#define VI dk_vi8
#define ZIPLO(a, b) __builtin_shufflevector(a, b, 0, 8, 1, 9, 4, 12, 5, 13)
#define ZIPHI(a, b) __builtin_shufflevector(a, b, 2, 10, 3, 11, 6, 14, 7, 15)
#define LOHALF(a, b) __builtin_shufflevector(a, b, 0, 1, 8, 9, 4, 5, 12, 13)
#define HIHALF(a, b) __builtin_shufflevector(a, b, 2, 3, 10, 11, 6, 7, 14, 15)
#include "ContactBody.h"
#pragma clang attribute pop


#pragma clang attribute push(__attribute__((target("avx512f,avx512dq"))), apply_to = function)
#define W 16
#define VF dk_vf16
#define VI dk_vi16
#define ZIPLO(a, b) __builtin_shufflevector(a, b, 0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29)
#define ZIPHI(a, b) __builtin_shufflevector(a, b, 2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27, 14, 30, 15, 31)
#define LOHALF(a, b) __builtin_shufflevector(a, b, 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29)
#define HIHALF(a, b) __builtin_shufflevector(a, b, 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31)
#include "ContactBody.h"
#pragma clang attribute pop
#endif

void dk_contact_pass_run(const dk_contact_pass *pass) {
    // A local copy: the stores through the batch and state pointers cannot change it.
    const dk_contact_pass p = *pass;
#if defined(__x86_64__)
    const int width = dk_vector_width();
#endif
    intptr_t start = 0;
    for (intptr_t c = 0; c < p.colourCount; c++) {
        const intptr_t end = p.colourEnds[c];
        intptr_t k = start;
#if defined(__x86_64__)
        if (width == 16) k = contactRun16(&p, k, end);
        if (width >= 8) k = contactRun8(&p, k, end);
#endif
        contactRun4(&p, k, end);
        start = end;
    }
}

#pragma clang attribute pop
