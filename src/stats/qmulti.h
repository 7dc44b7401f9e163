/* The order statistics of values held in memory (a group's, groups.c):
 * x[0, n) rearranged so that for each rank r[i] (0-based, r ascending,
 * each below n) x[r[i]] is the value of that rank, the values before it
 * no greater and those after it no less, in qsel_key.h's order of d,
 * ties by r. Expected linear time: one quickselect for many ranks
 * (C. A. R. Hoare, "Algorithm 65: Find", CACM 4(7), 1961), three-way
 * partitions around a median of three (J. L. Bentley and M. D. McIlroy,
 * "Engineering a sort function", SP&E 23(11), 1993), and a sort of what
 * is left past 2 log2(n) levels (D. R. Musser, "Introspective sorting
 * and selection algorithms", SP&E 27(8), 1997): never quadratic. */
#ifndef COLSTAT_SRC_STATS_QMULTI_H
#define COLSTAT_SRC_STATS_QMULTI_H

#include <stddef.h>

#include "qsel_key.h"

void qmulti_select(qnum *x, size_t n, const size_t *r, size_t nr);

/* -1, 0, 1 as a is below, equal to or above b in that order. */
int qmulti_cmp(const qnum *a, const qnum *b);

#endif
