/* One share of a selection pass on the CPU: counting values into the
 * pass's bins and picking the candidates, with the formulas of qsel_key.h
 * that the device uses too; and the whole selection over values held in
 * memory (see quantile.h). */
#include <stdlib.h>

#include "quantile.h"

/* Pass 1 (and any pass of one range) tests the range inline. */
static void count_one_range(const qsel_range *g, int with_r, uint64_t *counts,
                            const double *d, const int32_t *r, size_t n)
{
    uint64_t *c = counts + g->first;
    for (size_t i = 0; i < n; i++) {
        if (d[i] != d[i])
            continue;
        qsel_u128 k = qsel_ckey(d[i], r ? r[i] : 0, with_r);
        if (k >= g->lo && k <= g->hi)
            c[qsel_bin(g, k)]++;
    }
}

void qsel_count(const qsel *s, uint64_t *counts, const double *d,
                const int32_t *r, size_t n)
{
    size_t ng;
    const qsel_range *g = qsel_ranges(s, &ng);
    int with_r = qsel_with_r(s);
    if (ng == 1 && g[0].nbins) {
        count_one_range(g, with_r, counts, d, r, n);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (d[i] != d[i])
            continue;
        qsel_u128 k = qsel_ckey(d[i], r ? r[i] : 0, with_r);
        long j = qsel_find(g, ng, k);
        if (j >= 0 && g[j].nbins)
            counts[g[j].first + qsel_bin(&g[j], k)]++;
    }
}

size_t qsel_pick(const qsel *s, qnum *out, size_t room, const double *d,
                 const int32_t *r, size_t n)
{
    size_t ng, found = 0;
    const qsel_range *g = qsel_ranges(s, &ng);
    int with_r = qsel_with_r(s);
    for (size_t i = 0; i < n; i++) {
        if (d[i] != d[i])
            continue;
        int32_t ri = r ? r[i] : 0;
        long j = qsel_find(g, ng, qsel_ckey(d[i], ri, with_r));
        if (j < 0 || g[j].nbins)
            continue;
        if (found < room) {
            out[found].d = d[i];
            out[found].r = ri;
        }
        found++;
    }
    return found;
}

static int collect_array(qsel *s, const double *d, const int32_t *r, size_t n,
                         cs_error *e)
{
    size_t want = (size_t)qsel_ncandidates(s);
    qnum *buf = malloc(want * sizeof *buf);
    if (!buf)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    size_t got = qsel_pick(s, buf, want, d, r, n);
    int st = got > want ? qsel_changed(e) : qsel_add_candidates(s, buf, got, e);
    free(buf);
    return st;
}

/* Every pass over the one share the array is. */
int qsel_select_array(qsel *s, const double *d, const int32_t *r, size_t n,
                      cs_error *e)
{
    while (!qsel_done(s)) {
        size_t nbins = qsel_nbins(s);
        if (nbins) {
            uint64_t *c = calloc(nbins, sizeof *c);
            if (!c)
                return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
            qsel_count(s, c, d, r, n);
            qsel_add_counts(s, c);
            free(c);
        }
        int st = qsel_ncandidates(s) ? collect_array(s, d, r, n, e) : CS_OK;
        if (st || (st = qsel_narrow(s, e)))
            return st;
    }
    return CS_OK;
}
