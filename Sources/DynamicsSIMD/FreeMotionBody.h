// The free-motion pass at one width, included once per width by FreeMotion.c, which defines before it:
//   DK_LANES       the lane count (4, 8 or 16)
//   DK_VF, DK_VI   float and int vectors of DK_LANES lanes
//   EVEN, ODD      (a, b) → the x or y of the DK_LANES pairs held in a then b, in the kernel's lane order
//   ZIPLO, ZIPHI   (x, y) → the first or second DK_LANES floats of the pairs, back in slot order
//   ORDER(v)       a vector of one value per body in slot order, put in the kernel's lane order
//   UNORDER(v)     and back
//   OPAQUE(v)      v, but a barrier the optimizer cannot move arithmetic across
//   MOVEMASK(m)    the sign bits of a mask, one bit per lane
//   DK_FN(name)    name with the width appended (Widths.h)
// and this file undefines them all but DK_FN at its end, ready for the next width.
// At 8 and 16 lanes the kernel's lane order is not the slots' (0 1 4 5 2 3 6 7 at 8): the pairs are split and merged
// within each 128-bit part of the registers, which saves a cross-part permutation per split and per merge; the
// per-body scalar columns read with the pairs are permuted to match (their own order does not matter to whole-mask
// tests).
// Every expression below keeps the association and operand order of the Swift reference it replaced
// (`IntegrationPathTests` compares the pass with the substep loop, and the widths with each other).

#include "WidthOps.h"

