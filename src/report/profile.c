/* The distinct values, mode and top values of a column as the writers
 * show them, and the table's block of them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "writers.h"

int report_prof_value_text(char *buf, size_t len, const report_col *c,
                           const prof_value *v, int digits)
{
    if (c->kind == COL_TEXT)
        return 0;
    if (c->s.is_int) {
        char digits_buf[48];
        stats_int_text(digits_buf, v->d, v->r);
        if (report_dated(&c->s)) { /* an instant's microseconds */
            report_instant_text(buf, len, strtoll(digits_buf, NULL, 10),
                                c->s.type == COL_DATE,
                                c->s.type == COL_DATETIME_Z);
            return 3;
        }
        snprintf(buf, len, "%s", digits_buf);
        return 1;
    }
    format_double_digits(buf, len, v->d, digits);
    return isfinite(v->d) ? 1 : 2;
}

int report_has_profile(unsigned what, const report_col *c)
{
    return (what & STAT_PROFILE) && c->prof && c->prof->counted;
}

const char *report_type_name(const report_col *c)
{
    static const char *const names[] = {"number", "date", "datetime",
                                        "datetime"};
    if (c->kind == COL_TEXT)
        return "text";
    return names[c->s.type <= COL_DATETIME_Z ? c->s.type : COL_NUMBER];
}

static void show_value(FILE *f, const report_col *c, const prof_value *v,
                       int digits)
{
    char buf[64];
    if (report_prof_value_text(buf, sizeof buf, c, v, digits))
        fputs(buf, f);
    else
        report_show_text(f, v->text, v->len);
}

static void column_block(FILE *f, unsigned what, const report_col *c,
                         const report_style *st)
{
    const prof_summary *p = c->prof;
    fprintf(f, "\n%s (%s)\n", c->name ? c->name : "", report_type_name(c));
    if (c->kind == COL_TEXT && (what & (STAT_MIN | STAT_MAX)) && p->count)
        fprintf(f, "  length    %llu to %llu characters\n",
                (unsigned long long)p->len_min, (unsigned long long)p->len_max);
    if (!report_has_profile(what, c))
        return;
    if (what & STAT_DISTINCT)
        fprintf(f, "  distinct  %llu\n", (unsigned long long)p->distinct);
    if ((what & STAT_MODE) && p->ntop) {
        fputs("  mode      ", f);
        show_value(f, c, &p->top[0], st->digits);
        fprintf(f, "  (%llu)\n", (unsigned long long)p->top[0].count);
    } else if (what & STAT_MODE) {
        fputs("  mode      -\n", f);
    }
    if (!(what & STAT_TOP))
        return;
    fputs("  top\n", f);
    for (size_t i = 0; i < p->ntop; i++) {
        fprintf(f, "  %8llu  ", (unsigned long long)p->top[i].count);
        show_value(f, c, &p->top[i], st->digits);
        putc('\n', f);
    }
}

void report_profiles_table(FILE *f, unsigned what, const report_col *cols,
                           int ncols, const report_style *st)
{
    for (int i = 0; i < ncols; i++)
        if (cols[i].prof &&
            (cols[i].kind == COL_TEXT || report_has_profile(what, &cols[i])))
            column_block(f, what, &cols[i], st);
}
