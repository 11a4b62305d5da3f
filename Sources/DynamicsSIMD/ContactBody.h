// The wide contact pass at one width, included once per width by Solvers.c (after WidthOps.h and PackedOps.h),
// which defines before it:
//   DK_LANES                       the lane count (4, 8 or 16): DK_LANES / 4 batches of one color side by side
//   DK_VF, DK_VI                   float and int vectors of DK_LANES lanes
//   ZIPLO, ZIPHI, LOHALF, HIHALF   within each group of four lanes (each 128-bit part): unpcklps, unpckhps, movlhps,
//                                  movhlps of (a, b), so that four such vectors transpose as four 4×4 blocks
//   DK_FN(name)                    name with the width appended
// (SolverWidthEnd.h undefines them after the width). Lanes 4g … 4g + 3 are batch g of the group. Every expression
// keeps the association and operand order of the Swift reference it replaced (WideContacts.swift).

/// The warm start or one solve pass of DK_LANES / 4 batches of one color.
static inline __attribute__((always_inline)) void DK_FN(contactGroup)(const dk_contact_pass *p, dk_contact_batch *b,
                                                                 const int warmStart, const int useBias) {
    int32_t ea[DK_LANES], eb[DK_LANES];
    DK_ENTRIES(b, ea, eb);
    DK_VF vAx, vAy, wA, vBx, vBy, wB, unused;
    DK_FN(gather)(p->velocity, ea, &vAx, &vAy, &wA, &unused);
    DK_FN(gather)(p->velocity, eb, &vBx, &vBy, &wB, &unused);
    DK_VF nx = DK_FIELD(b, nx), ny = DK_FIELD(b, ny);
    DK_VF mA = DK_FIELD(b, mA), iA = DK_FIELD(b, iA), mB = DK_FIELD(b, mB), iB = DK_FIELD(b, iB);
    DK_VF r0Ax = DK_FIELD(b, p0.rAx), r0Ay = DK_FIELD(b, p0.rAy), r0Bx = DK_FIELD(b, p0.rBx), r0By = DK_FIELD(b, p0.rBy);
    DK_VF r1Ax = DK_FIELD(b, p1.rAx), r1Ay = DK_FIELD(b, p1.rAy), r1Bx = DK_FIELD(b, p1.rBx), r1By = DK_FIELD(b, p1.rBy);
    if (warmStart) {
        // P = λn·n + λt·t at each point, t = (ny, −nx).
        DK_VF n0 = DK_FIELD(b, p0.normalImpulse), t0 = DK_FIELD(b, p0.tangentImpulse);
        DK_VF n1 = DK_FIELD(b, p1.normalImpulse), t1 = DK_FIELD(b, p1.tangentImpulse);
        DK_VF P0x = n0 * nx + t0 * ny, P0y = n0 * ny - t0 * nx;
        DK_VF P1x = n1 * nx + t1 * ny, P1y = n1 * ny - t1 * nx;
        wA = wA - iA * ((r0Ax * P0y - r0Ay * P0x) + (r1Ax * P1y - r1Ay * P1x));
        vAx = vAx - mA * (P0x + P1x);
        vAy = vAy - mA * (P0y + P1y);
        wB = wB + iB * ((r0Bx * P0y - r0By * P0x) + (r1Bx * P1y - r1By * P1x));
        vBx = vBx + mB * (P0x + P1x);
        vBy = vBy + mB * (P0y + P1y);
        DK_FN(scatter)(p->velocity, ea, vAx, vAy, wA);
        DK_FN(scatter)(p->velocity, eb, vBx, vBy, wB);
        return;
    }
    DK_VF zero = DK_FN(splat)(0), one = DK_FN(splat)(1);
    DK_VF inverseH = DK_FN(splat)(p->invH), maxPush = DK_FN(splat)(p->maxPush);
    DK_VF pAx, pAy, cA, sA, pBx, pBy, cB, sB;
    DK_FN(gather)(p->pose, ea, &pAx, &pAy, &cA, &sA);
    DK_FN(gather)(p->pose, eb, &pBx, &pBy, &cB, &sB);
    DK_VF dx = pBx - pAx, dy = pBy - pAy;
    // The current separation of a point, following both bodies' rotation since the narrowphase.
#define DK_SEPARATION(pt)                                                                                             \
    ({                                                                                                                \
        DK_VF lAx = DK_FIELD(b, pt.localAx), lAy = DK_FIELD(b, pt.localAy);                                              \
        DK_VF lBx = DK_FIELD(b, pt.localBx), lBy = DK_FIELD(b, pt.localBy);                                              \
        DK_VF rAx = cA * lAx - sA * lAy, rAy = sA * lAx + cA * lAy;                                                      \
        DK_VF rBx = cB * lBx - sB * lBy, rBy = sB * lBx + cB * lBy;                                                      \
        ((dx + rBx) - rAx) * nx + ((dy + rBy) - rAy) * ny + DK_FIELD(b, pt.adjustedSeparation);                       \
    })
    DK_VF s0 = DK_SEPARATION(p0), s1 = DK_SEPARATION(p1);
#undef DK_SEPARATION
    // The static stiffness where either side has no mass (padding lanes too, whose points apply nothing).
    DK_VI isStatic = (mA == zero) | (mB == zero);
    DK_VF biasRate = DK_FN(select)(isStatic, DK_FN(splat)(p->staticBiasRate), DK_FN(splat)(p->biasRate));
    DK_VF softMass = DK_FN(select)(isStatic, DK_FN(splat)(p->staticMassScale), DK_FN(splat)(p->massScale));
    DK_VF softImpulse = DK_FN(select)(isStatic, DK_FN(splat)(p->staticImpulseScale), DK_FN(splat)(p->impulseScale));
    // Per point: speculative (s > 0) closes the gap this substep; touching is soft when biased, rigid when relaxing.
#define DK_COEFFICIENTS(s, bias, massScale, impulseScale)                                                             \
    do {                                                                                                              \
        DK_VI speculative = zero < (s);                                                                                  \
        if (useBias) {                                                                                                \
            DK_VF push = DK_FN(max)(biasRate * (s), zero - maxPush);                                                       \
            bias = DK_FN(select)(speculative, (s) * inverseH, push);                                                    \
            massScale = DK_FN(select)(speculative, one, softMass);                                                      \
            impulseScale = DK_FN(select)(speculative, zero, softImpulse);                                               \
        } else {                                                                                                      \
            bias = DK_FN(select)(speculative, (s) * inverseH, zero);                                                    \
            massScale = one;                                                                                          \
            impulseScale = zero;                                                                                      \
        }                                                                                                             \
    } while (0)
    DK_VF b0, ms0, is0, b1, ms1, is1;
    DK_COEFFICIENTS(s0, b0, ms0, is0);
    DK_COEFFICIENTS(s1, b1, ms1, is1);
    DK_VF a0 = DK_FIELD(b, p0.normalImpulse), a1 = DK_FIELD(b, p1.normalImpulse);
    // Normal velocity of a point: dot((vB + ωB × rB) − (vA + ωA × rA), n).
#define DK_NORMAL_VELOCITY(vAx, vAy, wA, vBx, vBy, wB, rAx, rAy, rBx, rBy)                                            \
    (((vBx) - (wB) * (rBy)) - ((vAx) - (wA) * (rAy))) * nx + (((vBy) + (wB) * (rBx)) - ((vAy) + (wA) * (rAx))) * ny
    // The block: both points at once, where there are two in the same regime and it pushes at both.
    DK_VF vn0 = DK_NORMAL_VELOCITY(vAx, vAy, wA, vBx, vBy, wB, r0Ax, r0Ay, r0Bx, r0By) + b0;
    DK_VF vn1 = DK_NORMAL_VELOCITY(vAx, vAy, wA, vBx, vBy, wB, r1Ax, r1Ay, r1Bx, r1By) + b1;
    DK_VF invDet = DK_FIELD(b, invDet);
    DK_VF k11 = DK_FIELD(b, k11), k12 = DK_FIELD(b, k12), k22 = DK_FIELD(b, k22);
    DK_VF blockN0 = a0 - ms0 * invDet * (k22 * vn0 - k12 * vn1) - is0 * a0;
    DK_VF blockN1 = a1 - ms0 * invDet * (k11 * vn1 - k12 * vn0) - is0 * a1;
    DK_VI sameRegime = ~((zero < s0) ^ (zero < s1));
    DK_VI block = (invDet != zero) & sameRegime & (zero <= blockN0) & (zero <= blockN1);
    // Or neither point pushes, when without their impulses both would separate anyway (the scalar path's
    // `blockNormal`): a flat landing that lifts off stays flat.
    DK_VF free0 = vn0 - (k11 * a0 + k12 * a1), free1 = vn1 - (k12 * a0 + k22 * a1);
    DK_VI release = (invDet != zero) & ~block & (zero <= free0) & (zero <= free1);
    blockN0 = DK_FN(select)(release, zero, blockN0);
    blockN1 = DK_FN(select)(release, zero, blockN1);
    block = block | release;
    // The block's increments, applied to (vAx, vAy, wA), (vBx, vBy, wB) into blockAx … blockB.
#define DK_BLOCK_APPLY()                                                                                              \
    DK_VF x0 = blockN0 - a0, x1 = blockN1 - a1;                                                                       \
    DK_VF P0x = x0 * nx, P0y = x0 * ny, P1x = x1 * nx, P1y = x1 * ny;                                                 \
    DK_VF blockAx = vAx - mA * (P0x + P1x), blockAy = vAy - mA * (P0y + P1y);                                          \
    DK_VF blockA = wA - iA * ((r0Ax * P0y - r0Ay * P0x) + (r1Ax * P1y - r1Ay * P1x));                                  \
    DK_VF blockBx = vBx + mB * (P0x + P1x), blockBy = vBy + mB * (P0y + P1y);                                          \
    DK_VF blockB = wB + iB * ((r0Bx * P0y - r0By * P0x) + (r1Bx * P1y - r1By * P1x))
    DK_VF n0, n1, applied0, applied1;
    if (__builtin_reduce_and(block) != 0) {
        // Every lane takes the block (a standing stack's faces, mostly): the point-by-point results would all be
        // dropped, so they are not computed.
        DK_BLOCK_APPLY();
        vAx = blockAx; vAy = blockAy; wA = blockA;
        vBx = blockBx; vBy = blockBy; wB = blockB;
        n0 = blockN0; n1 = blockN1;
        applied0 = x0; applied1 = x1;
    } else {
        // Point by point, from the same start.
        DK_VF qAx = vAx, qAy = vAy, qA = wA, qBx = vBx, qBy = vBy, qB = wB;
#define DK_SINGLE(pt, s, bias, massScale, impulseScale, rAx, rAy, rBx, rBy, impulseOut, totalOut)                     \
    do {                                                                                                              \
        DK_VF vn = DK_NORMAL_VELOCITY(qAx, qAy, qA, qBx, qBy, qB, rAx, rAy, rBx, rBy);                                   \
        DK_VF old = DK_FIELD(b, pt.normalImpulse);                                                                       \
        DK_VF raw = zero - DK_FIELD(b, pt.normalMass) * massScale * (vn + bias) - impulseScale * old;                    \
        DK_VF total = DK_FN(max)(old + raw, zero);                                                                         \
        DK_VF impulse = total - old;                                                                                     \
        DK_VF Px = impulse * nx, Py = impulse * ny;                                                                      \
        DK_APPLY_IMPULSE(qAx, qAy, qA, qBx, qBy, qB, Px, Py, rAx, rAy, rBx, rBy);                                     \
        impulseOut = impulse;                                                                                         \
        totalOut = total;                                                                                             \
    } while (0)
        DK_VF single0Impulse, single0Total, single1Impulse, single1Total;
        DK_SINGLE(p0, s0, b0, ms0, is0, r0Ax, r0Ay, r0Bx, r0By, single0Impulse, single0Total);
        DK_SINGLE(p1, s1, b1, ms1, is1, r1Ax, r1Ay, r1Bx, r1By, single1Impulse, single1Total);
#undef DK_SINGLE
        // Apply the block's increments and pick per lane.
        DK_BLOCK_APPLY();
        vAx = DK_FN(select)(block, blockAx, qAx);
        vAy = DK_FN(select)(block, blockAy, qAy);
        wA = DK_FN(select)(block, blockA, qA);
        vBx = DK_FN(select)(block, blockBx, qBx);
        vBy = DK_FN(select)(block, blockBy, qBy);
        wB = DK_FN(select)(block, blockB, qB);
        n0 = DK_FN(select)(block, blockN0, single0Total);
        n1 = DK_FN(select)(block, blockN1, single1Total);
        applied0 = DK_FN(select)(block, x0, single0Impulse);
        applied1 = DK_FN(select)(block, x1, single1Impulse);
    }
#undef DK_BLOCK_APPLY
    DK_SET_FIELD(b, p0.normalImpulse, n0);
    DK_SET_FIELD(b, p1.normalImpulse, n1);
    DK_SET_FIELD(b, p0.maxNormalImpulse, DK_FN(max)(DK_FIELD(b, p0.maxNormalImpulse), applied0));
    DK_SET_FIELD(b, p1.maxNormalImpulse, DK_FN(max)(DK_FIELD(b, p1.maxNormalImpulse), applied1));
    // Friction, point by point, bounded by the new normal impulses; t = (ny, −nx).
    DK_VF friction = DK_FIELD(b, friction);
#define DK_RUB(pt, normal, rAx, rAy, rBx, rBy)                                                                        \
    do {                                                                                                              \
        DK_VF vt = ((vBx - wB * (rBy)) - (vAx - wA * (rAy))) * ny - ((vBy + wB * (rBx)) - (vAy + wA * (rAx))) * nx;      \
        DK_VF old = DK_FIELD(b, pt.tangentImpulse);                                                                      \
        DK_VF limit = friction * (normal);                                                                               \
        DK_VF total = DK_FN(min)(DK_FN(max)(old - DK_FIELD(b, pt.tangentMass) * vt, zero - limit), limit);                   \
        DK_SET_FIELD(b, pt.tangentImpulse, total);                                                                    \
        DK_VF impulse = total - old;                                                                                     \
        DK_VF Px = impulse * ny, Py = zero - impulse * nx;                                                               \
        DK_APPLY_IMPULSE(vAx, vAy, wA, vBx, vBy, wB, Px, Py, rAx, rAy, rBx, rBy);                                     \
    } while (0)
    DK_RUB(p0, n0, r0Ax, r0Ay, r0Bx, r0By);
    DK_RUB(p1, n1, r1Ax, r1Ay, r1Bx, r1By);
#undef DK_RUB
#undef DK_NORMAL_VELOCITY
#undef DK_COEFFICIENTS
    DK_FN(scatter)(p->velocity, ea, vAx, vAy, wA);
    DK_FN(scatter)(p->velocity, eb, vBx, vBy, wB);
}

/// The color's batches from `from` to `to`, DK_LANES / 4 at a time while that many are left; returns the first not done.
static inline __attribute__((always_inline)) intptr_t DK_FN(contactRun)(const dk_contact_pass *p, intptr_t from, intptr_t to) {
    intptr_t k = from;
    if (p->warmStart) {
        for (; k + DK_LANES / 4 <= to; k += DK_LANES / 4) DK_FN(contactGroup)(p, p->batches + k, 1, 0);
    } else if (p->useBias) {
        for (; k + DK_LANES / 4 <= to; k += DK_LANES / 4) DK_FN(contactGroup)(p, p->batches + k, 0, 1);
    } else {
        for (; k + DK_LANES / 4 <= to; k += DK_LANES / 4) DK_FN(contactGroup)(p, p->batches + k, 0, 0);
    }
    return k;
}

/// `contactRun` on a local copy of the pass: the stores through the batch and state pointers cannot change it, so
/// its pointers and constants stay in registers.
static intptr_t DK_FN(contactRange)(const dk_contact_pass *pass, intptr_t from, intptr_t to) {
    const dk_contact_pass p = *pass;
    return DK_FN(contactRun)(&p, from, to);
}
