// The wide contact and rod passes (see DynamicsContacts.h, DynamicsRods.h), instantiated from ContactBody.h at 4
// lanes and, on x86-64, at 8 (AVX2), chosen at run time (Lanes.c), and from RodBody.h at 4 lanes. These passes are
// bound by their gathers and scatters of body state: AVX-512 measured slower than AVX2 for contacts (pyramid_100 at
// its profile's settings, 10–25% slower), and for the rods, whose batches hold less arithmetic per gathered body,
// 8 lanes measured no faster than 4 (joint_grid_100), so the rods keep 4. The free-motion pass, which streams its
// columns, gains from 16.

#pragma clang attribute push(__attribute__((nodebug)), apply_to = hasType(functionType))

#include "DynamicsSIMD.h"
#include "DynamicsContacts.h"
#include "DynamicsRods.h"
#include "Widths.h"

#include "Solver4.h"
#include "ContactBody.h"
#include "RodBody.h"
#include "SolverWidthEnd.h"

#if defined(__x86_64__)

#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#define DK_LANES 8
#define DK_VF dk_vf8
#define DK_VI dk_vi8
#define ZIPLO(a, b) __builtin_shufflevector(a, b, 0, 8, 1, 9, 4, 12, 5, 13)
#define ZIPHI(a, b) __builtin_shufflevector(a, b, 2, 10, 3, 11, 6, 14, 7, 15)
#define LOHALF(a, b) __builtin_shufflevector(a, b, 0, 1, 8, 9, 4, 5, 12, 13)
#define HIHALF(a, b) __builtin_shufflevector(a, b, 2, 3, 10, 11, 6, 7, 14, 15)
#include "WidthOps.h"
#include "PackedOps.h"
#include "ContactBody.h"
#include "SolverWidthEnd.h"
#pragma clang attribute pop
#endif

void dk_contact_pass_run_batches(const dk_contact_pass *pass, intptr_t from, intptr_t to) {
    intptr_t k = from;
#if defined(__x86_64__)
    if (dk_vector_width() >= 8) k = contactRange8(pass, k, to);
#endif
    contactRange4(pass, k, to);
}

void dk_contact_pass_run(const dk_contact_pass *pass) {
    // A local copy: the stores through the batch and state pointers cannot change it.
    const dk_contact_pass p = *pass;
#if defined(__x86_64__)
    const int width = dk_vector_width();
#endif
    intptr_t start = 0;
    for (intptr_t c = 0; c < p.colorCount; c++) {
        const intptr_t end = p.colorEnds[c];
        intptr_t k = start;
        // Two batches at a time while two are left, then the rest one by one.
#if defined(__x86_64__)
        if (width >= 8) k = contactRange8(&p, k, end);
#endif
        contactRange4(&p, k, end);
        start = end;
    }
}

void dk_rod_pass_run(const dk_rod_pass *pass) {
    const dk_rod_pass p = *pass;
    // The geometry sweep over every batch when positions moved, then the pass: the center batches in color order,
    // then the general ones (one batch at a time, so the colors need no bounds).
    for (int geometry = p.geometry ? 1 : 0; geometry >= 0; geometry--) {
        centerRodRun4(&p, 0, p.centerCount, geometry);
        rodRun4(&p, 0, p.generalCount, geometry);
    }
}

#pragma clang attribute pop
