#include "src/dist/merge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/dist/state.h"

/* What --emit-state writes, narrower than what a state may hold (--mpi's
 * ranks exchange states of quantile runs, whose values travel apart): no
 * quantiles, and histograms only with fixed edges. */
static int emitted(const state_info *info, const char *name, cs_error *e)
{
    const char *why = NULL;
    if (info->what & (STAT_MEDIAN | STAT_QUANTILES))
        why = "it claims quantiles, which need the values";
    else if ((info->what & STAT_HIST) && !info->have_range)
        why = "it claims a histogram without --range";
    if (!why)
        return CS_OK;
    return cs_fail(e, CS_EDATA, name, 0,
                   "a state that --emit-state does not write: %s", why);
}

/* One state file into *r and *info. */
static int read_one(const char *path, state_info *info, engine_result *r,
                    cs_error *e)
{
    int std = !strcmp(path, "-");
    const char *name = std ? "(standard input)" : path;
    FILE *f = std ? stdin : fopen(path, "rb");
    if (!f) {
        memset(info, 0, sizeof *info);
        memset(r, 0, sizeof *r);
        return cs_fail(e, CS_EDATA, name, 0, "cannot open: %s",
                       strerror(errno));
    }
    int rc = state_read(f, name, info, r, e);
    if (!std)
        fclose(f);
    if (rc == CS_OK)
        rc = emitted(info, name, e);
    return rc;
}

/* The statistics a state holding what can answer: count and extremes
 * always; sum and mean from the exact sum (kept for any of sum, mean,
 * std); std from the sum of squares; a histogram when it has one. */
static unsigned answerable(unsigned what)
{
    unsigned can = STAT_COUNT | STAT_MIN | STAT_MAX;
    if (what & (STAT_SUM | STAT_MEAN | STAT_STD))
        can |= STAT_SUM | STAT_MEAN;
    return can | (what & (STAT_STD | STAT_HIST));
}

static const char *stat_name(unsigned bit)
{
    return bit & STAT_SUM    ? "--sum"
           : bit & STAT_MEAN ? "--mean"
           : bit & STAT_STD  ? "--std"
                             : "--hist";
}

/* What is asked of states of the key in info, or CS_EUSAGE saying why
 * they cannot answer it. */
static int ask_ok(const merge_ask *ask, const state_info *info, cs_error *e)
{
    unsigned lack = ask->what & ~answerable(info->what);
    if (lack)
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--merge: the states do not hold what %s needs "
                       "(emit them with %s)",
                       stat_name(lack), stat_name(lack));
    int hist = (info->what & STAT_HIST) != 0;
    if ((ask->nbins || ask->have_range) && !hist)
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--merge: the states hold no histogram to give "
                       "--bins or --range to");
    if ((ask->nbins && ask->nbins != info->nbins) ||
        (ask->have_range && (ask->lo != info->lo || ask->hi != info->hi)))
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--merge: the states' histograms have %d bins over "
                       "[%.17g, %.17g]: other bins or edges need the values",
                       info->nbins, info->lo, info->hi);
    return CS_OK;
}

/* Reads and merges every state after the first into out. */
static int merge_rest(const char *const *paths, int n, const state_info *first,
                      engine_result *out, cs_error *e)
{
    int rc = CS_OK;
    for (int i = 1; i < n && rc == CS_OK; i++) {
        state_info info;
        engine_result r;
        rc = read_one(paths[i], &info, &r, e);
        if (rc == CS_OK && strcmp(info.key, first->key))
            rc = cs_fail(e, CS_EDATA, paths[i], 0,
                         "a state of other options than %s's (%s against "
                         "%s)",
                         paths[0], info.key, first->key);
        if (rc == CS_OK)
            rc = state_merge(out, &r, e);
        free(info.key);
        engine_result_free(&r);
    }
    return rc;
}

int merge_states(const char *const *paths, int n, const merge_ask *ask,
                 engine_result *out, unsigned *what, cs_error *e)
{
    state_info first;
    int rc = read_one(paths[0], &first, out, e);
    if (rc == CS_OK)
        rc = ask_ok(ask, &first, e);
    if (rc == CS_OK)
        rc = merge_rest(paths, n, &first, out, e);
    if (rc == CS_OK && ask->columns)
        rc = engine_select_columns(out, ask->columns, e);
    *what = ask->what ? ask->what : first.what;
    free(first.key);
    if (rc == CS_OK)
        engine_result_finalize(out);
    else
        engine_result_free(out);
    return rc;
}
