/* A histogram drawn as horizontal bars, one line per display row:
 *   [lo, hi)   count  ██████▍
 * More than MAX_UNGROUPED bins are grouped, adjacent bins summed, into at
 * most MAX_ROWS display rows (the title says how many bins a row holds).
 * Bars use the eighth-block characters for sub-character resolution (a
 * nonzero count always shows at least one eighth), or '#' where the
 * terminal's charset is not UTF-8.
 *
 * Labels print each edge once: where one row ends the next begins, with
 * the same text. A row starts at the least double that hist_bin
 * (src/stats/hist_bin.h, the formula both backends bin with) puts in it,
 * found by bisection over the ordered doubles; in an integer column at
 * the least integer it holds (when the rows are wide enough that each
 * holds one). The first edge and the last are the minimum and the
 * maximum as the title prints them; the others are rounded to nearest
 * at p significant digits, p the fewest, from those that move the
 * largest edge by less than a tenth of a row's width, that print the
 * edges strictly increasing. A value on a printed edge is counted in the
 * row that starts there, to within that rounding. Underflow and overflow
 * rows take the infinities.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "src/stats/hist_bin.h"
#include "writers.h"

enum { MAX_UNGROUPED = 40, MAX_ROWS = 32, LABEL = 96, MIN_BAR = 10 };

typedef struct bar_row {
    char label[LABEL];
    uint64_t count;
} bar_row;

/* ---- the rows' starts --------------------------------------------- */

/* Doubles in order as unsigned integers (-0 just below +0). */
static uint64_t key_of(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b >> 63 ? ~b : b | UINT64_C(1) << 63;
}

