/* The collective passes of --mpi (mpi_collective.h). The whole input's
 * extremes are every rank's merged in rank order, as rank 0 merges the
 * states; a pass's quantile sums are MPI_Allreduce'd (counts added, key
 * extremes by MIN and MAX) and its candidates gathered on every rank,
 * so each rank's selections narrow exactly as one process's would (the
 * selection is a pure function of the sums: src/stats/quantile.h). */
#include "src/dist/mpi_collective.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "src/engine/tally.h"

/* 1 where every rank is well, 0 where some rank failed, -1 where the
 * ranks' columns differ (every rank read the same head: not expected). */
static int round_ok(mpi_collective *c, int ok, int ncols)
{
    int mine[3] = {ok, ncols, -ncols}, all[3];
    MPI_Allreduce(mine, all, 3, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    int ready = !all[0] ? 0 : all[1] == -all[2] ? 1 : -1;
    c->stopped = ready <= 0;
    c->others = !ready && ok;
    return ready;
}

static int stop_error(const mpi_collective *c, int ready, cs_error *e)
{
    if (c->others)
        return cs_fail(e, CS_EDATA, "", 0, "another rank failed");
    if (ready < 0)
        return cs_fail(e, CS_EDATA, "", 0,
                       "--mpi: the ranks found different columns");
    return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
}

void mpi_collective_close(mpi_collective *c, int ok)
{
    if (!c->stopped)
        round_ok(c, ok, 0);
}

/* ---- The whole input's extremes ------------------------------------ */

typedef struct extremes {
    uint64_t count;
    double min, max, fmin, fmax;
    int32_t min_corr, max_corr, all_int, pad;
} extremes;

static void take_extremes(extremes *x, const col_stats *s)
{
    memset(x, 0, sizeof *x);
    x->count = s->count;
    x->min = s->min;
    x->max = s->max;
    x->fmin = s->fmin;
    x->fmax = s->fmax;
    x->min_corr = s->min_corr;
    x->max_corr = s->max_corr;
    x->all_int = s->all_int;
}

/* The n ranks' extremes of column k (x rank-major) merged in rank order:
 * rank r's rows come after rank r - 1's, so ties (-0 and +0, the integer
 * view's corrections) go to the earlier rank, as in one process. */
static int merge_extremes(const extremes *x, int n, int ncols, int k,
                          col_stats *all)
{
    int rc = 0;
    for (int r = 0; r < n && !rc; r++) {
        const extremes *v = &x[(size_t)r * (size_t)ncols + (size_t)k];
        col_stats s;
        stats_init(&s);
        s.count = v->count;
        s.min = v->min;
        s.max = v->max;
        s.fmin = v->fmin;
        s.fmax = v->fmax;
        s.min_corr = v->min_corr;
        s.max_corr = v->max_corr;
        s.all_int = v->all_int;
        s.min_row = s.max_row = s.min_row_int = s.max_row_int = 1;
        rc = stats_merge(all, &s, (uint64_t)r);
        stats_free(&s);
    }
    return rc;
}

static int whole(void *ctx, int ncols, const col_stats *st, col_stats *all,
                 cs_error *e)
{
    mpi_collective *c = ctx;
    int n, bad = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    size_t each = (size_t)ncols * sizeof(extremes);
    extremes *mine = malloc(each ? each : 1);
    extremes *x = malloc(each ? each * (size_t)n : 1);
    for (int k = 0; mine && k < ncols; k++)
        take_extremes(&mine[k], &st[k]);
    int ready = round_ok(c, mine && x, ncols);
    if (ready > 0) {
        MPI_Allgather(mine, (int)each, MPI_BYTE, x, (int)each, MPI_BYTE,
                      MPI_COMM_WORLD);
        for (int k = 0; k < ncols && !bad; k++)
            bad = merge_extremes(x, n, ncols, k, &all[k]);
    }
    free(mine);
    free(x);
    if (ready <= 0)
        return stop_error(c, ready, e);
    return bad ? cs_fail(e, CS_ENOMEM, "", 0, "out of memory") : CS_OK;
}

/* ---- A pass's sums ------------------------------------------------- */

/* The plan's counts, key extremes and candidate counts, laid end to end
 * over its columns (the same layout on every rank: the plans are). */
typedef struct flat {
    size_t nbins, nranges;
    uint64_t *counts; /* nbins counts, then one candidate count a column */
    uint64_t *kmin, *kmax;
} flat;

static int flat_new(const pass_plan *p, flat *f)
{
    memset(f, 0, sizeof *f);
    for (int k = 0; k < p->ncols; k++) {
        const pass_col *pc = &p->col[k];
        size_t nr = 0;
        if (!pc->sel)
            continue;
        qsel_ranges(pc->sel, &nr);
        f->nbins += qsel_nbins(pc->sel);
        f->nranges += nr;
    }
    f->counts = malloc((f->nbins + (size_t)p->ncols + 1) * sizeof *f->counts);
    f->kmin = malloc((f->nranges + 1) * sizeof *f->kmin);
    f->kmax = malloc((f->nranges + 1) * sizeof *f->kmax);
    return f->counts && f->kmin && f->kmax ? 0 : -1;
}

static void flat_free(flat *f)
{
    free(f->counts);
    free(f->kmin);
    free(f->kmax);
}

/* to 1: the plan into f; 0: f into the plan */
static void flat_copy(pass_plan *p, flat *f, int to)
{
    size_t b = 0, g = 0;
    for (int k = 0; k < p->ncols; k++) {
        pass_col *pc = &p->col[k];
        uint64_t *ncand = &f->counts[f->nbins + (size_t)k];
        size_t nb, nr;
        if (!pc->sel) {
            *ncand = to ? 0 : *ncand;
            continue;
        }
        nb = qsel_nbins(pc->sel);
        qsel_ranges(pc->sel, &nr);
#define COPY(x, y, n) memcpy(to ? (x) : (y), to ? (y) : (x), (n)*8)
        COPY(f->counts + b, pc->counts, nb);
        COPY(f->kmin + g, pc->kmin, nr);
        COPY(f->kmax + g, pc->kmax, nr);
        COPY(ncand, &pc->ncand, 1);
#undef COPY
        b += nb;
        g += nr;
    }
}

/* MPI_Allreduce in place, in pieces that its int count takes. */
static void allreduce(uint64_t *v, size_t n, MPI_Op op)
{
    for (size_t at = 0, m; at < n; at += m) {
        m = n - at < (1u << 30) ? n - at : (1u << 30);
        MPI_Allreduce(MPI_IN_PLACE, v + at, (int)m, MPI_UINT64_T, op,
                      MPI_COMM_WORLD);
    }
}

/* Candidates this rank sends for column k: those it holds. */
static uint64_t held(const pass_col *pc)
{
    return pc->sel ? (pc->ncand < pc->room ? pc->ncand : pc->room) : 0;
}

/* Every rank's candidates, rank-major and column-major within a rank:
 * mine[k] this rank's count of column k, all[r * ncols + k] rank r's. */
typedef struct cands {
    uint64_t *mine, *all, *fill;
    qnum *send, *recv;
    int nsend;
    int *len, *at; /* per rank, in qnum */
} cands;

static void cands_free(cands *c)
{
    free(c->mine);
    free(c->all);
    free(c->fill);
    free(c->send);
    free(c->recv);
    free(c->len);
    free(c->at);
}

static int cands_new(const pass_plan *p, int n, cands *c)
{
    size_t k1 = (size_t)p->ncols + 1, sent = 0;
    memset(c, 0, sizeof *c);
    c->mine = malloc(k1 * sizeof *c->mine);
    c->all = malloc(k1 * (size_t)n * sizeof *c->all);
    c->fill = malloc(k1 * sizeof *c->fill);
    c->len = malloc((size_t)n * sizeof *c->len);
    c->at = malloc((size_t)n * sizeof *c->at);
    for (int k = 0; c->mine && k < p->ncols; k++)
        sent += (size_t)(c->mine[k] = held(&p->col[k]));
    c->nsend = (int)sent;
    c->send = malloc((sent ? sent : 1) * sizeof *c->send);
    for (int k = 0, at = 0; c->mine && c->send && k < p->ncols; k++) {
        if (c->mine[k])
            memcpy(c->send + at, p->col[k].cand, c->mine[k] * sizeof(qnum));
        at += (int)c->mine[k];
    }
    return c->mine && c->all && c->fill && c->len && c->at && c->send ? 0 : -1;
}

/* Where each rank's candidates go; *total of them all, -1 past what
 * MPI's int counts take (every rank finds the same). */
static int cands_place(const pass_plan *p, int n, cands *c, size_t *total)
{
    *total = 0;
    for (int r = 0; r < n; r++) {
        uint64_t b = 0;
        for (int k = 0; k < p->ncols; k++)
            b += c->all[(size_t)r * (size_t)p->ncols + (size_t)k];
        if (b > INT32_MAX || *total + b > INT32_MAX)
            return -1;
        c->len[r] = (int)b;
        c->at[r] = (int)*total;
        *total += (size_t)b;
    }
    return 0;
}

/* The gathered candidates into each column's room, in rank order; a
 * column whose summed count exceeds its room is left to qsel_changed. */
static void cands_spread(pass_plan *p, int n, cands *c)
{
    memset(c->fill, 0, ((size_t)p->ncols + 1) * sizeof *c->fill);
    for (int r = 0; r < n; r++) {
        const qnum *from = c->recv + c->at[r];
        for (int k = 0; k < p->ncols; k++) {
            pass_col *pc = &p->col[k];
            uint64_t m = c->all[(size_t)r * (size_t)p->ncols + (size_t)k];
            if (m && pc->sel && pc->ncand <= pc->room &&
                c->fill[k] + m <= pc->room)
                memcpy(pc->cand + c->fill[k], from, m * sizeof(qnum));
            c->fill[k] += m;
            from += m;
        }
    }
}

static int gather_cands(pass_plan *p, int n, cands *c, mpi_collective *mc,
                        cs_error *e)
{
    size_t total;
    MPI_Allgather(c->mine, p->ncols, MPI_UINT64_T, c->all, p->ncols,
                  MPI_UINT64_T, MPI_COMM_WORLD);
    if (cands_place(p, n, c, &total))
        return cs_fail(e, CS_EDATA, "", 0,
                       "--mpi: more quantile candidates at once than one "
                       "MPI gather takes (2^31); select fewer columns");
    c->recv = malloc((total ? total : 1) * sizeof *c->recv);
    int ready = round_ok(mc, c->recv != NULL, p->ncols);
    if (ready <= 0)
        return stop_error(mc, ready, e);
    MPI_Datatype one;
    MPI_Type_contiguous((int)sizeof(qnum), MPI_BYTE, &one);
    MPI_Type_commit(&one);
    MPI_Allgatherv(c->send, c->nsend, one, c->recv, c->len, c->at, one,
                   MPI_COMM_WORLD);
    MPI_Type_free(&one);
    cands_spread(p, n, c);
    return CS_OK;
}

static int sum(void *ctx, pass_plan *p, cs_error *e)
{
    mpi_collective *mc = ctx;
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    flat f;
    cands c;
    int made_flat = !flat_new(p, &f); /* both made: both are freed */
    int made_cands = !cands_new(p, n, &c);
    int ok = made_flat && made_cands;
    int ready = round_ok(mc, ok, p->ncols), rc = CS_OK;
    if (ready <= 0)
        rc = stop_error(mc, ready, e);
    if (rc == CS_OK) {
        flat_copy(p, &f, 1);
        allreduce(f.counts, f.nbins + (size_t)p->ncols, MPI_SUM);
        allreduce(f.kmin, f.nranges, MPI_MIN);
        allreduce(f.kmax, f.nranges, MPI_MAX);
        flat_copy(p, &f, 0);
        rc = gather_cands(p, n, &c, mc, e);
    }
    flat_free(&f);
    cands_free(&c);
    return rc;
}

engine_collective mpi_collective_of(mpi_collective *c)
{
    engine_collective ops = {whole, sum, c};
    return ops;
}
