/* The groups of a state of -g (state.h).
 *
 * After the columns: the key columns' count and names, the groups' count,
 * then per group its key (a length, then the bytes as the engine encodes
 * them: per key column 0 for the missing key, or 1, a 4-byte length and
 * the text), its rows, and per column (the state's columns, in order) its
 * statistics and histogram as a column's, and where the column is text
 * or the key asks for the values' counts, its profile as a column's
 * (the columns' own profiles are then empty). Groups are in the order of the
 * writer's table; the reader's order decides nothing (the answer's order
 * is made from the keys, state_groups_arrange). */
#ifndef COLSTAT_SRC_DIST_STATE_GROUPS_H
#define COLSTAT_SRC_DIST_STATE_GROUPS_H

#include "src/dist/state.h"
#include "src/dist/state_codec.h"
#include "src/dist/state_fields.h"

/* r's groups after its columns. */
void state_put_groups(sc_out *o, const engine_result *r, unsigned what);

/* The groups after r's columns into r->groups, bounded by the bytes
 * left; -1 with i bad (why set where known), or out of memory. */
int state_get_groups(sc_in *i, const state_info *info, engine_result *r);

/* dst's groups += src's, src's rows after dst's (before dst->rows grows). */
int state_merge_groups(engine_result *dst, const engine_result *src,
                       cs_error *e);

#endif
