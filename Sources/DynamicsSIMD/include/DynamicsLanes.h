// The lane count of the engine's C kernels (the free-motion pass; the contact pass, which uses at most 8), chosen at
// run time.
#ifndef DYNAMICS_LANES_H
#define DYNAMICS_LANES_H

/// 16 where the processor and system support AVX-512 (F and DQ), 8 with AVX2, else 4 (the portable kernels:
/// SSE2 on x86-64, NEON on arm64); never more than the limit below. Every width gives bit-identical results.
int dk_vector_width(void);

/// Limits the kernels to at most `lanes` lanes (4, 8 or 16; 0 for no limit), process-wide: for measuring and
/// testing the narrower kernels.
void dk_limit_vector_width(int lanes);

#endif
