// The wide contact solver's pass: the warm start or one solve pass (biased or relaxing) over every batch of four
// contact constraints, reading and writing the packed body state (WideContacts.swift builds both).
//
// A color's constraints touch no awake body twice, so the batches of one color can be solved in any grouping: the
// pass takes them one at a time (4 lanes) or two at a time (8 lanes, AVX2), with the same IEEE operations in the same
// order on every lane. Results are bit-identical at every width. The lane count is `dk_vector_width()`, at most 8
// (see Solvers.c).
#ifndef DYNAMICS_CONTACTS_H
#define DYNAMICS_CONTACTS_H

#include <stdint.h>

typedef float dk_contact_float4 __attribute__((ext_vector_type(4)));
typedef int dk_contact_int4 __attribute__((ext_vector_type(4)));

/// One contact point of each of four lanes.
typedef struct dk_contact_point {
    /// Anchors from the centers of mass at the start of the step (for velocities) and in the body frames (for the
    /// current separation).
    dk_contact_float4 rAx, rAy, rBx, rBy;
    dk_contact_float4 localAx, localAy, localBx, localBy;
    dk_contact_float4 adjustedSeparation;
    dk_contact_float4 normalImpulse, tangentImpulse, maxNormalImpulse;
    /// Zero for a lane without this point (a one-point manifold or padding): the point then applies nothing.
    dk_contact_float4 normalMass, tangentMass;
} dk_contact_point;

/// Four contact constraints of one color, in SoA form.
typedef struct dk_contact_batch {
    /// Entries of each side in the packed state; 0 (the zero entry) for padding lanes.
    dk_contact_int4 entryA, entryB;
    /// The constraint of each lane, −1 for padding.
    dk_contact_int4 constraint;
    dk_contact_float4 nx, ny, friction;
    dk_contact_float4 mA, iA, mB, iB;
    /// The two-point normal-mass matrix and its inverse determinant (0: solve point by point).
    dk_contact_float4 k11, k12, k22, invDet;
    dk_contact_point p0, p1;
} dk_contact_batch;

typedef struct dk_contact_pass {
    dk_contact_batch *batches;
    /// Color c's batches end at `colorEnds[c]` (they start where color c − 1's end).
    const int32_t *colorEnds;
    intptr_t colorCount;
    /// Packed quadruples: velocities (vx, vy, ω, 0) and poses (x, y, cos, sin), one per entry.
    float *velocity;
    const float *pose;
    int32_t warmStart, useBias;
    float invH, maxPush;
    /// The soft contact's coefficients: between two bodies with mass, and where a side has none (a static body or a
    /// boundary), which is stiffer. Each lane takes one pair by its inverse masses.
    float biasRate, massScale, impulseScale;
    float staticBiasRate, staticMassScale, staticImpulseScale;
} dk_contact_pass;

void dk_contact_pass_run(const dk_contact_pass *pass);
/// Batches from ..< to of one color (they must lie within one color).
void dk_contact_pass_run_batches(const dk_contact_pass *pass, intptr_t from, intptr_t to);

#endif
