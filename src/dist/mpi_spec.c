/* --mpi's speculation over MPI (speculate.h): the engine asks for this
 * rank's parts and gets guesses, runs at once, and the summaries made
 * beside it are exchanged (MPI_Allgather) and the guesses checked after
 * it (MPI_Allreduce); a rank whose guess missed runs again, alone, or with
 * every rank where the run involved them all (a pass after the input, an
 * error). */
#include "src/dist/mpi_spec.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/binary/binary_reader.h"
#include "src/dist/mpi_collective.h"
#include "src/dist/speculate.h"

/* This rank's plan: the split of the inputs, its guessed parts, the
 * summary of its tail on the way (speculate.h). */
typedef struct plan {
    int n, made;
    split_input *in;
    uint64_t *x0, *x1;
    engine_part *parts;
    spec_tail *tail; /* started, not yet joined */
} plan;

static void plan_free(plan *p)
{
    free(p->in);
    free(p->x0);
    free(p->x1);
}

/* The split of cfg's inputs over the ranks: this rank's ranges. */
static int plan_split(const engine_config *cfg, mpi_rank w, plan *p,
                      cs_error *e)
{
    int n = p->n = cfg->nfiles;
    binary_spec spec = {0};
    plan_free(p); /* a second try, after a first that failed */
    free(p->parts);
    csv_dialect base = {.delim = cfg->delim,
                        .header = cfg->header,
                        .whitespace = cfg->whitespace,
                        .num = cfg->num};
    p->in = calloc((size_t)n, sizeof *p->in);
    p->x0 = calloc((size_t)n, sizeof *p->x0);
    p->x1 = calloc((size_t)n, sizeof *p->x1);
    p->parts = calloc((size_t)n, sizeof *p->parts);
    int rc = p->in && p->x0 && p->x1 && p->parts
                 ? CS_OK
                 : cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    if (rc == CS_OK && cfg->binary)
        rc = binary_spec_parse(cfg->binary, &spec, e);
    for (int i = 0; rc == CS_OK && i < n; i++)
        rc = split_probe(cfg->files[i], spec.record_size, &base, &p->in[i], e);
    if (rc == CS_OK)
        split_ranges(p->in, n, w.n, w.rank, cfg->hooks.mpi_cuts, p->x0, p->x1);
    p->made = rc == CS_OK;
    return rc;
}

/* The split, the guessed parts, and the tail's summary started. */
static int plan_guess(const engine_config *cfg, mpi_rank w, plan *p,
                      cs_error *e)
{
    int rc = plan_split(cfg, w, p, e);
    if (rc == CS_OK)
        rc = spec_guess(cfg->files, p->in, p->n, p->x0, p->x1,
                        cfg->hooks.mpi_guess_line ? 0 : SPEC_WINDOW, p->parts,
                        e);
    if (rc == CS_OK)
        rc = spec_tail_start(cfg->files, p->in, p->n, p->x0, p->x1, w.threads,
                             &p->tail, e);
    return rc;
}

/* The engine's share callback (engine_share): this rank's guessed parts,
 * found while its GPU, if any, opens. */
typedef struct planner {
    const engine_config *cfg;
    const engine_sink *sink; /* the one the engine says through */
    mpi_rank w;
    plan p;
    int asked;
} planner;

static void say(const planner *pl, const char *text)
{
    char marked[300];
    snprintf(marked, sizeof marked, "%s%s", pl->w.rank ? "" : "--mpi: ", text);
    pl->sink->say(pl->sink->ctx, ENGINE_VERBOSE, "", 0, marked);
}

static void say_planned(const planner *pl, double seconds)
{
    char text[200];
    int cores = engine_cores();
    snprintf(text, sizeof text,
             "%d ranks; this rank's share guessed in %.3f s; it may run on "
             "%d core%s",
             pl->w.n, seconds, cores, cores == 1 ? "" : "s");
    say(pl, text);
}

static int plan_parts(void *ctx, int well, const engine_part **parts,
                      cs_error *e)
{
    planner *pl = ctx;
    double t0 = MPI_Wtime();
    pl->asked = 1;
    *parts = NULL;
    if (!well)
        return CS_EDATA;
    int rc = plan_guess(pl->cfg, pl->w, &pl->p, e);
    if (rc == CS_OK && pl->cfg->verbose)
        say_planned(pl, MPI_Wtime() - t0);
    *parts = rc == CS_OK ? pl->p.parts : NULL; /* else made again, later */
    return rc;
}

