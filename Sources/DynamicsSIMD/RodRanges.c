// Ranges of the rod pass's batches (DynamicsRods.h), for the staged pass on several workers (Pool.c). A translation
// unit of its own: with these callers beside it in Solvers.c, the compiler built `dk_rod_pass_run` differently
// (9% more instructions on joint_grid_100).

// No debug information from this file, for valgrind's sake: see FreeMotion.c.
#pragma clang attribute push(__attribute__((nodebug)), apply_to = hasType(functionType))

#include "DynamicsSIMD.h"
#include "DynamicsRods.h"
#include "Widths.h"

#include "Solver4.h"
#include "RodBody.h"
#include "SolverWidthEnd.h"

void dk_rod_pass_run_center(const dk_rod_pass *pass, intptr_t from, intptr_t to, int geometry) {
    const dk_rod_pass p = *pass;
    centerRodRun4(&p, from, to, geometry);
}

void dk_rod_pass_run_general(const dk_rod_pass *pass, intptr_t from, intptr_t to, int geometry) {
    const dk_rod_pass p = *pass;
    rodRun4(&p, from, to, geometry);
}

#pragma clang attribute pop
