// The wide rod pass, included by Solvers.c after ContactBody.h at 4 lanes only (same definitions; see Solvers.c).
// Every expression keeps the association and operand order of the Swift reference it replaced (WideJoints.swift);
// Swift's prefix minus on a vector is 0 − v, written so here.

/// The center batches' geometry at the current positions: the unit axis, the axial mass and the length error.
static inline __attribute__((always_inline)) void FN(centerGeometry)(const dk_rod_pass *p, dk_center_rod_batch *b) {
    int32_t ea[W], eb[W];
    DK_ENTRIES(b, ea, eb);
    VF pAx, pAy, pBx, pBy;
    FN(gatherPairs)(p->pose, ea, &pAx, &pAy);
    FN(gatherPairs)(p->pose, eb, &pBx, &pBy);
    VF zero = FN(splat)(0), one = FN(splat)(1);
    VF dx = pBx - pAx, dy = pBy - pAy;
    VF len = __builtin_elementwise_sqrt(dx * dx + dy * dy);
    VI valid = FN(splat)(1e-6f) < len;
    VF inv = 1.0f / FN(select)(valid, len, one);
    VF kk = DK_FIELD(b, mA) + DK_FIELD(b, mB);
    VI usable = valid & (zero < kk);
    DK_SET_FIELD(b, ax, FN(select)(valid, dx * inv, zero));
    DK_SET_FIELD(b, ay, FN(select)(valid, dy * inv, zero));
    DK_SET_FIELD(b, axialMass, FN(select)(usable, 1.0f / FN(select)(usable, kk, one), zero));
    DK_SET_FIELD(b, error, len - DK_FIELD(b, length));
}

/// The general batches' geometry: anchors from the current rotations (for the world, the identity and the world
/// point), the unit axis (zero where the anchors coincide), the axial mass (zero where the rod cannot act), the
/// length error.
static inline __attribute__((always_inline)) void FN(rodGeometry)(const dk_rod_pass *p, dk_rod_batch *b) {
    int32_t ea[W], eb[W];
    DK_ENTRIES(b, ea, eb);
    VF pAx, pAy, cA, sA, pBx, pBy, cB, sB;
    FN(gather)(p->pose, ea, &pAx, &pAy, &cA, &sA);
    FN(gather)(p->pose, eb, &pBx, &pBy, &cB, &sB);
    VF zero = FN(splat)(0), one = FN(splat)(1);
    VF lAx = DK_FIELD(b, localAx), lAy = DK_FIELD(b, localAy), lBx = DK_FIELD(b, localBx), lBy = DK_FIELD(b, localBy);
    VF rAx = cA * lAx - sA * lAy, rAy = sA * lAx + cA * lAy;
    VF rBx = cB * lBx - sB * lBy, rBy = sB * lBx + cB * lBy;
    VF dx = (pBx + rBx) - (pAx + rAx), dy = (pBy + rBy) - (pAy + rAy);
    VF len = __builtin_elementwise_sqrt(dx * dx + dy * dy);
    VI valid = FN(splat)(1e-6f) < len;
    VF inv = 1.0f / FN(select)(valid, len, one);
    VF ax = FN(select)(valid, dx * inv, zero), ay = FN(select)(valid, dy * inv, zero);
    VF crA = rAx * ay - rAy * ax, crB = rBx * ay - rBy * ax;
    VF kk = DK_FIELD(b, mA) + DK_FIELD(b, mB) + DK_FIELD(b, iA) * crA * crA + DK_FIELD(b, iB) * crB * crB;
    VI usable = valid & (zero < kk);
    DK_SET_FIELD(b, rAx, rAx);
    DK_SET_FIELD(b, rAy, rAy);
    DK_SET_FIELD(b, rBx, rBx);
    DK_SET_FIELD(b, rBy, rBy);
    DK_SET_FIELD(b, ax, ax);
    DK_SET_FIELD(b, ay, ay);
    DK_SET_FIELD(b, axialMass, FN(select)(usable, 1.0f / FN(select)(usable, kk, one), zero));
    DK_SET_FIELD(b, error, len - DK_FIELD(b, length));
}

/// The impulse of this pass along the rods: the stored one for the warm start, else the soft (or relaxing) solve's
/// increment, added to the stored one; zero where the rod cannot act (axial mass zero), as in the scalar path.
#define DK_ROD_IMPULSE(b, cdotExpression, impulseOut)                                                                 \
    do {                                                                                                              \
        if (warmStart) {                                                                                              \
            impulseOut = DK_FIELD(b, impulse);                                                                        \
        } else {                                                                                                      \
            VF cdot = cdotExpression;                                                                                 \
            VF axialMass = DK_FIELD(b, axialMass), stored = DK_FIELD(b, impulse);                                     \
            VF bias = FN(min)(FN(max)(biasRate * DK_FIELD(b, error), zero - maxBias), maxBias);                      \
            VF raw = (zero - massScale) * axialMass * (cdot + bias) - impulseScale * stored;                          \
            impulseOut = FN(select)(zero < axialMass, raw, zero);                                                     \
            DK_SET_FIELD(b, impulse, stored + impulseOut);                                                            \
        }                                                                                                             \
    } while (0)

