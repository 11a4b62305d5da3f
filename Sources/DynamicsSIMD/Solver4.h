// The parameters of the solver kernels' 4-lane build (ContactBody.h, RodBody.h): the lane count, its vector types,
// the shuffles, and the width's operations. Included by each file that instantiates a 4-lane kernel; the kernel
// headers follow, then SolverWidthEnd.h.
#define DK_LANES 4
#define DK_VF dk_vf4
#define DK_VI dk_vi4
#define ZIPLO(a, b) __builtin_shufflevector(a, b, 0, 4, 1, 5)
#define ZIPHI(a, b) __builtin_shufflevector(a, b, 2, 6, 3, 7)
#define LOHALF(a, b) __builtin_shufflevector(a, b, 0, 1, 4, 5)
#define HIHALF(a, b) __builtin_shufflevector(a, b, 2, 3, 6, 7)
#include "WidthOps.h"
#include "PackedOps.h"