static double of_key(uint64_t k)
{
    uint64_t b = k >> 63 ? k & ~(UINT64_C(1) << 63) : ~k;
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* The least double in [lo, hi] that falls in bin b or a later one
 * (hist_bin is monotone; hi falls in the last bin): a bisection over the
 * ordered doubles, within a bracket galloped out from where the formula
 * puts the edge, a few doubles away. Bisecting all of [lo, hi] took 64
 * exact binnings a row, most of --all's time on a wide table. */
static double bin_start(const hist_scale *sc, double lo, double hi, int b)
{
    uint64_t a = key_of(lo), z = key_of(hi);
    double guess = lo + (hi - lo) * ((double)b / sc->nbins);
    uint64_t g = !(guess > lo) ? a : !(guess < hi) ? z : key_of(guess);
    if (hist_bin(sc, of_key(g)) >= b) {
        z = g;
        for (uint64_t s = 1; z - a > s; s *= 2) {
            if (hist_bin(sc, of_key(z - s)) < b) {
                a = z - s + 1;
                break;
            }
            z -= s;
        }
    } else {
        a = g + 1;
        for (uint64_t s = 1; z - a > s; s *= 2) {
            if (hist_bin(sc, of_key(a + s)) >= b) {
                z = a + s;
                break;
            }
            a += s + 1;
        }
    }
    while (a < z) {
        uint64_t mid = a + (z - a) / 2;
        if (hist_bin(sc, of_key(mid)) >= b)
            z = mid;
        else
            a = mid + 1;
    }
    return of_key(a);
}

/* ---- directed decimal rounding ------------------------------------ */

/* p significant digits of a > 0 into d (NUL-terminated) and the exponent
 * of the first, rounded to nearest. */
static void nearest(double a, int p, char *d, int *x)
{
    char tmp[48];
    snprintf(tmp, sizeof tmp, "%.*e", p - 1, a);
    int n = 0;
    const char *s = tmp;
    for (; *s != 'e'; s++)
        if (*s != '.')
            d[n++] = *s;
    d[n] = '\0';
    *x = atoi(s + 1);
}

/* v to p significant digits, rounded to nearest, in format_double's
 * notation; a zero is "0", never "-0". */
static void edge_text(char *buf, double v, int p)
{
    if (v == 0 || !isfinite(v)) {
        format_double(buf, 32, v + 0.0);
        return;
    }
    char d[24];
    int x;
    nearest(fabs(v), p, d, &x);
    format_decimal(buf, 32, v < 0, d, x);
}

/* ---- rows ----------------------------------------------------------- */

/* Digits enough that rounding moves the largest edge by less than a
 * tenth of a row's width (so 1017.9 shows as 1018, not 1020), and at
 * least 3. */
static int digits_for_step(const hist *h, int group)
{
    double big = fmax(fabs(h->lo), fabs(h->hi));
    double half_step = (h->hi * 0.5 - h->lo * 0.5) * group / h->nbins;
    double p = floor(log10(big)) + 1 - (log10(half_step) + log10(0.2)) + 1;
    return p < 3 ? 3 : p > 17 || isnan(p) ? 17 : (int)p;
}

/* The edges' texts at p digits: the ends as the title prints them (so
 * that the first label starts at the minimum and the last ends at the
 * maximum), the others rounded to nearest. Returns whether they read
 * strictly increasing. */
static int edge_texts(const double *edge, int nrows, int p, char (*text)[32])
{
    int increasing = 1;
    for (int r = 0; r <= nrows; r++) {
        if (r == 0 || r == nrows)
            format_double(text[r], 32, edge[r] + 0.0);
        else
            edge_text(text[r], edge[r], p);
        increasing &= !r || strtod(text[r - 1], NULL) < strtod(text[r], NULL);
    }
    return increasing;
}

/* From there, the fewest digits that print the edges strictly
 * increasing, else 17 (which tells any two doubles apart), with their
 * texts in text. */
static int edge_digits(const hist *h, int group, int nrows, const double *edge,
                       char (*text)[32])
{
    int p = digits_for_step(h, group);
    while (p < 17 && !edge_texts(edge, nrows, p, text))
        p++;
    if (p == 17)
        edge_texts(edge, nrows, p, text);
    return p;
}

/* An integer column's rows start at the least integer each holds: edges
 * an integer reader recognises, not 194531.25. Only where every row
 * holds one (else rows narrower than 1 would share an edge). */
static void integer_edges(double *edge, int nrows)
{
    for (int r = 1; r <= nrows; r++) {
        double prev = r == 1 ? edge[0] : ceil(edge[r - 1]);
        double at = r == nrows ? edge[r] : ceil(edge[r]);
        if (!(prev < at))
            return;
    }
    for (int r = 1; r < nrows; r++)
        edge[r] = ceil(edge[r]);
}

/* The display rows; returns how many. rows has MAX_UNGROUPED + 2 slots:
 * ungrouped bins, underflow and overflow. */
static int make_rows(const report_col *c, bar_row *rows, int *group)
{
    const hist *h = c->h;
    double edge[MAX_UNGROUPED + 1];
    char text[MAX_UNGROUPED + 1][32];
    int n = 0;
    int g = h->nbins > MAX_UNGROUPED ? (h->nbins + MAX_ROWS - 1) / MAX_ROWS : 1;
    int nrows = (h->nbins + g - 1) / g;
    hist_scale sc = hist_scale_make(h->lo, h->hi, h->nbins);
    edge[0] = h->lo;
    for (int r = 1; r < nrows; r++)
        edge[r] = bin_start(&sc, h->lo, h->hi, r * g);
    edge[nrows] = h->hi;
    if (c->s.is_int)
        integer_edges(edge, nrows);
    edge_digits(h, g, nrows, edge, text);
    *group = g;
    if (h->underflow) {
        snprintf(rows[n].label, LABEL, "[-inf, %.31s)", text[0]);
        rows[n++].count = h->underflow;
    }
    for (int r = 0; r < nrows; r++, n++) {
        int b0 = r * g, b1 = b0 + g < h->nbins ? b0 + g : h->nbins;
        rows[n].count = 0;
        for (int b = b0; b < b1; b++)
            rows[n].count += h->bins[b];
        snprintf(rows[n].label, LABEL, "[%.31s, %.31s%c", text[r], text[r + 1],
                 r == nrows - 1 ? ']' : ')');
    }
    if (h->overflow) {
        snprintf(rows[n].label, LABEL, "(%.31s, inf]", text[nrows]);
        rows[n++].count = h->overflow;
    }
    return n;
}

/* The infinities of a column with no finite value, or the one value of
 * a constant column and the infinities around it. */
static int few_rows(const hist *h, bar_row *rows)
{
    int n = 0;
    uint64_t in = 0;
    for (int i = 0; i < h->nbins; i++)
        in += h->bins[i];
    if (h->underflow) {
        snprintf(rows[n].label, LABEL, "[-inf, -inf]");
        rows[n++].count = h->underflow;
    }
    if (in || !isnan(h->lo)) {
        char v[32];
        format_double(v, sizeof v, h->lo);
        snprintf(rows[n].label, LABEL, "[%s, %s]", v, v);
        rows[n++].count = in;
    }
    if (h->overflow) {
        snprintf(rows[n].label, LABEL, "[inf, inf]");
        rows[n++].count = h->overflow;
    }
    return n;
}

/* ---- drawing -------------------------------------------------------- */

static void bar(FILE *f, uint64_t count, uint64_t max, int width, int utf8)
{
    static const char *const part[8] = {
        "",       "\u258F", "\u258E", "\u258D",
        "\u258C", "\u258B", "\u258A", "\u2589",
    };
    int sub = utf8 ? 8 : 1;
    uint64_t units =
        max ? (uint64_t)llround((double)count / (double)max * width * sub) : 0;
    if (count && !units)
        units = 1;
    for (uint64_t i = 0; i < units / sub; i++)
        fputs(utf8 ? "\u2588" : "#", f);
    if (utf8)
        fputs(part[units % 8], f);
}

/* The title: the name, the bins, their range and grouping; the parts
 * that would pass the width go on lines of their own, indented. */
static void title(FILE *f, const report_col *c, int group, int width)
{
    const hist *h = c->h;
    char lo[32], hi[32], part[3][96];
    int nparts = 0;
    format_double(lo, sizeof lo, h->lo);
    format_double(hi, sizeof hi, h->hi);
    if (!isnan(h->lo) && !isnan(h->hi))
        snprintf(part[nparts++], sizeof part[0], " over [%s, %s]", lo, hi);
    else if (c->s.count)
        snprintf(part[nparts++], sizeof part[0], ", no finite value");
    if (group > 1)
        snprintf(part[nparts++], sizeof part[0], ", %d bins per row", group);
    putc('\n', f);
    const char *name = c->name ? c->name : "";
    report_show_text(f, name, strlen(name));
    int at = report_text_width(name, strlen(name));
    at += fprintf(f, " (#%d): %d bin%s", c->index, h->nbins,
                  h->nbins == 1 ? "" : "s");
    for (int i = 0; i < nparts; i++) {
        const char *p = part[i];
        int w = (int)strlen(p);
        if (at + w > width && at > 2) {
            fputs("\n ", f); /* "  over ...", "  2 bins per row" */
            p += *p == ',';
            at = 1;
            w = (int)strlen(p);
        }
        fputs(p, f);
        at += w;
    }
    putc('\n', f);
}

void report_bars(FILE *f, const report_col *c, const report_style *st)
{
    const hist *h = c->h;
    bar_row rows[MAX_UNGROUPED + 2];
    int group = 1, n;
    if (c->s.count == 0) {
        title(f, c, 1, st->width);
        fputs("  (no values)\n", f);
        return;
    }
    if (h->lo < h->hi)
        n = make_rows(c, rows, &group);
    else
        n = few_rows(h, rows);
    title(f, c, group, st->width);
    int lw = 0, cw = 1;
    uint64_t max = 0;
    for (int i = 0; i < n; i++) {
        int l = (int)strlen(rows[i].label);
        int d = snprintf(NULL, 0, "%llu", (unsigned long long)rows[i].count);
        lw = l > lw ? l : lw;
        cw = d > cw ? d : cw;
        max = rows[i].count > max ? rows[i].count : max;
    }
    int bw = st->width - (2 + lw + 2 + cw + 2) - 1;
    bw = bw < MIN_BAR ? MIN_BAR : bw;
    for (int i = 0; i < n; i++) {
        fprintf(f, "  %-*s  %*llu  ", lw, rows[i].label, cw,
                (unsigned long long)rows[i].count);
        bar(f, rows[i].count, max, bw, st->utf8);
        putc('\n', f);
    }
}