/* The collective, counting whether the run used it (a pass after the
 * input): a missed guess then has every rank parse again. */
typedef struct counted {
    engine_collective to;
    int used;
} counted;

static int count_whole(void *ctx, int ncols, const col_stats *st,
                       col_stats *all, cs_error *e)
{
    counted *c = ctx;
    c->used = 1;
    return c->to.whole(c->to.ctx, ncols, st, all, e);
}

static int count_sum(void *ctx, struct pass_plan *plan, cs_error *e)
{
    counted *c = ctx;
    c->used = 1;
    return c->to.sum(c->to.ctx, plan, e);
}

/* One run of the engine over parts (NULL: the share callback's), with
 * every rank (collective) or alone; *others set where the first error in
 * input order is another rank's. */
static int run_once(const engine_config *c, const engine_sink *says,
                    const engine_share *share, const engine_part *parts,
                    int collective, engine **eng, engine_result *r, int *used,
                    int *others, cs_error *e)
{
    engine_config cc = *c;
    engine_mpi m = *c->mpi;
    mpi_collective mc = {0, 0};
    counted ct = {mpi_collective_of(&mc), 0};
    engine_collective all = {count_whole, count_sum, &ct};
    cc.mpi = &m;
    m.share = share;
    m.parts = parts;
    m.collective = collective ? &all : NULL;
    memset(r, 0, sizeof *r);
    int rc = engine_run(&cc, says, eng, r, e);
    if (collective)
        mpi_collective_close(&mc, rc == CS_OK);
    *used = ct.used;
    *others = mc.others;
    return rc;
}

/* What a rank tells the others once its guessed share is parsed. */
typedef struct word {
    split_tail t;
    int32_t ok;     /* t made */
    int32_t failed; /* the run failed */
    int32_t used;   /* the run used the collective */
} word;

/* How long the parse's end waited for the tail's summary: where it is
 * long, the summary and not the parse bounds the rank. */
static void say_tail(const planner *pl, double seconds)
{
    char text[200];
    snprintf(text, sizeof text,
             "the share's tail summarised on %d thread%s; the parse's end "
             "waited %.3f s for it",
             pl->w.threads, pl->w.threads == 1 ? "" : "s", seconds);
    say(pl, text);
}

/* This rank's word: its tail joined, or made now where the run ended
 * before the guess (the others need it all the same). */
static word own_word(planner *pl, int failed, int used, cs_error *why)
{
    word w;
    memset(&w, 0, sizeof w);
    w.t.input = -1;
    plan *p = &pl->p;
    int rc = CS_OK;
    double t0 = MPI_Wtime();
    if (p->tail) {
        rc = spec_tail_join(p->tail, &w.t, why);
        if (pl->cfg->verbose && w.t.input >= 0)
            say_tail(pl, MPI_Wtime() - t0);
    } else if (p->made || plan_split(pl->cfg, pl->w, p, why) == CS_OK)
        rc = split_tail_make(pl->cfg->files, p->in, p->n, p->x0, p->x1,
                             pl->w.threads, &w.t, why);
    else
        rc = why->status;
    p->tail = NULL;
    w.ok = rc == CS_OK;
    w.failed = failed;
    w.used = used;
    return w;
}

/* The guess checked against every rank's tail: *held (every rank's in
 * *all_held), *line where the guessed first input starts; *redo: this
 * rank parses again, with every rank at once (*together). parts: the
 * right parts where it does. */
typedef struct verdict {
    int held, all_held, redo, together, parts_rc;
    uint64_t line;
    engine_part *parts;
    cs_error why; /* parts_rc's */
} verdict;

