#include "src/dist/speculate.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv/csv_grammar.h"

/* The state guessed at a cut where no boundary is proven near it: inside
 * an unquoted field, so that the first line end after it ends a record
 * (most cuts of most files). */
#define SPEC_GUESS CSV_G_UNQ

/* The guessed boundary at byte x of a CSV input: the data's start where x
 * is not past it (the part after begins there too); else the first place
 * in the window after x where the parses from every state at x have met
 * between records (right whatever the state at x: a cut inside a quoted
 * field with line breaks is no miss); else after the first line end read
 * in the guessed state (a file without quotes never proves one). */
static int guess_at(const char *path, const split_input *in, uint64_t x,
                    size_t window, uint64_t *at, cs_error *e)
{
    uint64_t lfs = 0;
    int found = 0;
    if (x <= in->bom) { /* as split_parts: 0 stays, the mark is skipped */
        *at = x ? in->bom : 0;
        return CS_OK;
    }
    if (window &&
        split_common_boundary(path, in, x, window, at, &found, e) != CS_OK)
        return CS_EDATA;
    int state = SPEC_GUESS;
    return found ? CS_OK : split_boundary(path, in, x, &state, at, &lfs, e);
}

static int guess_part(const char *path, const split_input *in, uint64_t x0,
                      uint64_t x1, size_t window, engine_part *p, cs_error *e)
{
    *p = (engine_part){0, 0, 1};
    if (guess_at(path, in, x0, window, &p->lo, e) != CS_OK)
        return CS_EDATA;
    if (x0 > in->bom)
        p->line = SPEC_LINE_BASE + 1;
    p->hi = in->size;
    if (x1 < in->size && guess_at(path, in, x1, window, &p->hi, e) != CS_OK)
        return CS_EDATA;
    return CS_OK;
}

int spec_guess(const char *const *paths, const split_input *in, int nin,
               const uint64_t *x0, const uint64_t *x1, size_t window,
               engine_part *parts, cs_error *e)
{
    for (int i = 0; i < nin; i++) {
        engine_part *p = &parts[i];
        *p = (engine_part){x0[i], x1[i], 1};
        if (x0[i] == x1[i])
            *p = (engine_part){0, 0, 1};
        else if (in[i].kind == SPLIT_CSV &&
                 guess_part(paths[i], &in[i], x0[i], x1[i], window, p, e) !=
                     CS_OK)
            return CS_EDATA;
        /* an empty CSV part keeps its guessed place, to be checked */
        if (p->lo >= p->hi && in[i].kind != SPLIT_CSV)
            *p = (engine_part){0, 0, 1};
    }
    return CS_OK;
}

struct spec_tail {
    pthread_t th;
    int started;
    const char *const *paths;
    const split_input *in;
    int nin, nthreads;
    const uint64_t *x0, *x1;
    split_tail tail;
    cs_error e;
    int rc;
};

static void *make_tail(void *arg)
{
    spec_tail *t = arg;
    t->rc = split_tail_make(t->paths, t->in, t->nin, t->x0, t->x1, t->nthreads,
                            &t->tail, &t->e);
    return NULL;
}

int spec_tail_start(const char *const *paths, const split_input *in, int nin,
                    const uint64_t *x0, const uint64_t *x1, int nthreads,
                    spec_tail **out, cs_error *e)
{
    spec_tail *t = *out = calloc(1, sizeof *t);
    if (!t)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    *t = (spec_tail){.paths = paths,
                     .in = in,
                     .nin = nin,
                     .nthreads = nthreads,
                     .x0 = x0,
                     .x1 = x1};
    t->started = !pthread_create(&t->th, NULL, make_tail, t);
    if (!t->started) /* no thread: the summary before the parse, as planned */
        make_tail(t);
    return CS_OK;
}

int spec_tail_join(spec_tail *t, split_tail *tail, cs_error *e)
{
    if (t->started)
        pthread_join(t->th, NULL);
    *tail = t->tail;
    int rc = t->rc;
    if (rc != CS_OK)
        *e = t->e;
    free(t);
    return rc;
}

/* The boundary of a cut at x, whose byte is read in state, given the
 * guess at: the guess where the right parse is between records there (a
 * cut at a record's start or inside a CRLF keeps it), else the first
 * place between records after x; the LFs of [x, *right) added to *lfs.
 * Both ranks at a cut decide alike, from the same bytes and state. */
static int right_at(const char *path, const split_input *in, uint64_t x,
                    uint64_t at, int state, uint64_t *right, uint64_t *lfs,
                    cs_error *e)
{
    csv_summary s;
    *right = at;
    if (x <= in->bom) /* the data's start, nothing guessed */
        return CS_OK;
    if (split_summarize(path, in, x, at, 1, &s, e) != CS_OK)
        return CS_EDATA;
    if (s.end[state] == CSV_G_ROW) {
        *lfs += s.lfs;
        return CS_OK;
    }
    return split_boundary(path, in, x, &state, right, lfs, e);
}

static int right_part(const char *path, const split_input *in, uint64_t x0,
                      uint64_t x1, const split_tail *tails, int rank, int i,
                      engine_part *p, cs_error *e)
{
    int state = csv_start_state();
    uint64_t lfs = 0, ignored = 0;
    if (x0 > in->bom) {
        split_state_at(tails, rank, i, &state, &lfs);
        if (right_at(path, in, x0, p->lo, state, &p->lo, &lfs, e) != CS_OK)
            return CS_EDATA;
        p->line = 1 + lfs;
    }
    if (x1 >= in->size)
        return CS_OK;
    /* the end: the state there from this rank's own tail */
    return right_at(path, in, x1, p->hi, tails[rank].s.end[state], &p->hi,
                    &ignored, e);
}

int spec_check(const char *const *paths, const split_input *in, int nin,
               const uint64_t *x0, const uint64_t *x1, const split_tail *tails,
               int rank, const engine_part *guessed, engine_part *right,
               int *held, uint64_t *line, cs_error *e)
{
    *held = 1;
    *line = 1;
    for (int i = 0; i < nin; i++) {
        engine_part *p = &right[i];
        *p = guessed[i];
        if (x0[i] == x1[i] || in[i].kind != SPLIT_CSV)
            continue;
        if (right_part(paths[i], &in[i], x0[i], x1[i], tails, rank, i, p, e) !=
            CS_OK)
            return CS_EDATA;
        if (x0[i] > in[i].bom)
            *line = p->line;
        *held &= p->lo == guessed[i].lo && p->hi == guessed[i].hi;
    }
    return CS_OK;
}

uint64_t spec_line(uint64_t reported, uint64_t first)
{
    return reported > SPEC_LINE_BASE ? reported - SPEC_LINE_BASE - 1 + first
                                     : reported;
}
