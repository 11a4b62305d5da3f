// Lane-wise helpers at one width, included at the top of each kernel body (FreeMotionBody.h, ContactBody.h), once
// per width: DK_LANES, DK_VF, DK_VI and DK_FN as the body expects them (Widths.h).

static inline __attribute__((always_inline)) DK_VF DK_FN(splat)(float v) {
    DK_VF r = v;
    return r;
}

static inline __attribute__((always_inline)) DK_VI DK_FN(bits)(DK_VF v) {
    DK_VI r;
    __builtin_memcpy(&r, &v, sizeof r);
    return r;
}

static inline __attribute__((always_inline)) DK_VF DK_FN(floats)(DK_VI v) {
    DK_VF r;
    __builtin_memcpy(&r, &v, sizeof r);
    return r;
}

/// m ? a : b, lane by lane, for a mask m of −1 and 0 lanes.
static inline __attribute__((always_inline)) DK_VF DK_FN(select)(DK_VI m, DK_VF a, DK_VF b) {
    return DK_FN(floats)((m & DK_FN(bits)(a)) | (~m & DK_FN(bits)(b)));
}

/// minps and maxps exactly (the second operand when either is NaN).
static inline __attribute__((always_inline)) DK_VF DK_FN(min)(DK_VF a, DK_VF b) { return a < b ? a : b; }
static inline __attribute__((always_inline)) DK_VF DK_FN(max)(DK_VF a, DK_VF b) { return a > b ? a : b; }