static void check_guess(planner *pl, const word *words, verdict *v)
{
    int ok = 1, failed = 0, used = 0;
    split_tail *tails = calloc((size_t)pl->w.n, sizeof *tails);
    memset(v, 0, sizeof *v);
    v->held = 1;
    v->line = 1;
    for (int r = 0; r < pl->w.n; r++) {
        ok &= words[r].ok;
        failed |= words[r].failed;
        used |= words[r].used;
        if (tails)
            tails[r] = words[r].t;
    }
    size_t n = (size_t)(pl->p.n > 0 ? pl->p.n : 1);
    v->parts = tails ? calloc(n, sizeof *v->parts) : NULL;
    v->parts_rc =
        v->parts ? CS_OK : cs_fail(&v->why, CS_ENOMEM, "", 0, "out of memory");
    /* without every tail nothing can be checked: as it stands */
    if (v->parts && ok && pl->p.made)
        v->parts_rc = spec_check(pl->cfg->files, pl->p.in, pl->p.n, pl->p.x0,
                                 pl->p.x1, tails, pl->w.rank, pl->p.parts,
                                 v->parts, &v->held, &v->line, &v->why);
    v->held &= v->parts_rc == CS_OK;
    MPI_Allreduce(&v->held, &v->all_held, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    v->together = !v->all_held && (failed || used);
    v->redo = !v->all_held && (!v->held || v->together);
    if (!v->redo) {
        free(v->parts);
        v->parts = NULL;
    }
    free(tails);
}

/* The lines the engine reported from the guessed start, made physical. */
static void fix_lines(engine_result *r, uint64_t line, cs_error *e)
{
    e->line = spec_line(e->line, line);
    r->repeat_line = spec_line(r->repeat_line, line);
    for (int k = 0; k < r->ncols; k++)
        r->cols[k].invalid_line = spec_line(r->cols[k].invalid_line, line);
}

static void say_verdict(const planner *pl, const verdict *v, double seconds)
{
    char text[200];
    if (!pl->cfg->verbose)
        return;
    if (!v->redo) /* then every rank's guesses held */
        snprintf(text, sizeof text,
                 "speculation held: the share's guessed boundaries are right");
    else
        snprintf(text, sizeof text,
                 "speculation %s: the share parsed again in %.3f s",
                 v->held ? "missed in another rank's share" : "missed",
                 seconds);
    say(pl, text);
}

/* After the guessed run: the words exchanged, the guess checked, and
 * where it missed, the share parsed again (every rank where a pass after
 * the input or an error involved every rank). */
static int settle(planner *pl, const engine_config *c, const engine_sink *says,
                  int rc, int used, engine **eng, engine_result *r, int *others,
                  engine_part **right, cs_error *e)
{
    cs_error why = {0};
    word own = own_word(pl, rc != CS_OK, used, &why), *words;
    if (!own.ok && rc == CS_OK) { /* its guess cannot be checked */
        *e = why;
        rc = why.status ? why.status : CS_EDATA;
        own.failed = 1;
    }
    words = calloc((size_t)pl->w.n, sizeof *words);
    MPI_Allgather(&own, sizeof own, MPI_BYTE, words, words ? sizeof own : 0,
                  MPI_BYTE, MPI_COMM_WORLD);
    verdict v;
    int known = words != NULL, all_known = 0;
    MPI_Allreduce(&known, &all_known, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_known) { /* out of memory somewhere: nothing checked */
        free(words);
        return rc == CS_OK ? cs_fail(e, CS_ENOMEM, "", 0, "out of memory") : rc;
    }
    check_guess(pl, words, &v);
    free(words);
    double t0 = MPI_Wtime();
    if (!v.redo) {
        fix_lines(r, v.line, e);
    } else if (v.parts_rc == CS_OK) {
        engine_close(*eng);
        engine_result_free(r);
        *eng = NULL;
        memset(e, 0, sizeof *e); /* the guessed run's error is void */
        rc = run_once(c, says, NULL, v.parts, v.together, eng, r, &used, others,
                      e);
    } else { /* failed: the others hear of it in the run's closing round */
        mpi_collective mc = {0, 0};
        if (v.together)
            mpi_collective_close(&mc, 0);
        *e = v.why;
        *others = 0;
        rc = e->status;
    }
    say_verdict(pl, &v, MPI_Wtime() - t0);
    *right = v.parts; /* the run's until it is closed */
    return rc;
}

int mpi_spec_run(const engine_config *c, const engine_sink *says, mpi_rank me,
                 engine **eng, engine_result *r, int *others,
                 mpi_spec_parts *keep, cs_error *e)
{
    planner pl = {.cfg = c, .sink = says, .w = me};
    engine_share share = {plan_parts, &pl};
    int used = 0;
    int rc = run_once(c, says, &share, NULL, 1, eng, r, &used, others, e);
    rc = settle(&pl, c, says, rc, used, eng, r, others, &keep->right, e);
    keep->guessed = pl.p.parts;
    plan_free(&pl.p);
    return rc;
}

void mpi_spec_free(mpi_spec_parts *keep)
{
    free(keep->guessed);
    free(keep->right);
}
