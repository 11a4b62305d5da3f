// The wide rod pass, included by Solvers.c after ContactBody.h at 4 lanes only (same definitions; see Solvers.c).
// Every expression keeps the association and operand order of the Swift reference it replaced (WideJoints.swift);
// Swift's prefix minus on a vector is 0 − v, written so here.

/// The center batches' geometry at the current positions: the unit axis, the axial mass and the length error.
static inline __attribute__((always_inline)) void DK_FN(centerGeometry)(const dk_rod_pass *p, dk_center_rod_batch *b) {
    int32_t ea[DK_LANES], eb[DK_LANES];
    DK_ENTRIES(b, ea, eb);
    DK_VF pAx, pAy, pBx, pBy;
    DK_FN(gatherPairs)(p->pose, ea, &pAx, &pAy);
    DK_FN(gatherPairs)(p->pose, eb, &pBx, &pBy);
    DK_VF zero = DK_FN(splat)(0), one = DK_FN(splat)(1);
    DK_VF dx = pBx - pAx, dy = pBy - pAy;
    DK_VF len = __builtin_elementwise_sqrt(dx * dx + dy * dy);
    DK_VI valid = DK_FN(splat)(1e-6f) < len;
    DK_VF inv = 1.0f / DK_FN(select)(valid, len, one);
    DK_VF kk = DK_FIELD(b, mA) + DK_FIELD(b, mB);
    DK_VI usable = valid & (zero < kk);
    DK_SET_FIELD(b, ax, DK_FN(select)(valid, dx * inv, zero));
    DK_SET_FIELD(b, ay, DK_FN(select)(valid, dy * inv, zero));
    DK_SET_FIELD(b, axialMass, DK_FN(select)(usable, 1.0f / DK_FN(select)(usable, kk, one), zero));
    DK_SET_FIELD(b, error, len - DK_FIELD(b, length));
}

/// The general batches' geometry: anchors from the current rotations (for the world, the identity and the world
/// point), the unit axis (zero where the anchors coincide), the axial mass (zero where the rod cannot act), the
/// length error.
static inline __attribute__((always_inline)) void DK_FN(rodGeometry)(const dk_rod_pass *p, dk_rod_batch *b) {
    int32_t ea[DK_LANES], eb[DK_LANES];
    DK_ENTRIES(b, ea, eb);
    DK_VF pAx, pAy, cA, sA, pBx, pBy, cB, sB;
    DK_FN(gather)(p->pose, ea, &pAx, &pAy, &cA, &sA);
    DK_FN(gather)(p->pose, eb, &pBx, &pBy, &cB, &sB);
    DK_VF zero = DK_FN(splat)(0), one = DK_FN(splat)(1);
    DK_VF lAx = DK_FIELD(b, localAx), lAy = DK_FIELD(b, localAy), lBx = DK_FIELD(b, localBx), lBy = DK_FIELD(b, localBy);
    DK_VF rAx = cA * lAx - sA * lAy, rAy = sA * lAx + cA * lAy;
    DK_VF rBx = cB * lBx - sB * lBy, rBy = sB * lBx + cB * lBy;
    DK_VF dx = (pBx + rBx) - (pAx + rAx), dy = (pBy + rBy) - (pAy + rAy);
    DK_VF len = __builtin_elementwise_sqrt(dx * dx + dy * dy);
    DK_VI valid = DK_FN(splat)(1e-6f) < len;
    DK_VF inv = 1.0f / DK_FN(select)(valid, len, one);
    DK_VF ax = DK_FN(select)(valid, dx * inv, zero), ay = DK_FN(select)(valid, dy * inv, zero);
    DK_VF crA = rAx * ay - rAy * ax, crB = rBx * ay - rBy * ax;
    DK_VF kk = DK_FIELD(b, mA) + DK_FIELD(b, mB) + DK_FIELD(b, iA) * crA * crA + DK_FIELD(b, iB) * crB * crB;
    DK_VI usable = valid & (zero < kk);
    DK_SET_FIELD(b, rAx, rAx);
    DK_SET_FIELD(b, rAy, rAy);
    DK_SET_FIELD(b, rBx, rBx);
    DK_SET_FIELD(b, rBy, rBy);
    DK_SET_FIELD(b, ax, ax);
    DK_SET_FIELD(b, ay, ay);
    DK_SET_FIELD(b, axialMass, DK_FN(select)(usable, 1.0f / DK_FN(select)(usable, kk, one), zero));
    DK_SET_FIELD(b, error, len - DK_FIELD(b, length));
}

/// The impulse of this pass along the rods: the stored one for the warm start, else the soft (or relaxing) solve's
/// increment, added to the stored one; zero where the rod cannot act (axial mass zero), as in the scalar path.
#define DK_ROD_IMPULSE(b, cdotExpression, impulseOut)                                                                 \
    do {                                                                                                              \
        if (warmStart) {                                                                                              \
            impulseOut = DK_FIELD(b, impulse);                                                                        \
        } else {                                                                                                      \
            DK_VF cdot = cdotExpression;                                                                                 \
            DK_VF axialMass = DK_FIELD(b, axialMass), stored = DK_FIELD(b, impulse);                                     \
            DK_VF bias = DK_FN(min)(DK_FN(max)(biasRate * DK_FIELD(b, error), zero - maxBias), maxBias);                      \
            DK_VF raw = (zero - massScale) * axialMass * (cdot + bias) - impulseScale * stored;                          \
            impulseOut = DK_FN(select)(zero < axialMass, raw, zero);                                                     \
            DK_SET_FIELD(b, impulse, stored + impulseOut);                                                            \
        }                                                                                                             \
    } while (0)

