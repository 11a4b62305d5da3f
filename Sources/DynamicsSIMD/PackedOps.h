// The packed body state at one width, included at the top of ContactBody.h and RodBody.h once per width (after
// WidthOps.h): lane groups of DK_LANES / 4 consecutive batches, and gathers and scatters of DK_LANES entries' quadruples
// ((vx, vy, ω, 0) or (x, y, cos, sin)). Lanes 4g … 4g + 3 are batch g of the group. The body undefines DK_FIELD and
// DK_SET_FIELD and DK_ENTRIES at its end.

// No explicit casts (see Widths.h): lanes are reached through this union, fields by name.
typedef union {
    DK_VF v;
    dk_vf4 q[DK_LANES / 4];
    float f[DK_LANES];
} DK_FN(lanes);

/// The entries of both sides of the group's lanes.
#define DK_ENTRIES(b, ea, eb)                                                                                         \
    do {                                                                                                              \
        for (int l_ = 0; l_ < DK_LANES; l_++) {                                                                              \
            (ea)[l_] = (b)[l_ / 4].entryA[l_ % 4];                                                                    \
            (eb)[l_] = (b)[l_ / 4].entryB[l_ % 4];                                                                    \
        }                                                                                                             \
    } while (0)

/// A field of the group's DK_LANES / 4 consecutive batches, and its store.
#define DK_FIELD(b, name)                                                                                             \
    ({                                                                                                                \
        DK_FN(lanes) u_;                                                                                                 \
        for (int g_ = 0; g_ < DK_LANES / 4; g_++) __builtin_memcpy(&u_.q[g_], &(b)[g_].name, 16);                            \
        u_.v;                                                                                                         \
    })
#define DK_SET_FIELD(b, name, value)                                                                                  \
    do {                                                                                                              \
        DK_FN(lanes) u_;                                                                                                 \
        u_.v = (value);                                                                                               \
        for (int g_ = 0; g_ < DK_LANES / 4; g_++) __builtin_memcpy(&(b)[g_].name, &u_.q[g_], 16);                            \
    } while (0)

/// The quadruples of the DK_LANES entries as four vectors: all first components, all second, all third, all fourth.
static inline __attribute__((always_inline)) void DK_FN(gather)(const float *base, const int32_t e[DK_LANES], DK_VF *c0, DK_VF *c1,
                                                           DK_VF *c2, DK_VF *c3) {
    DK_FN(lanes) r[4];
    for (int j = 0; j < 4; j++) {
        for (int g = 0; g < DK_LANES / 4; g++) __builtin_memcpy(&r[j].q[g], base + 4 * e[4 * g + j], 16);
    }
    DK_VF t0 = ZIPLO(r[0].v, r[1].v), t1 = ZIPLO(r[2].v, r[3].v), t2 = ZIPHI(r[0].v, r[1].v), t3 = ZIPHI(r[2].v, r[3].v);
    *c0 = LOHALF(t0, t1);
    *c1 = HIHALF(t0, t1);
    *c2 = LOHALF(t2, t3);
    *c3 = HIHALF(t2, t3);
}

/// Writes the DK_LANES entries' velocities (vx, vy, ω, 0), entry by entry in lane order within each batch.
static inline __attribute__((always_inline)) void DK_FN(scatter)(float *base, const int32_t e[DK_LANES], DK_VF vx, DK_VF vy, DK_VF w) {
    DK_VF z = DK_FN(splat)(0);
    DK_VF t0 = ZIPLO(vx, vy), t1 = ZIPLO(w, z), t2 = ZIPHI(vx, vy), t3 = ZIPHI(w, z);
    DK_FN(lanes) out[4];
    out[0].v = LOHALF(t0, t1);
    out[1].v = HIHALF(t0, t1);
    out[2].v = LOHALF(t2, t3);
    out[3].v = HIHALF(t2, t3);
    for (int g = 0; g < DK_LANES / 4; g++) {
        for (int j = 0; j < 4; j++) __builtin_memcpy(base + 4 * e[4 * g + j], &out[j].q[g], 16);
    }
}

/// The first two components of the DK_LANES entries (vx, vy or x, y).
static inline __attribute__((always_inline)) void DK_FN(gatherPairs)(const float *base, const int32_t e[DK_LANES], DK_VF *c0,
                                                                DK_VF *c1) {
    DK_VF c2, c3;
    DK_FN(gather)(base, e, c0, c1, &c2, &c3);
}

/// Writes the first two components of the DK_LANES entries (the linear velocities), leaving the others as they are.
static inline __attribute__((always_inline)) void DK_FN(scatterPairs)(float *base, const int32_t e[DK_LANES], DK_VF x, DK_VF y) {
    DK_FN(lanes) lo, hi;
    lo.v = ZIPLO(x, y);
    hi.v = ZIPHI(x, y);
    for (int g = 0; g < DK_LANES / 4; g++) {
        __builtin_memcpy(base + 4 * e[4 * g], &lo.f[4 * g], 8);
        __builtin_memcpy(base + 4 * e[4 * g + 1], &lo.f[4 * g + 2], 8);
        __builtin_memcpy(base + 4 * e[4 * g + 2], &hi.f[4 * g], 8);
        __builtin_memcpy(base + 4 * e[4 * g + 3], &hi.f[4 * g + 2], 8);
    }
}

#ifndef DK_APPLY_IMPULSE
/// Applies the impulse (Px, Py) at the anchors rA, rB: body A's velocity (vx, vy, ω) loses it and body B's gains
/// it, scaled by the inverse masses and inertias `mA`, `iA`, `mB`, `iB` of the enclosing scope.
#define DK_APPLY_IMPULSE(vAx, vAy, wA, vBx, vBy, wB, Px, Py, rAx, rAy, rBx, rBy)                                    \
    do {                                                                                                              \
        vAx = vAx - mA * (Px);                                                                                        \
        vAy = vAy - mA * (Py);                                                                                        \
        wA = wA - iA * ((rAx) * (Py) - (rAy) * (Px));                                                                 \
        vBx = vBx + mB * (Px);                                                                                        \
        vBy = vBy + mB * (Py);                                                                                        \
        wB = wB + iB * ((rBx) * (Py) - (rBy) * (Px));                                                                 \
    } while (0)
#endif
