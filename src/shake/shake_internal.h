/* Shared between the SHAKE driver and its C reference. */
#ifndef SCL_SHAKE_INTERNAL_H
#define SCL_SHAKE_INTERNAL_H

#include "streamcl/shake.h"

/* Constraint c of a kind joins cluster slots pair[c][0] and pair[c][1];
 * nc constraints over na atoms. */
void shake_constraints(int kind, int pair[3][2], int *nc, int *na);

#endif
