/* A histogram drawn as horizontal bars, one line per display row:
 *   [lo, hi)   count  ██████▍
 * More than MAX_UNGROUPED bins are grouped, adjacent bins summed, into at
 * most MAX_ROWS display rows (the title says how many bins a row holds).
 * Bars use the eighth-block characters for sub-character resolution, and
 * a nonzero count always shows at least one eighth. Edge labels round to
 * a tenth of a row's width, with more digits where neighbours would
 * print alike. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "writers.h"

enum { MAX_UNGROUPED = 40, MAX_ROWS = 32, LABEL = 96, MIN_BAR = 10 };

typedef struct bar_row {
    char label[LABEL];
    uint64_t count;
} bar_row;

/* Left edge of bin i of n; i == n gives hi. Blending stays finite for
 * any finite lo and hi, where hi - lo may not. */
static double edge(const hist *h, int i)
{
    if (i >= h->nbins)
        return h->hi;
    double t = (double)i / h->nbins;
    return h->lo * (1 - t) + h->hi * t;
}

/* v with p significant digits, then printed in shortest form. */
static void edge_text(char *buf, double v, int p)
{
    char tmp[40];
    snprintf(tmp, sizeof tmp, "%.*g", p, v);
    format_double(buf, 32, strtod(tmp, NULL));
}

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

/* From there, the fewest digits that print the row edges all distinct. */
static int edge_digits(const hist *h, int group, int nrows)
{
    for (int p = digits_for_step(h, group); p < 17; p++) {
        char a[32], b[32];
        int ok = 1;
        edge_text(a, edge(h, 0), p);
        for (int r = 1; r <= nrows && ok; r++) {
            edge_text(b, edge(h, r * group), p);
            ok = strcmp(a, b) != 0;
            memcpy(a, b, sizeof a);
        }
        if (ok)
            return p;
    }
    return 17;
}

/* The display rows; returns how many. rows has MAX_UNGROUPED + 2 slots:
 * ungrouped bins, underflow and overflow. */
static int make_rows(const hist *h, bar_row *rows, int *group)
{
    char lo[32], hi[32];
    int n = 0;
    int g = h->nbins > MAX_UNGROUPED ? (h->nbins + MAX_ROWS - 1) / MAX_ROWS : 1;
    int nrows = (h->nbins + g - 1) / g;
    int p = edge_digits(h, g, nrows);
    *group = g;
    if (h->underflow) {
        edge_text(lo, h->lo, p);
        snprintf(rows[n].label, LABEL, "(-inf, %s)", lo);
        rows[n++].count = h->underflow;
    }
    for (int r = 0; r < nrows; r++, n++) {
        int b0 = r * g, b1 = b0 + g < h->nbins ? b0 + g : h->nbins;
        rows[n].count = 0;
        for (int b = b0; b < b1; b++)
            rows[n].count += h->bins[b];
        edge_text(lo, edge(h, b0), p);
        edge_text(hi, edge(h, b1), p);
        snprintf(rows[n].label, LABEL, "[%s, %s%c", lo, hi,
                 b1 == h->nbins ? ']' : ')');
    }
    if (h->overflow) {
        edge_text(hi, h->hi, p);
        snprintf(rows[n].label, LABEL, "(%s, inf)", hi);
        rows[n++].count = h->overflow;
    }
    return n;
}

static void bar(FILE *f, uint64_t count, uint64_t max, int width)
{
    static const char *const part[8] = {
        "",       "\u258F", "\u258E", "\u258D",
        "\u258C", "\u258B", "\u258A", "\u2589",
    };
    uint64_t eighths =
        max ? (uint64_t)llround((double)count / (double)max * width * 8) : 0;
    if (count && !eighths)
        eighths = 1;
    for (uint64_t i = 0; i < eighths / 8; i++)
        fputs("\u2588", f);
    fputs(part[eighths % 8], f);
}

static void title(FILE *f, const report_col *c, int group)
{
    const hist *h = c->h;
    char lo[32], hi[32];
    format_double(lo, sizeof lo, h->lo);
    format_double(hi, sizeof hi, h->hi);
    putc('\n', f);
    for (const char *s = c->name ? c->name : ""; *s; s++)
        putc((unsigned char)*s < 0x20 || *s == 0x7F ? '?' : *s, f);
    fprintf(f, " (#%d): %d bin%s", c->index, h->nbins,
            h->nbins == 1 ? "" : "s");
    if (!isnan(h->lo) && !isnan(h->hi))
        fprintf(f, " over [%s, %s]", lo, hi);
    if (group > 1)
        fprintf(f, ", %d bins per row", group);
    putc('\n', f);
}

/* All values equal: one row. */
static void constant(FILE *f, const hist *h)
{
    char v[32];
    uint64_t n = h->underflow + h->overflow;
    for (int i = 0; i < h->nbins; i++)
        n += h->bins[i];
    format_double(v, sizeof v, h->lo);
    fprintf(f, "  [%s, %s]  %llu\n", v, v, (unsigned long long)n);
}

void report_bars(FILE *f, const report_col *c, int width)
{
    const hist *h = c->h;
    bar_row rows[MAX_UNGROUPED + 2];
    int group = 1;
    if (c->s.count == 0 || !(h->lo < h->hi)) {
        title(f, c, 1);
        if (c->s.count == 0)
            fputs("  (no values)\n", f);
        else
            constant(f, h);
        return;
    }
    int n = make_rows(h, rows, &group);
    title(f, c, group);
    int lw = 0, cw = 1;
    uint64_t max = 0;
    for (int i = 0; i < n; i++) {
        int l = (int)strlen(rows[i].label);
        int d = snprintf(NULL, 0, "%llu", (unsigned long long)rows[i].count);
        lw = l > lw ? l : lw;
        cw = d > cw ? d : cw;
        max = rows[i].count > max ? rows[i].count : max;
    }
    int bw = width - (2 + lw + 2 + cw + 2) - 1;
    bw = bw < MIN_BAR ? MIN_BAR : bw;
    for (int i = 0; i < n; i++) {
        fprintf(f, "  %-*s  %*llu  ", lw, rows[i].label, cw,
                (unsigned long long)rows[i].count);
        bar(f, rows[i].count, max, bw);
        putc('\n', f);
    }
}