static inline __attribute__((always_inline)) DK_VF DK_FN(load)(const float *p) {
    DK_VF v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

/// A column of one float per body, in the kernel's lane order.
static inline __attribute__((always_inline)) DK_VF DK_FN(loadOrdered)(const float *p) { return ORDER(DK_FN(load)(p)); }

static inline __attribute__((always_inline)) void DK_FN(store)(float *p, DK_VF v, int lanes) {
    if (lanes == DK_LANES) { __builtin_memcpy(p, &v, sizeof v); return; }
    for (int l = 0; l < lanes; l++) p[l] = v[l];
}

/// DK_LANES (x, y) pairs from slot s, split.
static inline __attribute__((always_inline)) void DK_FN(loadPairs)(const float *p, intptr_t s, DK_VF *x, DK_VF *y) {
    DK_VF a = DK_FN(load)(p + 2 * s), b = DK_FN(load)(p + 2 * s + DK_LANES);
    *x = EVEN(a, b);
    *y = ODD(a, b);
}

static inline __attribute__((always_inline)) void DK_FN(storePairs)(float *p, intptr_t s, DK_VF x, DK_VF y, int lanes) {
    if (lanes == DK_LANES) {
        DK_VF a = ZIPLO(x, y), b = ZIPHI(x, y);
        __builtin_memcpy(p + 2 * s, &a, sizeof a);
        __builtin_memcpy(p + 2 * s + DK_LANES, &b, sizeof b);
        return;
    }
    for (int l = 0; l < lanes; l++) { p[2 * (s + l)] = x[l]; p[2 * (s + l) + 1] = y[l]; }
}

/// ⌊q⌋ for 0 ≤ q < 2²³ (`restWindowIndex` in Swift): adding and removing 2²³ rounds, then corrected down.
static inline __attribute__((always_inline)) DK_VF DK_FN(windowIndex)(DK_VF q) {
    DK_VF t = (q + 8388608.0f) - 8388608.0f;
    return DK_FN(select)(q < t, t - 1.0f, t);
}

/// Radial gravity and vortices about one point (see `dk_free_central`), specialised by the falloffs present.
static inline __attribute__((always_inline)) void DK_FN(central)(const dk_free_central *c, const int mask, DK_VF dx, DK_VF dy,
                                                             DK_VF *ax, DK_VF *ay) {
    // The square root and the division run side by side (1/r = r/r²). r² below the smallest normal float counts
    // as the center (no direction).
    DK_VF d2 = dx * dx + dy * dy;
    DK_VI atCenter = d2 < DK_FN(splat)(1.17549435e-38f);
    DK_VF dist = __builtin_elementwise_sqrt(d2);
    DK_VF inv2 = DK_FN(select)(atCenter, DK_FN(splat)(0.0f), 1.0f / d2);
    DK_VF inv = dist * inv2;
    DK_VF a = DK_FN(splat)(-0.0f), b = DK_FN(splat)(-0.0f);
    if (mask & 1) { a = DK_FN(splat)(c->a0); b = DK_FN(splat)(c->b0); }
    if (mask & 2) {
        // 1 / max(dist / 100, minR) without a second division.
        DK_VF u = DK_FN(min)(100.0f * inv, DK_FN(splat)(c->invMinR));
        a = a + DK_FN(splat)(c->a1) * u;
        b = b + DK_FN(splat)(c->b1) * u;
    }
    if (mask & 4) {
        // 1 / max(dist / 100, minR)², from 1/r² alone.
        DK_VF u2 = DK_FN(min)(10000.0f * inv2, DK_FN(splat)(c->invMinR2));
        a = a + DK_FN(splat)(c->a2) * u2;
        b = b + DK_FN(splat)(c->b2) * u2;
    }
    if (mask & 8) {
        DK_VF r = DK_FN(max)(dist * 0.01f, DK_FN(splat)(c->minR));
        a = a + DK_FN(splat)(c->am) * r;
        b = b + DK_FN(splat)(c->bm) * r;
    }
    a = a * inv;
    b = b * inv;
    *ax = *ax + (a * dx + b * dy);
    *ay = *ay + (a * dy - b * dx);
}

/// Any list of fields, in table order.
static inline __attribute__((always_inline)) void DK_FN(general)(const dk_free_params *p, DK_VF x, DK_VF y, DK_VF *ax, DK_VF *ay,
                                                             DK_VF *fx, DK_VF *fy) {
    DK_VF dx = DK_FN(splat)(0), dy = DK_FN(splat)(0), dist = DK_FN(splat)(0), inv = DK_FN(splat)(0);
    for (intptr_t i = 0; i < p->fieldCount; i++) {
        const dk_free_field *f = &p->fields[i];
        DK_VF minR = DK_FN(splat)(f->minR), invMinR = DK_FN(splat)(f->invMinR);
        if (!f->sameCenter) {
            dx = x - f->cx;
            dy = y - f->cy;
            dist = __builtin_elementwise_sqrt(dx * dx + dy * dy);
            inv = DK_FN(select)(dist <= 0.0f, DK_FN(splat)(0), 1.0f / dist);
        }
        DK_VF r = dist * 0.01f;
        DK_VF scale;
        switch (f->falloff) {
        case 0: scale = DK_FN(splat)(1); break;
        case 1: scale = DK_FN(select)(r < minR, invMinR, 100.0f * inv); break;
        case 2: {
            DK_VF invR = DK_FN(select)(r < minR, invMinR, 100.0f * inv);
            scale = invR * invR;
            break;
        }
        default: scale = DK_FN(select)(r < minR, minR, r); break;
        }
        DK_VF k = DK_FN(splat)(f->k);
        switch (f->kind) {
        case 0: { DK_VF c = k * scale * inv; *ax = *ax + c * dx; *ay = *ay + c * dy; break; }
        case 1: { DK_VF c = k * scale * inv; *ax = *ax + c * dy; *ay = *ay - c * dx; break; }
        case 2: { DK_VF c = k * scale * inv; *fx = *fx + c * dx; *fy = *fy + c * dy; break; }
        default: *ax = *ax + scale * f->kx; *ay = *ay + scale * f->ky; break;
        }
    }
}

/// One group of DK_LANES bodies from slot s (the first `lanes` live); returns whether one is ready to sleep.
/// `program`, `mask` and `perBody` are constants in every instantiation.
static inline __attribute__((always_inline)) int DK_FN(group)(const dk_free_params *p, const int program,
                                                           const int mask, const int perBody, intptr_t s, int lanes) {
    DK_VI live;
    for (int l = 0; l < DK_LANES; l++) live[l] = l < lanes ? -1 : 0;
    DK_VF x, y, vx, vy;
    DK_FN(loadPairs)(p->position, s, &x, &y);
    DK_FN(loadPairs)(p->velocity, s, &vx, &vy);

    // Fields, at the position before the step. Sums start at −0, which folds away (x + −0 = x exactly).
    DK_VF ax = DK_FN(splat)(-0.0f), ay = DK_FN(splat)(-0.0f), fx = DK_FN(splat)(-0.0f), fy = DK_FN(splat)(-0.0f);
    if (program == 1) {
        DK_FN(central)(&p->central, mask, x - p->central.cx, y - p->central.cy, &ax, &ay);
    } else if (program == 2) {
        DK_FN(general)(p, x, y, &ax, &ay, &fx, &fy);
    }
    if (perBody && p->gravityOn) {
        DK_VF gx, gy;
        DK_FN(loadPairs)(p->gravity, s, &gx, &gy);
        ax = gx + ax;
        ay = gy + ay;
    }
    if (perBody && (p->forceOn || p->springs)) {
        DK_VF inverseMass = DK_FN(loadOrdered)(p->invMass + s);
        if (p->forceOn) {
            DK_VF cx, cy;
            DK_FN(loadPairs)(p->force, s, &cx, &cy);
            fx = cx + fx;
            fy = cy + fy;
        }
        ax = ax + inverseMass * fx;
        ay = ay + inverseMass * fy;
    }

    // All substeps at once (`World.dampingTerms`); without linear damping every body has the undamped terms.
    const int damped = perBody && p->dampingOn;
    DK_VF d = damped ? DK_FN(loadOrdered)(p->decay + s) : DK_FN(splat)(p->undampedDecay);
    DK_VF g = damped ? DK_FN(loadOrdered)(p->gain + s) : DK_FN(splat)(p->undampedGain);
    DK_VF pg = damped ? DK_FN(loadOrdered)(p->positionGain + s) : DK_FN(splat)(p->undampedPositionGain);
    x = x + g * vx + pg * ax;
    y = y + g * vy + pg * ay;
    vx = d * vx + g * ax;
    vy = d * vy + g * ay;
    DK_FN(storePairs)(p->position, s, x, y, lanes);
    // The speed limit (`World.limitSpeeds` on the other paths): a lane over it is scaled down to it.
    DK_VF speed2 = vx * vx + vy * vy;
    DK_VI over = DK_FN(splat)(p->maxSpeed2) < speed2;
    if (__builtin_expect(MOVEMASK(over), 0)) {
        DK_VF scale = DK_FN(select)(over, DK_FN(splat)(p->maxSpeed) / __builtin_elementwise_sqrt(speed2), DK_FN(splat)(1.0f));
        vx = vx * scale;
        vy = vy * scale;
        speed2 = vx * vx + vy * vy;
    }
    DK_FN(storePairs)(p->velocity, s, vx, vy, lanes);
    // Behind a barrier, so that the velocities need not be kept (spilled) across the spin test.
    speed2 = OPAQUE(speed2);

    // Rotation: most swarms do not turn; the bodies that do take the scalar path (in slot order: the mask is
    // tested lane by lane against slots).
    DK_VF w = DK_FN(load)(p->angularVelocity + s);
    DK_VI spinning = w != 0.0f;
    if (perBody && p->torqueOn) {
        spinning = spinning | (DK_FN(load)(p->torqueA + s) != 0.0f) | (DK_FN(load)(p->torqueB + s) != 0.0f);
    }
    spinning = spinning & live;
    const int anySpinning = MOVEMASK(spinning);
    if (anySpinning) {
        for (int l = 0; l < lanes; l++) {
            if (spinning[l]) p->spin(p->context, s + l);
        }
        w = DK_FN(load)(p->angularVelocity + s);
    }

    // The rest test of `World.restTest`, lane for lane. A fast body is in no rest test: its rest time is −1.
    // The spin terms are taken in slot order and their mask permuted once. Without a spinning body every live
    // lane's ω is zero and none turns fast (fastSpin ≥ 0), so the spin terms are skipped.
    DK_VI fast = DK_FN(splat)(p->fastSpeed2) < speed2;
    if (anySpinning) {
        DK_VF spin = __builtin_elementwise_abs(w);
        DK_VI turning = (DK_FN(splat)(p->fastSpin) < spin) & (DK_FN(splat)(p->fastEdge) < spin * DK_FN(load)(p->extent + s));
        fast = fast | ORDER(turning);
    }
    if (MOVEMASK(fast | ~live) == (1 << DK_LANES) - 1) {
        DK_FN(store)(p->sleepTime + s, DK_FN(splat)(-1.0f), lanes);
        return 0;
    }
    DK_VF e = DK_FN(load)(p->extent + s);
    // The new positions are read back: keeping them in registers through the fast test (and the spin call) costs
    // spills in every group.
    DK_FN(loadPairs)(p->position, s, &x, &y);
    DK_VF rc, rs, px, py, qc, qs;
    DK_FN(loadPairs)(p->rotation, s, &rc, &rs);
    DK_FN(loadPairs)(p->anchor, s, &px, &py);
    DK_VF ex = x - px, ey = y - py;
    DK_VI drift = DK_FN(splat)(p->drift2) < ex * ex + ey * ey;
    DK_FN(loadPairs)(p->anchorRotation, s, &qc, &qs);
    DK_VF oneMinusCos = 1.0f - (qc * rc + qs * rs);
    e = ORDER(e);
    DK_VI turned = (DK_FN(splat)(p->halfTurn2) < oneMinusCos)
        & ((e <= 0.0f) | (DK_FN(splat)(p->halfDrift2) < oneMinusCos * (e * e)));
    DK_VF before = DK_FN(loadOrdered)(p->sleepTime + s);
    DK_VI reset = (before < 0.0f) | drift | turned;
    DK_VF after = before + p->dt;
    DK_VI crossed = DK_FN(windowIndex)(after * p->invWindow) != DK_FN(windowIndex)(before * p->invWindow);
    DK_VF time = DK_FN(select)(fast, DK_FN(splat)(-1.0f), DK_FN(select)(reset, DK_FN(splat)(0.0f), after));
    DK_VI move = (reset | crossed) & ~fast;
    DK_FN(store)(p->sleepTime + s, UNORDER(time), lanes);
    DK_FN(storePairs)(p->anchor, s, DK_FN(select)(move, x, px), DK_FN(select)(move, y, py), lanes);
    DK_FN(storePairs)(p->anchorRotation, s, DK_FN(select)(move, rc, qc), DK_FN(select)(move, rs, qs), lanes);
    return MOVEMASK((DK_FN(splat)(p->readyTime) <= time) & live) != 0;
}

/// Groups of DK_LANES from slot `from` while a whole group fits before `to`, and at 4 lanes the partial group left;
/// returns the first slot not done.
static inline __attribute__((always_inline)) intptr_t DK_FN(runGroups)(const dk_free_params *p, const int program,
                                                                   const int mask, const int perBody, intptr_t from,
                                                                   intptr_t to, int *ready) {
    // A local copy: the stores through the column pointers cannot change it, so its pointers and constants stay
    // in registers (or are broadcast once) instead of being read again for every group.
    const dk_free_params local = *p;
    intptr_t s = from;
    int any = 0;
    for (; s + DK_LANES <= to; s += DK_LANES) {
        any |= DK_FN(group)(&local, program, mask, perBody, s, DK_LANES);
    }
    if (DK_LANES == 4 && s < to) {
        int lanes = to - s;
        any |= DK_FN(group)(&local, program, mask, perBody, s, lanes);
        s = to;
    }
    if (any) *ready = 1;
    return s;
}

/// The pass over slots from ..< to with the program's kernel; returns the first slot not done. At 4 lanes it ends
/// with the partial group; at 8 it leaves the last bodies (fewer than 8) to the 4-lane pass.
static intptr_t DK_FN(pass)(const dk_free_params *p, intptr_t from, intptr_t to, int *ready) {
#define DK_RUN(program, mask) \
    (p->perBody ? DK_FN(runGroups)(p, program, mask, 1, from, to, ready) \
                : DK_FN(runGroups)(p, program, mask, 0, from, to, ready))
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
#undef DK_LANES
#undef DK_VF
#undef DK_VI
#undef EVEN
#undef ODD
#undef ZIPLO
#undef ZIPHI
#undef MOVEMASK
#undef ORDER
#undef UNORDER
#undef OPAQUE
