// Ends one width of Solvers.c: undefines what it defined for ContactBody.h and RodBody.h and what PackedOps.h
// defined.
#undef DK_FIELD
#undef DK_SET_FIELD
#undef DK_ENTRIES
#undef DK_LANES
#undef DK_VF
#undef DK_VI
#undef ZIPLO
#undef ZIPHI
#undef LOHALF
#undef HIHALF
