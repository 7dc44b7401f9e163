/* --group-by's report: each format's document over the groups, the
 * columns of each written by the format's own column writer. */
#include <string.h>

#include "writers.h"

static void json_head(tbuf *b, uint64_t rows, const char *const *names,
                      int nkeys, const report_style *st)
{
    tbuf_printf(
        b, "{\n  \"schema_version\": %d,\n  \"rows\": ", REPORT_SCHEMA_VERSION);
    report_json_count(b, rows, st->bigint_string);
    tbuf_puts(b, ",\n  \"group_by\": [");
    for (int i = 0; i < nkeys; i++) {
        tbuf_puts(b, i ? ", " : "");
        report_json_text(b, names[i], strlen(names[i]));
    }
    tbuf_puts(b, "],\n  \"groups\": [");
}

static int json_range(tbuf *b, unsigned what, int nkeys,
                      const report_groups *gs, size_t first, size_t last,
                      int ncols, const report_style *st)
{
    report_group g;
    for (size_t i = first; i < last; i++) {
        if (gs->get(gs->ctx, i, &g))
            return -1;
        tbuf_puts(b, i ? ",\n  {\"key\": [" : "\n  {\"key\": [");
        for (int j = 0; j < nkeys; j++) {
            tbuf_puts(b, j ? ", " : "");
            if (g.key[j])
                report_json_text(b, g.key[j], g.key_len[j]);
            else
                tbuf_puts(b, "null");
        }
        tbuf_puts(b, "], \"rows\": ");
        report_json_count(b, g.rows, st->bigint_string);
        tbuf_puts(b, ", \"columns\": [");
        for (int k = 0; k < ncols; k++) {
            tbuf_puts(b, k ? ",\n" : "\n");
            report_json_column(b, what, &g.cols[k], st);
        }
        tbuf_puts(b, ncols ? "\n  ]}" : "]}");
    }
    return 0;
}

/* "status=200 host=(missing) (870 rows)": the names and keys as the
 * table shows texts (a line break in a key would split the heading). */
static void table_heading(FILE *f, const char *const *names, int nkeys,
                          const report_group *g)
{
    for (int j = 0; j < nkeys; j++) {
        if (j)
            putc(' ', f);
        report_show_text(f, names[j], strlen(names[j]));
        putc('=', f);
        if (g->key[j])
            report_show_text(f, g->key[j], g->key_len[j]);
        else
            fputs("(missing)", f);
    }
    fprintf(f, " (%llu row%s)\n", (unsigned long long)g->rows,
            g->rows == 1 ? "" : "s");
}

static int table_range(FILE *f, unsigned what, const char *const *names,
                       int nkeys, const report_groups *gs, size_t first,
                       size_t last, int ncols, const report_style *st)
{
    report_group g;
    for (size_t i = first; i < last; i++) {
        if (gs->get(gs->ctx, i, &g))
            return -1;
        if (i)
            putc('\n', f);
        table_heading(f, names, nkeys, &g);
        if (report_table(f, what, g.cols, ncols, st))
            return -1;
    }
    return 0;
}

/* The style the groups are written in: a table 80 columns wide unless
 * told. */
static report_style styled(const report_style *st)
{
    report_style s = *st;
    s.width = s.width > 0 ? s.width : 80;
    return s;
}

/* A printing writer's text appended to b through a stream on it. */
static int printed_end(FILE *f, tbuf *b, int bad)
{
    if (fclose(f) || b->bad)
        bad = -1;
    return bad ? -1 : 0;
}

int report_groups_head(tbuf *b, out_format fmt, unsigned what, uint64_t rows,
                       const char *const *key_names, int nkeys,
                       const report_groups *gs, int ncols,
                       const report_style *st)
{
    report_style s = styled(st);
    if (fmt == FMT_JSON) {
        json_head(b, rows, key_names, nkeys, &s);
        return b->bad ? -1 : 0;
    }
    if (fmt != FMT_TSV && fmt != FMT_CSV)
        return 0;
    FILE *f = tbuf_file(b);
    if (!f)
        return -1;
    int bad = report_delim_groups_head(f, fmt == FMT_TSV ? '\t' : ',', what,
                                       key_names, nkeys, gs, ncols, &s);
    return printed_end(f, b, bad);
}

int report_groups_range(tbuf *b, out_format fmt, unsigned what,
                        const char *const *key_names, int nkeys,
                        const report_groups *gs, size_t first, size_t last,
                        int ncols, const report_style *st)
{
    report_style s = styled(st);
    if (fmt == FMT_JSON) {
        int bad = json_range(b, what, nkeys, gs, first, last, ncols, &s);
        return bad || b->bad ? -1 : 0;
    }
    FILE *f = tbuf_file(b);
    if (!f)
        return -1;
    int bad;
    if (fmt == FMT_TSV || fmt == FMT_CSV)
        bad = report_delim_groups_range(f, fmt == FMT_TSV ? '\t' : ',', what,
                                        nkeys, gs, first, last, ncols, &s);
    else
        bad =
            table_range(f, what, key_names, nkeys, gs, first, last, ncols, &s);
    return printed_end(f, b, bad);
}

void report_groups_tail(tbuf *b, out_format fmt, const report_groups *gs)
{
    if (fmt == FMT_JSON)
        tbuf_puts(b, gs->n ? "\n  ]\n}\n" : "]\n}\n");
}

int report_write_groups(tbuf *b, out_format fmt, unsigned what, uint64_t rows,
                        const char *const *key_names, int nkeys,
                        const report_groups *gs, int ncols,
                        const report_style *st)
{
    int bad = report_groups_head(b, fmt, what, rows, key_names, nkeys, gs,
                                 ncols, st) ||
              report_groups_range(b, fmt, what, key_names, nkeys, gs, 0, gs->n,
                                  ncols, st);
    if (!bad)
        report_groups_tail(b, fmt, gs);
    return bad || b->bad ? -1 : 0;
}
