// The free-motion kernel: one pass over the awake bodies of a step with nothing to solve (no contact, no awake
// joint), which evaluates the built-in fields, integrates every substep in closed form and runs the rest test.
// `World+FreeMotion.swift` compiles the fields and fills `dk_free_params`; the kernel itself is C so that it can
// be built at several widths from one source: 4 lanes for the portable x86-64 (SSE2) and arm64 build, and on
// x86-64, chosen at run time (`dk_vector_width`), 8 lanes for processors with AVX2 and 16 for those with AVX-512.
// Every width performs the same IEEE operations in the same order on every body (no fused multiply-add, no
// approximate reciprocal), so they give bit-identical results.
#ifndef DYNAMICS_FREE_MOTION_H
#define DYNAMICS_FREE_MOTION_H

#include <stdint.h>

/// A field of the general program. Constants are ready to use: see `World.prepareFreeMotion`.
typedef struct dk_free_field {
    /// 0 radial gravity, 1 vortex, 2 spring, 3 linear gravity.
    int32_t kind;
    /// 0, 1, 2 or −1.
    int32_t falloff;
    /// At the same position as the field before it: its distances are reused.
    int32_t sameCenter;
    float cx, cy;
    /// Radial, vortex and spring: the coefficient of the unit offset (points/s², or force for spring).
    float k;
    /// Linear: 100 · strength · direction.
    float kx, ky;
    /// Minimum radius in metres, and its inverse.
    float minR, invMinR;
} dk_free_field;

/// The central program: radial gravity and vortices about one point, acceleration = (A·d + B·d⊥) / |d| with A and
/// B sums over the falloffs present of coefficient × scale(r) (radial fields in A, vortices in B).
typedef struct dk_free_central {
    float cx, cy;
    /// Falloff −1: the minimum radius (metres); falloffs 1 and 2: its inverse and squared inverse.
    float minR, invMinR, invMinR2;
    float a0, a1, a2, am;
    float b0, b1, b2, bm;
    /// Bit k for falloff k (0, 1, 2), bit 3 for falloff −1.
    int32_t mask;
} dk_free_central;

/// What one pass reads and writes. Column pointers are the body store's (slots 0 ..< count are the awake bodies;
/// every column holds a multiple of four slots, the spare ones readable). Pair columns hold (x, y) per body.
typedef struct dk_free_params {
    float *position, *velocity, *rotation, *anchor, *anchorRotation;
    const float *gravity, *force;
    float *angularVelocity, *sleepTime;
    const float *invMass, *torqueA, *torqueB, *extent, *decay, *gain, *positionGain;
    intptr_t count;
    /// 0 no fields, 1 central, 2 general.
    int32_t program;
    /// Gravity, constant forces, torques, spring fields or linear damping in use: per-body terms are read.
    int32_t perBody;
    /// Which per-body terms: the columns of those off may be null (`force`, `torqueA`, `torqueB`; `decay`,
    /// `gain`, `positionGain` without `dampingOn`).
    int32_t gravityOn, forceOn, torqueOn, springs, dampingOn;
    const dk_free_field *fields;
    intptr_t fieldCount;
    dk_free_central central;
    float dt;
    float fastSpeed2, fastSpin, fastEdge, drift2, halfTurn2, halfDrift2, readyTime, invWindow;
    /// The world's speed limit (`WorldSettings.maximumLinearSpeed`) and its square.
    float maxSpeed, maxSpeed2;
    /// The integration terms shared by every body when `perBody` is 0.
    float undampedDecay, undampedGain, undampedPositionGain;
    /// Turns a spinning (or torqued) body through the substeps; called for it before its rest test.
    void (*spin)(void *context, intptr_t slot);
    void *context;
} dk_free_params;

/// Runs the pass; returns 1 when some body has rested long enough to sleep.
int dk_free_motion(const dk_free_params *params);
/// The pass over slots from ..< to only (each body's results are its own: any split of the slots gives the same bits).
int dk_free_motion_range(const dk_free_params *params, intptr_t from, intptr_t to);

#endif
