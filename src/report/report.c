#include "report.h"

#include "writers.h"

int report_write(FILE *f, out_format fmt, unsigned what, uint64_t rows,
                 const report_col *cols, int ncols, const report_style *st)
{
    int bad = 0;
    report_style s = *st;
    s.width = s.width > 0 ? s.width : 80;
    switch (fmt) {
    case FMT_JSON: {
        tbuf t = {0};
        report_json(&t, what, rows, cols, ncols, &s);
        bad = t.bad || fwrite(t.p, 1, t.len, f) != t.len;
        tbuf_free(&t);
        break;
    }
    case FMT_TSV:
        report_delim(f, '\t', what, cols, ncols, s.digits);
        break;
    case FMT_CSV:
        report_delim(f, ',', what, cols, ncols, s.digits);
        break;
    default:
        bad = report_table(f, what, cols, ncols, &s);
        break;
    }
    /* Writers do not check each fprintf: the stream's error flag is
     * sticky, so one check after the flush sees any failure. */
    if (fflush(f) != 0 || ferror(f) || bad)
        return -1;
    return 0;
}
