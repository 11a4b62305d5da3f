// The free-motion pass at one width, included once per width by FreeMotion.c, which defines before it:
//   W              the lane count (4, 8 or 16)
//   VF, VI         float and int vectors of W lanes
//   EVEN, ODD      (a, b) → the x or y of the W pairs held in a then b, in the kernel's lane order
//   ZIPLO, ZIPHI   (x, y) → the first or second W floats of the pairs, back in slot order
//   ORDER(v)       a vector of one value per body in slot order, put in the kernel's lane order
//   UNORDER(v)     and back
//   OPAQUE(v)      v, but a barrier the optimiser cannot move arithmetic across
//   MOVEMASK(m)    the sign bits of a mask, one bit per lane
//   FN(name)       name with the width appended (Widths.h)
// and this file undefines them all but FN at its end, ready for the next width.
// At 8 and 16 lanes the kernel's lane order is not the slots' (0 1 4 5 2 3 6 7 at 8): the pairs are split and merged
// within each 128-bit part of the registers, which saves a cross-part permutation per split and per merge; the
// per-body scalar columns read with the pairs are permuted to match (their own order does not matter to whole-mask
// tests).
// Every expression below keeps the association and operand order of the Swift reference it replaced
// (`IntegrationPathTests` compares the pass with the substep loop, and the widths with each other).

#include "WidthOps.h"

