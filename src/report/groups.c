/* --group-by's report: each format's document over the groups, the
 * columns of each written by the format's own column writer. */
#include <string.h>

#include "writers.h"

static void json_head(FILE *f, uint64_t rows, const char *const *names,
                      int nkeys, const report_style *st)
{
    fprintf(
        f, "{\n  \"schema_version\": %d,\n  \"rows\": ", REPORT_SCHEMA_VERSION);
    report_json_count(f, rows, st->bigint_string);
    fputs(",\n  \"group_by\": [", f);
    for (int i = 0; i < nkeys; i++) {
        fputs(i ? ", " : "", f);
        report_json_text(f, names[i], strlen(names[i]));
    }
    fputs("],\n  \"groups\": [", f);
}

static int json_range(FILE *f, unsigned what, int nkeys,
                      const report_groups *gs, size_t first, size_t last,
                      int ncols, const report_style *st)
{
    report_group g;
    for (size_t i = first; i < last; i++) {
        if (gs->get(gs->ctx, i, &g))
            return -1;
        fputs(i ? ",\n  {\"key\": [" : "\n  {\"key\": [", f);
        for (int j = 0; j < nkeys; j++) {
            fputs(j ? ", " : "", f);
            if (g.key[j])
                report_json_text(f, g.key[j], g.key_len[j]);
            else
                fputs("null", f);
        }
        fputs("], \"rows\": ", f);
        report_json_count(f, g.rows, st->bigint_string);
        fputs(", \"columns\": [", f);
        for (int k = 0; k < ncols; k++) {
            fputs(k ? ",\n" : "\n", f);
            report_json_column(f, what, &g.cols[k], st);
        }
        fputs(ncols ? "\n  ]}" : "]}", f);
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

int report_groups_head(FILE *f, out_format fmt, unsigned what, uint64_t rows,
                       const char *const *key_names, int nkeys,
                       const report_groups *gs, int ncols,
                       const report_style *st)
{
    report_style s = styled(st);
    if (fmt == FMT_JSON)
        json_head(f, rows, key_names, nkeys, &s);
    else if (fmt == FMT_TSV || fmt == FMT_CSV)
        return report_delim_groups_head(f, fmt == FMT_TSV ? '\t' : ',', what,
                                        key_names, nkeys, gs, ncols, &s);
    return 0;
}

int report_groups_range(FILE *f, out_format fmt, unsigned what,
                        const char *const *key_names, int nkeys,
                        const report_groups *gs, size_t first, size_t last,
                        int ncols, const report_style *st)
{
    report_style s = styled(st);
    if (fmt == FMT_JSON)
        return json_range(f, what, nkeys, gs, first, last, ncols, &s);
    if (fmt == FMT_TSV || fmt == FMT_CSV)
        return report_delim_groups_range(f, fmt == FMT_TSV ? '\t' : ',', what,
                                         nkeys, gs, first, last, ncols, &s);
    return table_range(f, what, key_names, nkeys, gs, first, last, ncols, &s);
}

void report_groups_tail(FILE *f, out_format fmt, const report_groups *gs)
{
    if (fmt == FMT_JSON)
        fputs(gs->n ? "\n  ]\n}\n" : "]\n}\n", f);
}

int report_write_groups(FILE *f, out_format fmt, unsigned what, uint64_t rows,
                        const char *const *key_names, int nkeys,
                        const report_groups *gs, int ncols,
                        const report_style *st)
{
    int bad = report_groups_head(f, fmt, what, rows, key_names, nkeys, gs,
                                 ncols, st) ||
              report_groups_range(f, fmt, what, key_names, nkeys, gs, 0, gs->n,
                                  ncols, st);
    if (!bad)
        report_groups_tail(f, fmt, gs);
    if (fflush(f) != 0 || ferror(f) || bad)
        return -1;
    return 0;
}
