#include "src/engine/gpu_pack.h"

#include <string.h>

#include "io/csv/csv_reader.h"

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

/* Column k's first invalid field as the device kept it: its doubled
 * quotes undone, shown as the host shows its own (csv_show_field). Cut
 * short, it is longer than what is shown: a last byte keeps the cut's
 * end from looking like blanks to trim. */
static void show_first_invalid(const gpu_raw_result *d, size_t k,
                               char shown[CSV_SHOWN])
{
    const char *s = d->first_invalid_text + k * GPU_FIELD_BYTES;
    unsigned len = d->first_invalid_len[k] & 0xffff;
    int doubled = (d->first_invalid_len[k] >> 31) & 1;
    size_t have = len < GPU_FIELD_BYTES ? len : GPU_FIELD_BYTES, n = 0;
    char text[GPU_FIELD_BYTES + 1];
    for (size_t i = 0; i < have; i++) {
        text[n++] = s[i];
        i += doubled && s[i] == '"' && i + 1 < have && s[i + 1] == '"';
    }
    if (have < len)
        text[n++] = '.';
    csv_show_field(text, n, shown, CSV_SHOWN);
}

void gpu_pack_result(const gpu_raw_result *d, int ncols, bytes_result *r)
{
    size_t n = (size_t)ncols;
    for (size_t k = 0; k < n; k++)
        if (!r->first_invalid_line[k] && d->first_invalid_line[k])
            show_first_invalid(d, k, r->first_invalid_text[k]);
    memcpy(r->first_invalid_line, d->first_invalid_line,
           n * sizeof *d->first_invalid_line);
    r->rows = d->rows;
    r->lines = d->lines;
    r->consumed = d->consumed;
    r->stopped = d->stopped;
    r->repeats = d->repeats;
    r->repeat_line = d->repeat_line;
    memcpy(r->reason, d->reason, sizeof r->reason);
}

gpu_raw_format gpu_pack_format(const bytes_format *f)
{
    const binary_spec *s = f->spec;
    gpu_raw_format fmt = {.binary = s != NULL,
                          .delim = f->delim,
                          .strict = f->strict,
                          .num = {.decimal = '.'},
                          .record_size = s ? s->record_size : 0,
                          .type = s ? s->type : NULL,
                          .offset = s ? s->offset : NULL,
                          .map = f->map,
                          .nmap = f->nmap,
                          .kinds = f->kinds,
                          .size_hint = f->size_hint,
                          .row_rate = f->row_rate,
                          .repeat = f->repeat,
                          .repeat_len = f->repeat_len,
                          .kmap = f->kmap,
                          .nkmap = f->nkmap,
                          .nkeys = f->nkeys};
    if (f->num)
        fmt.num = *f->num;
    return fmt;
}
