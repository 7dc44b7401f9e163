/* --group-by's report: each format's document over the groups, the
 * columns of each written by the format's own column writer. */
#include <string.h>

#include "writers.h"

static void json_groups(FILE *f, unsigned what, uint64_t rows,
                        const char *const *names, int nkeys,
                        const report_group *g, size_t ng, int ncols,
                        const report_style *st)
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
    for (size_t i = 0; i < ng; i++) {
        fputs(i ? ",\n  {\"key\": [" : "\n  {\"key\": [", f);
        for (int j = 0; j < nkeys; j++) {
            fputs(j ? ", " : "", f);
            if (g[i].key[j])
                report_json_text(f, g[i].key[j], g[i].key_len[j]);
            else
                fputs("null", f);
        }
        fputs("], \"rows\": ", f);
        report_json_count(f, g[i].rows, st->bigint_string);
        fputs(", \"columns\": [", f);
        for (int k = 0; k < ncols; k++) {
            fputs(k ? ",\n" : "\n", f);
            report_json_column(f, what, &g[i].cols[k], st);
        }
        fputs(ncols ? "\n  ]}" : "]}", f);
    }
    fputs(ng ? "\n  ]\n}\n" : "]\n}\n", f);
}

/* "status=200 host=(missing) (870 rows)": the key bytes as they are (a
 * NUL cuts one short). */
static void table_heading(FILE *f, const char *const *names, int nkeys,
                          const report_group *g)
{
    for (int j = 0; j < nkeys; j++) {
        fprintf(f, "%s%s=", j ? " " : "", names[j]);
        if (g->key[j])
            fwrite(g->key[j], 1, g->key_len[j], f);
        else
            fputs("(missing)", f);
    }
    fprintf(f, " (%llu row%s)\n", (unsigned long long)g->rows,
            g->rows == 1 ? "" : "s");
}

static int table_groups(FILE *f, unsigned what, const char *const *names,
                        int nkeys, const report_group *g, size_t ng, int ncols,
                        const report_style *st)
{
    for (size_t i = 0; i < ng; i++) {
        if (i)
            putc('\n', f);
        table_heading(f, names, nkeys, &g[i]);
        if (report_table(f, what, g[i].cols, ncols, st))
            return -1;
    }
    return 0;
}

int report_write_groups(FILE *f, out_format fmt, unsigned what, uint64_t rows,
                        const char *const *key_names, int nkeys,
                        const report_group *g, size_t ng, int ncols,
                        const report_style *st)
{
    int bad = 0;
    report_style s = *st;
    s.width = s.width > 0 ? s.width : 80;
    if (fmt == FMT_JSON)
        json_groups(f, what, rows, key_names, nkeys, g, ng, ncols, &s);
    else if (fmt == FMT_TSV || fmt == FMT_CSV)
        report_delim_groups(f, fmt == FMT_TSV ? '\t' : ',', what, key_names,
                            nkeys, g, ng, ncols, s.digits);
    else
        bad = table_groups(f, what, key_names, nkeys, g, ng, ncols, &s);
    if (fflush(f) != 0 || ferror(f) || bad)
        return -1;
    return 0;
}
