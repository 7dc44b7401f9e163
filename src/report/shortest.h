/* The shortest decimal in a double's rounding interval (the decimals that
 * strtod reads back as it), the closest to it among those, ties to an even
 * last digit: Ryu (U. Adams, "Ryu: fast float-to-string conversion",
 * PLDI 2018). */
#ifndef COLSTAT_REPORT_SHORTEST_H
#define COLSTAT_REPORT_SHORTEST_H

#include <stdint.h>

/* For finite nonzero v: |v| reads back from digits * 10^exp10, digits
 * without trailing zeros (at most 17 of them). */
void shortest_decimal(double v, uint64_t *digits, int *exp10);

#endif