static inline __attribute__((always_inline)) void FN(centerRodGroup)(const dk_rod_pass *p, dk_center_rod_batch *b,
                                                                   const int warmStart) {
    int32_t ea[W], eb[W];
    DK_ENTRIES(b, ea, eb);
    VF vAx, vAy, vBx, vBy;
    FN(gatherPairs)(p->velocity, ea, &vAx, &vAy);
    FN(gatherPairs)(p->velocity, eb, &vBx, &vBy);
    VF zero = FN(splat)(0);
    VF biasRate = FN(splat)(p->biasRate), massScale = FN(splat)(p->massScale), impulseScale = FN(splat)(p->impulseScale);
    VF maxBias = FN(splat)(p->maxBias);
    VF ax = DK_FIELD(b, ax), ay = DK_FIELD(b, ay);
    VF impulse;
    DK_ROD_IMPULSE(b, ax * (vBx - vAx) + ay * (vBy - vAy), impulse);
    VF mA = DK_FIELD(b, mA), mB = DK_FIELD(b, mB);
    VF Px = impulse * ax, Py = impulse * ay;
    vAx = vAx - mA * Px;
    vAy = vAy - mA * Py;
    vBx = vBx + mB * Px;
    vBy = vBy + mB * Py;
    FN(scatterPairs)(p->velocity, ea, vAx, vAy);
    FN(scatterPairs)(p->velocity, eb, vBx, vBy);
}

static inline __attribute__((always_inline)) void FN(rodGroup)(const dk_rod_pass *p, dk_rod_batch *b,
                                                             const int warmStart) {
    int32_t ea[W], eb[W];
    DK_ENTRIES(b, ea, eb);
    VF vAx, vAy, wA, vBx, vBy, wB, unused;
    FN(gather)(p->velocity, ea, &vAx, &vAy, &wA, &unused);
    FN(gather)(p->velocity, eb, &vBx, &vBy, &wB, &unused);
    VF zero = FN(splat)(0);
    VF biasRate = FN(splat)(p->biasRate), massScale = FN(splat)(p->massScale), impulseScale = FN(splat)(p->impulseScale);
    VF maxBias = FN(splat)(p->maxBias);
    VF rAx = DK_FIELD(b, rAx), rAy = DK_FIELD(b, rAy), rBx = DK_FIELD(b, rBx), rBy = DK_FIELD(b, rBy);
    VF ax = DK_FIELD(b, ax), ay = DK_FIELD(b, ay);
    VF impulse;
    // Relative velocity of the anchors along the rod: v + ω × r on each side.
    DK_ROD_IMPULSE(b, ax * ((vBx - wB * rBy) - (vAx - wA * rAy)) + ay * ((vBy + wB * rBx) - (vAy + wA * rAx)), impulse);
    VF mA = DK_FIELD(b, mA), iA = DK_FIELD(b, iA), mB = DK_FIELD(b, mB), iB = DK_FIELD(b, iB);
    VF Px = impulse * ax, Py = impulse * ay;
    DK_APPLY_IMPULSE(vAx, vAy, wA, vBx, vBy, wB, Px, Py, rAx, rAy, rBx, rBy);
    FN(scatter)(p->velocity, ea, vAx, vAy, wA);
    FN(scatter)(p->velocity, eb, vBx, vBy, wB);
}
#undef DK_ROD_IMPULSE

/// The batches of either kind from `from` to `to`, W / 4 at a time while that many are left (the geometry sweep, or
/// the pass); returns the first not done.
static intptr_t FN(centerRodRun)(const dk_rod_pass *p, intptr_t from, intptr_t to, const int geometry) {
    intptr_t k = from;
    if (geometry) {
        for (; k + W / 4 <= to; k += W / 4) FN(centerGeometry)(p, p->center + k);
    } else if (p->warmStart) {
        for (; k + W / 4 <= to; k += W / 4) FN(centerRodGroup)(p, p->center + k, 1);
    } else {
        for (; k + W / 4 <= to; k += W / 4) FN(centerRodGroup)(p, p->center + k, 0);
    }
    return k;
}

static intptr_t FN(rodRun)(const dk_rod_pass *p, intptr_t from, intptr_t to, const int geometry) {
    intptr_t k = from;
    if (geometry) {
        for (; k + W / 4 <= to; k += W / 4) FN(rodGeometry)(p, p->general + k);
    } else if (p->warmStart) {
        for (; k + W / 4 <= to; k += W / 4) FN(rodGroup)(p, p->general + k, 1);
    } else {
        for (; k + W / 4 <= to; k += W / 4) FN(rodGroup)(p, p->general + k, 0);
    }
    return k;
}
