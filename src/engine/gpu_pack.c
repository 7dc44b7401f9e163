#include "src/engine/gpu_pack.h"

void gpu_pack_pass(pass_plan *p, gpu_pass_col *cols)
{
    for (int k = 0; k < p->ncols; k++) {
        pass_col *pc = &p->col[k];
        cols[k] = (gpu_pass_col){.sel = pc->sel,
                                 .counts = pc->counts,
                                 .kmin = pc->kmin,
                                 .kmax = pc->kmax,
                                 .cand = pc->cand,
                                 .room = pc->room,
                                 .ncand = &pc->ncand,
                                 .h = pc->h};
    }
}
