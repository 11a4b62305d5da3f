// The wide rod pass: rigid distance joints in batches of four (WideJoints.swift builds them), the geometry sweep
// and the warm start or one solve pass, over the packed body state. As with contacts (DynamicsContacts.h), a
// color's batches share no awake body, so they could be solved side by side at any width; the pass keeps 4 lanes,
// as 8 measured no faster (see Solvers.c).
#ifndef DYNAMICS_RODS_H
#define DYNAMICS_RODS_H

#include <stdint.h>

typedef float dk_rod_float4 __attribute__((ext_vector_type(4)));
typedef int dk_rod_int4 __attribute__((ext_vector_type(4)));

/// Four rods whose anchors are their bodies' centers of mass (or a world point): linear velocities only.
typedef struct dk_center_rod_batch {
    /// Entries of each side in the packed state; a world side's entry holds the world point as its position.
    dk_rod_int4 entryA, entryB;
    /// The joint record of each lane, −1 for padding.
    dk_rod_int4 joint;
    dk_rod_float4 mA, mB;
    dk_rod_float4 length;
    dk_rod_float4 impulse;
    /// Geometry at the current positions: the unit axis, the axial mass and the length error.
    dk_rod_float4 ax, ay, axialMass, error;
} dk_center_rod_batch;

/// Four rods of one color, anchors anywhere. Padding lanes have two fixed sides 1 apart, rest length 1 and no
/// mass, so they apply nothing.
typedef struct dk_rod_batch {
    dk_rod_int4 entryA, entryB;
    dk_rod_int4 joint;
    /// Anchors in the body frames (for the world, the world point).
    dk_rod_float4 localAx, localAy, localBx, localBy;
    dk_rod_float4 mA, iA, mB, iB;
    dk_rod_float4 length;
    /// The accumulated impulse along the rod (the record's `axialImpulse` during the step).
    dk_rod_float4 impulse;
    /// Geometry at the current positions: the anchors, the unit axis (zero where the anchors coincide), the axial
    /// mass (zero where the rod cannot act) and the length error.
    dk_rod_float4 rAx, rAy, rBx, rBy;
    dk_rod_float4 ax, ay, axialMass, error;
} dk_rod_batch;

typedef struct dk_rod_pass {
    /// The batches of each kind, in color order.
    dk_center_rod_batch *center;
    intptr_t centerCount;
    dk_rod_batch *general;
    intptr_t generalCount;
    /// Packed quadruples: velocities (vx, vy, ω, 0) and poses (x, y, cos, sin), one per entry.
    float *velocity;
    const float *pose;
    /// Compute the geometry from the poses first (positions moved since the last pass).
    int32_t geometry;
    int32_t warmStart;
    /// The soft step's coefficients of this pass (0, 1, 0 when relaxing).
    float biasRate, massScale, impulseScale;
    /// The largest speed (points/s) at which a rod corrects its length (`WorldSettings.jointPushMaxVelocity`).
    float maxBias;
} dk_rod_pass;

void dk_rod_pass_run(const dk_rod_pass *pass);
/// Center or general batches from ..< to only: the geometry sweep (`geometry` 1) or the pass (0).
void dk_rod_pass_run_center(const dk_rod_pass *pass, intptr_t from, intptr_t to, int geometry);
void dk_rod_pass_run_general(const dk_rod_pass *pass, intptr_t from, intptr_t to, int geometry);

#endif
