/* A column's statistics and histogram as a state's bytes (state.h),
 * for the columns (state.c) and the groups (state_groups.c). A reader
 * marks the input bad at a value no writer gives. */
#ifndef COLSTAT_SRC_DIST_STATE_FIELDS_H
#define COLSTAT_SRC_DIST_STATE_FIELDS_H

#include "src/dist/state_codec.h"
#include "src/stats/profile.h"
#include "src/stats/stats.h"

void state_put_stats(sc_out *o, const col_stats *s);
void state_put_hist(sc_out *o, const hist *h);
void state_get_stats(sc_in *i, col_stats *s);
void state_get_hist(sc_in *i, hist *h);

/* A column of kind (io/num/parse_kind.h) KIND_DATETIME_Z: its extremes'
 * UTC offsets (stats.h); nothing for any other kind. */
void state_put_offsets(sc_out *o, unsigned char kind, const col_stats *s);
void state_get_offsets(sc_in *i, unsigned char kind, col_stats *s);

/* A column's profile (profile.h) after its histogram, in a text column
 * (is_text) or where the key asks for the values' counts (counted), else
 * nothing: so a state of number columns without them has the bytes it
 * had before profiles. A text column: its count, missing, shortest and
 * longest length (varints). counted: a varint n, then n values, each once,
 * in the order first seen, each with its count: a text value is its
 * length and bytes; a number (d, r) a varint t: t > 0 the integer
 * zigzag(t - 1) (|d| < 2^53, r 0: integers, dates' microseconds), t = 0
 * the double's 8 bytes and r zigzagged. p NULL: an empty profile. */
void state_put_prof(sc_out *o, const col_prof *p, int is_text, int counted);
/* Into p, profile_init'ed by it (with values when counted). */
void state_get_prof(sc_in *i, col_prof *p, int is_text, int counted);

#endif
