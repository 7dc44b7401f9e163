/* A column's statistics and histogram as a state's bytes (state.h),
 * for the columns (state.c) and the groups (state_groups.c). A reader
 * marks the input bad at a value no writer gives. */
#ifndef COLSTAT_SRC_DIST_STATE_FIELDS_H
#define COLSTAT_SRC_DIST_STATE_FIELDS_H

#include "src/dist/state_codec.h"
#include "src/stats/stats.h"

void state_put_stats(sc_out *o, const col_stats *s);
void state_put_hist(sc_out *o, const hist *h);
void state_get_stats(sc_in *i, col_stats *s);
void state_get_hist(sc_in *i, hist *h);

/* A column of kind (io/num/parse_kind.h) KIND_DATETIME_Z: its extremes'
 * UTC offsets (stats.h); nothing for any other kind. */
void state_put_offsets(sc_out *o, unsigned char kind, const col_stats *s);
void state_get_offsets(sc_in *i, unsigned char kind, col_stats *s);

#endif