static inline __attribute__((always_inline)) VF FN(load)(const float *p) {
    VF v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

/// A column of one float per body, in the kernel's lane order.
static inline __attribute__((always_inline)) VF FN(loadOrdered)(const float *p) { return ORDER(FN(load)(p)); }

static inline __attribute__((always_inline)) void FN(store)(float *p, VF v, int lanes) {
    if (lanes == W) { __builtin_memcpy(p, &v, sizeof v); return; }
    for (int l = 0; l < lanes; l++) p[l] = v[l];
}

/// W (x, y) pairs from slot s, split.
static inline __attribute__((always_inline)) void FN(loadPairs)(const float *p, intptr_t s, VF *x, VF *y) {
    VF a = FN(load)(p + 2 * s), b = FN(load)(p + 2 * s + W);
    *x = EVEN(a, b);
    *y = ODD(a, b);
}

static inline __attribute__((always_inline)) void FN(storePairs)(float *p, intptr_t s, VF x, VF y, int lanes) {
    if (lanes == W) {
        VF a = ZIPLO(x, y), b = ZIPHI(x, y);
        __builtin_memcpy(p + 2 * s, &a, sizeof a);
        __builtin_memcpy(p + 2 * s + W, &b, sizeof b);
        return;
    }
    for (int l = 0; l < lanes; l++) { p[2 * (s + l)] = x[l]; p[2 * (s + l) + 1] = y[l]; }
}

/// ⌊q⌋ for 0 ≤ q < 2²³ (`restWindowIndex` in Swift): adding and removing 2²³ rounds, then corrected down.
static inline __attribute__((always_inline)) VF FN(windowIndex)(VF q) {
    VF t = (q + 8388608.0f) - 8388608.0f;
    return FN(select)(q < t, t - 1.0f, t);
}

/// Radial gravity and vortices about one point (see `dk_free_central`), specialised by the falloffs present.
static inline __attribute__((always_inline)) void FN(central)(const dk_free_central *c, const int mask, VF dx, VF dy,
                                                             VF *ax, VF *ay) {
    // The square root and the division run side by side (1/r = r/r²). r² below the smallest normal float counts
    // as the center (no direction).
    VF d2 = dx * dx + dy * dy;
    VI atCenter = d2 < FN(splat)(1.17549435e-38f);
    VF dist = __builtin_elementwise_sqrt(d2);
    VF inv2 = FN(select)(atCenter, FN(splat)(0.0f), 1.0f / d2);
    VF inv = dist * inv2;
    VF a = FN(splat)(-0.0f), b = FN(splat)(-0.0f);
    if (mask & 1) { a = FN(splat)(c->a0); b = FN(splat)(c->b0); }
    if (mask & 2) {
        // 1 / max(dist / 100, minR) without a second division.
        VF u = FN(min)(100.0f * inv, FN(splat)(c->invMinR));
        a = a + FN(splat)(c->a1) * u;
        b = b + FN(splat)(c->b1) * u;
    }
    if (mask & 4) {
        // 1 / max(dist / 100, minR)², from 1/r² alone.
        VF u2 = FN(min)(10000.0f * inv2, FN(splat)(c->invMinR2));
        a = a + FN(splat)(c->a2) * u2;
        b = b + FN(splat)(c->b2) * u2;
    }
    if (mask & 8) {
        VF r = FN(max)(dist * 0.01f, FN(splat)(c->minR));
        a = a + FN(splat)(c->am) * r;
        b = b + FN(splat)(c->bm) * r;
    }
    a = a * inv;
    b = b * inv;
    *ax = *ax + (a * dx + b * dy);
    *ay = *ay + (a * dy - b * dx);
}

/// Any list of fields, in table order.
static inline __attribute__((always_inline)) void FN(general)(const dk_free_params *p, VF x, VF y, VF *ax, VF *ay,
                                                             VF *fx, VF *fy) {
    VF dx = FN(splat)(0), dy = FN(splat)(0), dist = FN(splat)(0), inv = FN(splat)(0);
    for (intptr_t i = 0; i < p->fieldCount; i++) {
        const dk_free_field *f = &p->fields[i];
        VF minR = FN(splat)(f->minR), invMinR = FN(splat)(f->invMinR);
        if (!f->sameCenter) {
            dx = x - f->cx;
            dy = y - f->cy;
            dist = __builtin_elementwise_sqrt(dx * dx + dy * dy);
            inv = FN(select)(dist <= 0.0f, FN(splat)(0), 1.0f / dist);
        }
        VF r = dist * 0.01f;
        VF scale;
        switch (f->falloff) {
        case 0: scale = FN(splat)(1); break;
        case 1: scale = FN(select)(r < minR, invMinR, 100.0f * inv); break;
        case 2: {
            VF invR = FN(select)(r < minR, invMinR, 100.0f * inv);
            scale = invR * invR;
            break;
        }
        default: scale = FN(select)(r < minR, minR, r); break;
        }
        VF k = FN(splat)(f->k);
        switch (f->kind) {
        case 0: { VF c = k * scale * inv; *ax = *ax + c * dx; *ay = *ay + c * dy; break; }
        case 1: { VF c = k * scale * inv; *ax = *ax + c * dy; *ay = *ay - c * dx; break; }
        case 2: { VF c = k * scale * inv; *fx = *fx + c * dx; *fy = *fy + c * dy; break; }
        default: *ax = *ax + scale * f->kx; *ay = *ay + scale * f->ky; break;
        }
    }
}

/// One group of W bodies from slot s (the first `lanes` live); returns whether one is ready to sleep.
/// `program`, `mask` and `perBody` are constants in every instantiation.
static inline __attribute__((always_inline)) int FN(group)(const dk_free_params *p, const int program,
                                                           const int mask, const int perBody, intptr_t s, int lanes) {
    VI live;
    for (int l = 0; l < W; l++) live[l] = l < lanes ? -1 : 0;
    VF x, y, vx, vy;
    FN(loadPairs)(p->position, s, &x, &y);
    FN(loadPairs)(p->velocity, s, &vx, &vy);

    // Fields, at the position before the step. Sums start at −0, which folds away (x + −0 = x exactly).
    VF ax = FN(splat)(-0.0f), ay = FN(splat)(-0.0f), fx = FN(splat)(-0.0f), fy = FN(splat)(-0.0f);
    if (program == 1) {
        FN(central)(&p->central, mask, x - p->central.cx, y - p->central.cy, &ax, &ay);
    } else if (program == 2) {
        FN(general)(p, x, y, &ax, &ay, &fx, &fy);
    }
    if (perBody && p->gravityOn) {
        VF gx, gy;
        FN(loadPairs)(p->gravity, s, &gx, &gy);
        ax = gx + ax;
        ay = gy + ay;
    }
    if (perBody && (p->forceOn || p->springs)) {
        VF inverseMass = FN(loadOrdered)(p->invMass + s);
        if (p->forceOn) {
            VF cx, cy;
            FN(loadPairs)(p->force, s, &cx, &cy);
            fx = cx + fx;
            fy = cy + fy;
        }
        ax = ax + inverseMass * fx;
        ay = ay + inverseMass * fy;
    }

    // All substeps at once (`World.dampingTerms`); without linear damping every body has the undamped terms.
    const int damped = perBody && p->dampingOn;
    VF d = damped ? FN(loadOrdered)(p->decay + s) : FN(splat)(p->undampedDecay);
    VF g = damped ? FN(loadOrdered)(p->gain + s) : FN(splat)(p->undampedGain);
    VF pg = damped ? FN(loadOrdered)(p->positionGain + s) : FN(splat)(p->undampedPositionGain);
    x = x + g * vx + pg * ax;
    y = y + g * vy + pg * ay;
    vx = d * vx + g * ax;
    vy = d * vy + g * ay;
    FN(storePairs)(p->position, s, x, y, lanes);
    // The speed limit (`World.limitSpeeds` on the other paths): a lane over it is scaled down to it.
    VF speed2 = vx * vx + vy * vy;
    VI over = FN(splat)(p->maxSpeed2) < speed2;
    if (__builtin_expect(MOVEMASK(over), 0)) {
        VF scale = FN(select)(over, FN(splat)(p->maxSpeed) / __builtin_elementwise_sqrt(speed2), FN(splat)(1.0f));
        vx = vx * scale;
        vy = vy * scale;
        speed2 = vx * vx + vy * vy;
    }
    FN(storePairs)(p->velocity, s, vx, vy, lanes);
    // Behind a barrier, so that the velocities need not be kept (spilled) across the spin test.
    speed2 = OPAQUE(speed2);

    // Rotation: most swarms do not turn; the bodies that do take the scalar path (in slot order: the mask is
    // tested lane by lane against slots).
    VF w = FN(load)(p->angularVelocity + s);
    VI spinning = w != 0.0f;
    if (perBody && p->torqueOn) {
        spinning = spinning | (FN(load)(p->torqueA + s) != 0.0f) | (FN(load)(p->torqueB + s) != 0.0f);
    }
    spinning = spinning & live;
    const int anySpinning = MOVEMASK(spinning);
    if (anySpinning) {
        for (int l = 0; l < lanes; l++) {
            if (spinning[l]) p->spin(p->context, s + l);
        }
        w = FN(load)(p->angularVelocity + s);
    }

    // The rest test of `World.restTest`, lane for lane. A fast body is in no rest test: its rest time is −1.
    // The spin terms are taken in slot order and their mask permuted once. Without a spinning body every live
    // lane's ω is zero and none turns fast (fastSpin ≥ 0), so the spin terms are skipped.
    VI fast = FN(splat)(p->fastSpeed2) < speed2;
    if (anySpinning) {
        VF spin = __builtin_elementwise_abs(w);
        VI turning = (FN(splat)(p->fastSpin) < spin) & (FN(splat)(p->fastEdge) < spin * FN(load)(p->extent + s));
        fast = fast | ORDER(turning);
    }
    if (MOVEMASK(fast | ~live) == (1 << W) - 1) {
        FN(store)(p->sleepTime + s, FN(splat)(-1.0f), lanes);
        return 0;
    }
    VF e = FN(load)(p->extent + s);
    // The new positions are read back: keeping them in registers through the fast test (and the spin call) costs
    // spills in every group.
    FN(loadPairs)(p->position, s, &x, &y);
    VF rc, rs, px, py, qc, qs;
    FN(loadPairs)(p->rotation, s, &rc, &rs);
    FN(loadPairs)(p->anchor, s, &px, &py);
    VF ex = x - px, ey = y - py;
    VI drift = FN(splat)(p->drift2) < ex * ex + ey * ey;
    FN(loadPairs)(p->anchorRotation, s, &qc, &qs);
    VF oneMinusCos = 1.0f - (qc * rc + qs * rs);
    e = ORDER(e);
    VI turned = (FN(splat)(p->halfTurn2) < oneMinusCos)
        & ((e <= 0.0f) | (FN(splat)(p->halfDrift2) < oneMinusCos * (e * e)));
    VF before = FN(loadOrdered)(p->sleepTime + s);
    VI reset = (before < 0.0f) | drift | turned;
    VF after = before + p->dt;
    VI crossed = FN(windowIndex)(after * p->invWindow) != FN(windowIndex)(before * p->invWindow);
    VF time = FN(select)(fast, FN(splat)(-1.0f), FN(select)(reset, FN(splat)(0.0f), after));
    VI move = (reset | crossed) & ~fast;
    FN(store)(p->sleepTime + s, UNORDER(time), lanes);
    FN(storePairs)(p->anchor, s, FN(select)(move, x, px), FN(select)(move, y, py), lanes);
    FN(storePairs)(p->anchorRotation, s, FN(select)(move, rc, qc), FN(select)(move, rs, qs), lanes);
    return MOVEMASK((FN(splat)(p->readyTime) <= time) & live) != 0;
}

/// Groups of W from slot `from` while a whole group fits before `to`, and at 4 lanes the partial group left;
/// returns the first slot not done.
static inline __attribute__((always_inline)) intptr_t FN(runGroups)(const dk_free_params *p, const int program,
                                                                   const int mask, const int perBody, intptr_t from,
                                                                   intptr_t to, int *ready) {
    // A local copy: the stores through the column pointers cannot change it, so its pointers and constants stay
    // in registers (or are broadcast once) instead of being read again for every group.
    const dk_free_params local = *p;
    intptr_t s = from;
    int any = 0;
    for (; s + W <= to; s += W) {
        any |= FN(group)(&local, program, mask, perBody, s, W);
    }
    if (W == 4 && s < to) {
        int lanes = to - s;
        any |= FN(group)(&local, program, mask, perBody, s, lanes);
        s = to;
    }
    if (any) *ready = 1;
    return s;
}

/// The pass over slots from ..< to with the program's kernel; returns the first slot not done. At 4 lanes it ends
/// with the partial group; at 8 it leaves the last bodies (fewer than 8) to the 4-lane pass.
static intptr_t FN(pass)(const dk_free_params *p, intptr_t from, intptr_t to, int *ready) {
#define DK_RUN(program, mask) \
    (p->perBody ? FN(runGroups)(p, program, mask, 1, from, to, ready) \
                : FN(runGroups)(p, program, mask, 0, from, to, ready))
    switch (p->program) {
    case 0: return DK_RUN(0, 0);
    case 2: return DK_RUN(2, 0);
    default:
        switch (p->central.mask) {
        case 1: return DK_RUN(1, 1);
        case 2: return DK_RUN(1, 2);
        case 3: return DK_RUN(1, 3);
        case 4: return DK_RUN(1, 4);
        case 5: return DK_RUN(1, 5);
        case 6: return DK_RUN(1, 6);
        case 7: return DK_RUN(1, 7);
        case 8: return DK_RUN(1, 8);
        case 9: return DK_RUN(1, 9);
        case 10: return DK_RUN(1, 10);
        case 11: return DK_RUN(1, 11);
        case 12: return DK_RUN(1, 12);
        case 13: return DK_RUN(1, 13);
        case 14: return DK_RUN(1, 14);
        default: return DK_RUN(1, 15);
        }
    }
#undef DK_RUN
}

// The parameters end with this width.
#undef W
#undef VF
#undef VI
#undef EVEN
#undef ODD
#undef ZIPLO
#undef ZIPHI
#undef MOVEMASK
#undef ORDER
#undef UNORDER
#undef OPAQUE
