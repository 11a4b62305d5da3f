// What the C kernels (FreeMotion.c, Solvers.c) share: the vector types of each width and the naming of the
// per-width copies. Included once per .c file, after its `#pragma clang attribute push(nodebug)`.
//
// Why no debug information: valgrind 3.19 (Debian 12), which the performance gate runs, cannot read the DWARF 5 that
// Clang emits for C and gives up on the whole binary. So every function of the kernels' files is `nodebug`, and
// they contain no explicit cast: Clang emits debug information for the type of every cast, even in `nodebug`
// functions. Bit casts go through memcpy or unions, which compile to nothing.
#ifndef DYNAMICS_WIDTHS_H
#define DYNAMICS_WIDTHS_H

// Every width must round alike: never fuse a multiply and an add.
#pragma clang fp contract(off)

#define DK_CAT_(a, b) a##b
#define DK_CAT(a, b) DK_CAT_(a, b)
/// `name` with the lane count appended: each width's copy of a kernel has its own names.
#define DK_FN(name) DK_CAT(name, DK_LANES)

typedef float dk_vf4 __attribute__((ext_vector_type(4)));
typedef int dk_vi4 __attribute__((ext_vector_type(4)));
#if defined(__x86_64__)
typedef float dk_vf8 __attribute__((ext_vector_type(8)));
typedef int dk_vi8 __attribute__((ext_vector_type(8)));
typedef float dk_vf16 __attribute__((ext_vector_type(16)));
typedef int dk_vi16 __attribute__((ext_vector_type(16)));
#endif

#endif
