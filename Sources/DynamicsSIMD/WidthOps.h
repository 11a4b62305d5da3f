// Lane-wise helpers at one width, included at the top of each kernel body (FreeMotionBody.h, ContactBody.h), once
// per width: W, VF, VI and FN as the body expects them (Widths.h).

static inline __attribute__((always_inline)) VF FN(splat)(float v) {
    VF r = v;
    return r;
}

static inline __attribute__((always_inline)) VI FN(bits)(VF v) {
    VI r;
    __builtin_memcpy(&r, &v, sizeof r);
    return r;
}

static inline __attribute__((always_inline)) VF FN(floats)(VI v) {
    VF r;
    __builtin_memcpy(&r, &v, sizeof r);
    return r;
}

/// m ? a : b, lane by lane, for a mask m of −1 and 0 lanes.
static inline __attribute__((always_inline)) VF FN(select)(VI m, VF a, VF b) {
    return FN(floats)((m & FN(bits)(a)) | (~m & FN(bits)(b)));
}

/// minps and maxps exactly (the second operand when either is NaN).
static inline __attribute__((always_inline)) VF FN(min)(VF a, VF b) { return a < b ? a : b; }
static inline __attribute__((always_inline)) VF FN(max)(VF a, VF b) { return a > b ? a : b; }
