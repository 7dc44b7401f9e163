#include "suggest.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Words users bring from other tools (datamash, Miller, csvstat, SQL) and
 * what colstat calls them; an empty option says colstat has no such
 * statistic, so that no near but wrong option is offered instead. */
static const struct synonym {
    const char *word, *option, *none;
} synonyms[] = {
    {"percentile", "quantiles", NULL},
    {"percentiles", "quantiles", NULL},
    {"quantile", "quantiles", NULL},
    {"p50", "median", NULL},
    {"p90", "quantiles", NULL},
    {"p95", "quantiles", NULL},
    {"p99", "quantiles", NULL},
    {"p999", "quantiles", NULL},
    {"average", "mean", NULL},
    {"avg", "mean", NULL},
    {"stddev", "std", NULL},
    {"stdev", "std", NULL},
    {"sd", "std", NULL},
    {"total", "sum", NULL},
    {"minimum", "min", NULL},
    {"maximum", "max", NULL},
    {"histogram", "hist", NULL},
    {"cols", "columns", NULL},
    {"column", "columns", NULL},
    {"fields", "columns", NULL},
    {"delim", "delimiter", NULL},
    {"sep", "delimiter", NULL},
    {"separator", "delimiter", NULL},
    {"output", "format", NULL},
    {"nulls", "null", NULL},
    {"na", "null", NULL},
    {"jobs", "threads", NULL},
    {"gpu", "device", NULL},
    {"unique", NULL, "colstat counts no distinct values"},
    {"distinct", NULL, "colstat counts no distinct values"},
    {"nunique", NULL, "colstat counts no distinct values"},
    {"groupby", "group-by", NULL},
    {"by", "group-by", NULL},
};

/* Optimal string alignment distance (insertions, deletions,
 * substitutions, adjacent swaps), case-blind; words longer than MAXW
 * are far from every option anyway. */
enum { MAXW = 40 };

static int distance(const char *a, size_t n, const char *b)
{
    size_t m = strlen(b);
    if (n > MAXW || m > MAXW)
        return MAXW;
    int d[MAXW + 1][MAXW + 1];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int cost = strncasecmp(a + i - 1, b + j - 1, 1) != 0;
            int v = d[i - 1][j - 1] + cost;
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
                a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m];
}

/* The known option nearest to word, if near enough: a third of the
 * word's letters wrong at most (one for short words), so that --foo
 * suggests nothing rather than --sum. */
static const char *nearest(const char *word, size_t len,
                           const char *const *names)
{
    const char *best = NULL;
    int bestd = (int)(len / 3 > 1 ? len / 3 : 1) + 1;
    for (int i = 0; names[i]; i++) {
        int dist = distance(word, len, names[i]);
        if (dist < bestd) {
            bestd = dist;
            best = names[i];
        }
    }
    return best;
}

void suggest_option(const char *word, size_t len, const char *const *names,
                    char *buf, size_t cap)
{
    for (size_t i = 0; i < sizeof synonyms / sizeof *synonyms; i++) {
        const struct synonym *s = &synonyms[i];
        if (strlen(s->word) != len || strncasecmp(s->word, word, len))
            continue;
        if (s->option)
            snprintf(buf, cap, "did you mean --%s?", s->option);
        else
            snprintf(buf, cap, "%s", s->none);
        return;
    }
    const char *near = nearest(word, len, names);
    if (near)
        snprintf(buf, cap, "did you mean --%s?", near);
    else if (cap)
        buf[0] = '\0';
}
