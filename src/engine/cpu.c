#include "cpu.h"

void cpu_reduce_chunk(const chunk *c, uint64_t first_row, col_stats *s,
                      unsigned what)
{
    for (int j = 0; j < c->ncols; j++) {
        col_stats *cs = &s[j];
        stats_add_values(cs, c->col[j], c->has_corr[j] ? c->corr[j] : NULL,
                         c->nrows, first_row, what);
        cs->missing += c->missing[j];
        cs->invalid += c->invalid[j];
        cs->nan += c->nan[j];
        if (!cs->first_invalid_row && c->first_invalid[j])
            cs->first_invalid_row = first_row - 1 + c->first_invalid[j];
    }
}