static inline __attribute__((always_inline)) void DK_FN(centerRodGroup)(const dk_rod_pass *p, dk_center_rod_batch *b,
                                                                   const int warmStart) {
    int32_t ea[DK_LANES], eb[DK_LANES];
    DK_ENTRIES(b, ea, eb);
    DK_VF vAx, vAy, vBx, vBy;
    DK_FN(gatherPairs)(p->velocity, ea, &vAx, &vAy);
    DK_FN(gatherPairs)(p->velocity, eb, &vBx, &vBy);
    DK_VF zero = DK_FN(splat)(0);
    DK_VF biasRate = DK_FN(splat)(p->biasRate), massScale = DK_FN(splat)(p->massScale), impulseScale = DK_FN(splat)(p->impulseScale);
    DK_VF maxBias = DK_FN(splat)(p->maxBias);
    DK_VF ax = DK_FIELD(b, ax), ay = DK_FIELD(b, ay);
    DK_VF impulse;
    DK_ROD_IMPULSE(b, ax * (vBx - vAx) + ay * (vBy - vAy), impulse);
    DK_VF mA = DK_FIELD(b, mA), mB = DK_FIELD(b, mB);
    DK_VF Px = impulse * ax, Py = impulse * ay;
    vAx = vAx - mA * Px;
    vAy = vAy - mA * Py;
    vBx = vBx + mB * Px;
    vBy = vBy + mB * Py;
    DK_FN(scatterPairs)(p->velocity, ea, vAx, vAy);
    DK_FN(scatterPairs)(p->velocity, eb, vBx, vBy);
}

static inline __attribute__((always_inline)) void DK_FN(rodGroup)(const dk_rod_pass *p, dk_rod_batch *b,
                                                             const int warmStart) {
    int32_t ea[DK_LANES], eb[DK_LANES];
    DK_ENTRIES(b, ea, eb);
    DK_VF vAx, vAy, wA, vBx, vBy, wB, unused;
    DK_FN(gather)(p->velocity, ea, &vAx, &vAy, &wA, &unused);
    DK_FN(gather)(p->velocity, eb, &vBx, &vBy, &wB, &unused);
    DK_VF zero = DK_FN(splat)(0);
    DK_VF biasRate = DK_FN(splat)(p->biasRate), massScale = DK_FN(splat)(p->massScale), impulseScale = DK_FN(splat)(p->impulseScale);
    DK_VF maxBias = DK_FN(splat)(p->maxBias);
    DK_VF rAx = DK_FIELD(b, rAx), rAy = DK_FIELD(b, rAy), rBx = DK_FIELD(b, rBx), rBy = DK_FIELD(b, rBy);
    DK_VF ax = DK_FIELD(b, ax), ay = DK_FIELD(b, ay);
    DK_VF impulse;
    // Relative velocity of the anchors along the rod: v + ω × r on each side.
    DK_ROD_IMPULSE(b, ax * ((vBx - wB * rBy) - (vAx - wA * rAy)) + ay * ((vBy + wB * rBx) - (vAy + wA * rAx)), impulse);
    DK_VF mA = DK_FIELD(b, mA), iA = DK_FIELD(b, iA), mB = DK_FIELD(b, mB), iB = DK_FIELD(b, iB);
    DK_VF Px = impulse * ax, Py = impulse * ay;
    DK_APPLY_IMPULSE(vAx, vAy, wA, vBx, vBy, wB, Px, Py, rAx, rAy, rBx, rBy);
    DK_FN(scatter)(p->velocity, ea, vAx, vAy, wA);
    DK_FN(scatter)(p->velocity, eb, vBx, vBy, wB);
}
#undef DK_ROD_IMPULSE

/// The batches of either kind from `from` to `to`, DK_LANES / 4 at a time while that many are left (the geometry sweep, or
/// the pass); returns the first not done.
static intptr_t DK_FN(centerRodRun)(const dk_rod_pass *p, intptr_t from, intptr_t to, const int geometry) {
    intptr_t k = from;
    if (geometry) {
        for (; k + DK_LANES / 4 <= to; k += DK_LANES / 4) DK_FN(centerGeometry)(p, p->center + k);
    } else if (p->warmStart) {
        for (; k + DK_LANES / 4 <= to; k += DK_LANES / 4) DK_FN(centerRodGroup)(p, p->center + k, 1);
    } else {
        for (; k + DK_LANES / 4 <= to; k += DK_LANES / 4) DK_FN(centerRodGroup)(p, p->center + k, 0);
    }
    return k;
}

static intptr_t DK_FN(rodRun)(const dk_rod_pass *p, intptr_t from, intptr_t to, const int geometry) {
    intptr_t k = from;
    if (geometry) {
        for (; k + DK_LANES / 4 <= to; k += DK_LANES / 4) DK_FN(rodGeometry)(p, p->general + k);
    } else if (p->warmStart) {
        for (; k + DK_LANES / 4 <= to; k += DK_LANES / 4) DK_FN(rodGroup)(p, p->general + k, 1);
    } else {
        for (; k + DK_LANES / 4 <= to; k += DK_LANES / 4) DK_FN(rodGroup)(p, p->general + k, 0);
    }
    return k;
}
