/* --group-by's quantiles and histograms: each group's columns' from the
 * values its table kept (or the quantiles the device selected,
 * group_table.q), the groups shared among threads. */
#ifndef COLSTAT_SRC_ENGINE_GROUP_CELLS_H
#define COLSTAT_SRC_ENGINE_GROUP_CELLS_H

#include "src/engine/groups.h"

/* gs->q and gs->h (made for every cell of gs->table) filled. -1: no
 * memory. */
int group_cells_make(const groups_params *p, engine_groups *gs);

#endif
