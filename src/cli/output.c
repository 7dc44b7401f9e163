/* The report's assembly: the engine's result and the options' style
 * into report_write, written with one call. */
#include "src/cli/output.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "src/cli/exit_status.h"
#include "src/dist/state.h"
#include "src/report/report.h"

/* The width bars are drawn for: COLUMNS, else the terminal's, else 80;
 * never wider than MAX_WIDTH (COLUMNS=1000000000 must not build bars a
 * billion characters wide). */
enum { MAX_WIDTH = 1000 };

static int term_width(FILE *out)
{
    const char *env = getenv("COLUMNS");
    long w = env ? strtol(env, NULL, 10) : 0;
    struct winsize ws;
    if (w <= 0 && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0)
        w = ws.ws_col;
    if (w <= 0)
        w = 80;
    return w > MAX_WIDTH ? MAX_WIDTH : (int)w;
}

/* Whether the locale's charset (LC_ALL, LC_CTYPE, LANG) is UTF-8: asked
 * of the C library, then set back, so that nothing else runs in it. */
static int utf8_charset(void)
{
    const char *was = setlocale(LC_CTYPE, NULL);
    char *saved = was ? strdup(was) : NULL;
    int utf8 = 0;
    if (setlocale(LC_CTYPE, "")) {
        const char *cs = nl_langinfo(CODESET);
        utf8 = cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
    }
    setlocale(LC_CTYPE, saved ? saved : "C");
    free(saved);
    return utf8;
}

/* How the table looks: digits 15 unless --digits (TSV, CSV and JSON keep
 * the shortest form unless it is given); the layout, width and charset
 * of the terminal. */
static report_style style_for(const options *o)
{
    report_style st = {0};
    st.width = term_width(stdout);
    /* under --mpi, stdout is the launcher's (Open MPI gives each rank a
     * pseudo-terminal, wherever mpirun's own output goes): not known to be
     * a terminal, so the table is laid out as for a file */
    st.tty = !o->mpi && isatty(STDOUT_FILENO);
    st.layout = o->layout;
    st.digits = o->digits ? o->digits : o->format == FMT_TABLE ? 15 : 0;
    st.utf8 = utf8_charset();
    st.bigint_string = o->bigint_string;
    st.digits_given = o->digits != 0;
    return st;
}

/* One column of the report: its finalized statistics, histogram,
 * quantiles (the median first, then the list) and profile. */
static void fill_col(const options *o, const engine_column *c,
                     const col_summary *sum, const hist *h, const qres *q,
                     const prof_summary *prof, report_col *out)
{
    out->name = c->name;
    out->index = c->index;
    out->unit = c->unit;
    out->s = *sum;
    out->s.type = c->unit ? COL_NUMBER : c->kind; /* the kinds below units */
    out->h = (o->cfg.what & STAT_HIST) ? h : NULL;
    int median = (o->cfg.what & STAT_MEDIAN) != 0;
    out->median = median && q ? q : NULL;
    out->quant = q ? q + median : NULL;
    out->qf = o->cfg.quantiles;
    out->nquant = q && (o->cfg.what & STAT_QUANTILES) ? o->cfg.nquantiles : 0;
    out->kind = (col_kind)out->s.type;
    out->prof = prof;
    if (c->kind == COL_TEXT && prof) { /* no number was read */
        out->s.missing = prof->missing;
        out->s.invalid = out->s.nan = 0;
        out->h = NULL;
    }
}

/* The report's text while it is made: what precedes the groups (all of
 * it without pieces), the groups' pieces made on threads, what follows;
 * written in that order once every part exists. */
typedef struct report_text {
    tbuf head;
    struct group_piece *piece;
    size_t npiece;
    tbuf tail;
} report_text;

/* The report's groups, one at a time: a group's columns are finalized
 * as the writer comes to it, into room for one group. */
typedef struct group_cursor {
    const options *o;
    const engine_result *res;
    col_summary *sum;   /* [nheld] */
    prof_summary *prof; /* [nheld]: the group's profiles, when kept */
    report_col *cols;   /* [ncols] */
} group_cursor;

/* The last group's profiles freed. */
static void drop_profiles(const group_cursor *c)
{
    for (int h = 0; c->prof && h < c->res->groups->nheld; h++) {
        profile_summary_free(&c->prof[h]);
        memset(&c->prof[h], 0, sizeof c->prof[h]);
    }
}

static int next_group(void *ctx, size_t i, report_group *g)
{
    const group_cursor *c = ctx;
    const engine_groups *gs = c->res->groups;
    const engine_group *eg = &gs->g[i];
    drop_profiles(c);
    if (engine_group_finalize(gs, i, c->sum) ||
        engine_group_profiles(gs, i, c->sum, c->prof))
        return -1;
    for (int k = 0; k < c->res->ncols; k++) {
        int h = c->res->cols[k].held;
        fill_col(c->o, &c->res->cols[k], &c->sum[h], eg->h ? &eg->h[h] : NULL,
                 eg->q ? &eg->q[(size_t)h * gs->nq] : NULL,
                 eg->prof && gs->text ? &c->prof[h] : NULL, &c->cols[k]);
    }
    *g = (report_group){eg->key, eg->key_len, eg->rows, c->cols};
    return 0;
}

/* A cursor over res's groups with room for one group. -1: no memory
 * (close it still). */
static int cursor_open(group_cursor *c, const options *o,
                       const engine_result *res)
{
    const engine_groups *gs = res->groups;
    *c = (group_cursor){o, res, calloc((size_t)gs->nheld + 1, sizeof *c->sum),
                        calloc((size_t)gs->nheld + 1, sizeof *c->prof),
                        calloc((size_t)res->ncols + 1, sizeof *c->cols)};
    return c->sum && c->prof && c->cols ? 0 : -1;
}

static void cursor_close(group_cursor *c)
{
    if (c->prof)
        drop_profiles(c);
    free(c->prof);
    free(c->sum);
    free(c->cols);
}

static report_groups groups_of(const options *o, const engine_result *res,
                               group_cursor *c)
{
    return (report_groups){res->groups->n, next_group, c,
                           (o->cfg.what & STAT_TOP) ? o->cfg.top : 0};
}

/* Groups [first, last)' text, made on a thread of its own: each group's
 * columns finalized and written there (a million groups' report took
 * most of a 16-core run on one thread). */
typedef struct group_piece {
    const options *o;
    const engine_result *res;
    const report_style *st;
    size_t first, last;
    tbuf text;
    int bad;
    pthread_t th;
} group_piece;

static void *piece_main(void *arg)
{
    group_piece *p = arg;
    const engine_groups *gs = p->res->groups;
    group_cursor c;
    p->bad = cursor_open(&c, p->o, p->res);
    if (!p->bad) {
        report_groups src = groups_of(p->o, p->res, &c);
        p->bad =
            report_groups_range(&p->text, p->o->format, p->o->cfg.what,
                                (const char *const *)gs->names, gs->nkeys, &src,
                                p->first, p->last, p->res->ncols, p->st);
    }
    cursor_close(&c);
    return NULL;
}

/* Fewer groups are written on the main thread alone. */
#define GROUP_PIECE_MIN 4096

static size_t pieces_for(const options *o, size_t n)
{
    size_t threads =
        (size_t)(o->cfg.threads > 0 ? o->cfg.threads : engine_cores());
    size_t k = n / GROUP_PIECE_MIN;
    return k < threads ? k : threads;
}

/* The groups' text in pieces, one a thread, kept in t in their order.
 * -1: no memory, or a piece failed. */
static int write_pieces(const options *o, const engine_result *res,
                        report_text *t, const report_style *st, size_t k)
{
    size_t n = res->groups->n;
    group_piece *p = calloc(k, sizeof *p);
    if (!p)
        return -1;
    size_t started = 0;
    for (; started < k; started++) {
        p[started] =
            (group_piece){.o = o,
                          .res = res,
                          .st = st,
                          .first = n / k * started,
                          .last = started + 1 == k ? n : n / k * (started + 1)};
        if (pthread_create(&p[started].th, NULL, piece_main, &p[started]))
            break;
    }
    int bad = started < k;
    for (size_t i = 0; i < started; i++) {
        pthread_join(p[i].th, NULL);
        bad |= p[i].bad;
    }
    t->piece = p;
    t->npiece = started;
    return bad ? -1 : 0;
}

static void text_free(report_text *t)
{
    for (size_t i = 0; i < t->npiece; i++)
        tbuf_free(&t->piece[i].text);
    free(t->piece);
    tbuf_free(&t->head);
    tbuf_free(&t->tail);
}

/* --group-by: every group's columns, as the columns of a run are. */
static int write_groups(const options *o, const engine_result *res,
                        report_text *t, const report_style *st)
{
    const engine_groups *gs = res->groups;
    const char *const *names = (const char *const *)gs->names;
    group_cursor c;
    if (cursor_open(&c, o, res)) {
        cursor_close(&c);
        return -1;
    }
    report_groups src = groups_of(o, res, &c);
    size_t k = pieces_for(o, gs->n);
    int bad;
    if (k < 2)
        bad = report_write_groups(&t->head, o->format, o->cfg.what, res->rows,
                                  names, gs->nkeys, &src, res->ncols, st);
    else {
        bad = report_groups_head(&t->head, o->format, o->cfg.what, res->rows,
                                 names, gs->nkeys, &src, res->ncols, st) ||
              write_pieces(o, res, t, st, k);
        if (!bad)
            report_groups_tail(&t->tail, o->format, &src);
        bad = bad || t->tail.bad;
    }
    cursor_close(&c);
    return bad ? -1 : 0;
}

/* Without groups: report_write through a stream on t's head. */
static int write_columns(const options *o, const engine_result *res,
                         report_text *t, const report_style *st)
{
    report_col *cols = calloc((size_t)res->ncols + 1, sizeof *cols);
    FILE *m = cols ? tbuf_file(&t->head) : NULL;
    if (!m) {
        free(cols);
        return -1;
    }
    for (int k = 0; k < res->ncols; k++)
        fill_col(o, &res->cols[k], &res->cols[k].sum, res->cols[k].h,
                 res->cols[k].q, res->cols[k].prof, &cols[k]);
    int bad = report_write(m, o->format, o->cfg.what, res->rows, cols,
                           res->ncols, st);
    free(cols);
    bad |= fclose(m);
    return bad || t->head.bad ? -1 : 0;
}

static int put_all(const tbuf *b)
{
    return fwrite(b->p ? b->p : "", 1, b->len, stdout) == b->len;
}

/* t's text to standard output: its head, its pieces, its tail. */
static int write_text(const report_text *t, cs_error *e)
{
    int ok = put_all(&t->head);
    for (size_t i = 0; ok && i < t->npiece; i++)
        ok = put_all(&t->piece[i].text);
    ok = ok && put_all(&t->tail);
    if (!ok && errno != EPIPE)
        return cs_fail(e, CS_EDATA, "", 0, "write error: %s", strerror(errno));
    return stdout_done(e);
}

/* The report is built in memory and written with one call, so a reader
 * never sees half of it followed by an error. Closing stdout early
 * (| head) is not an error. */
int write_result(const options *o, const engine_result *res, cs_error *e)
{
    report_style st = style_for(o);
    report_text t = {0};
    int bad = res->groups ? write_groups(o, res, &t, &st)
                          : write_columns(o, res, &t, &st);
    int rc = bad ? cs_fail(e, CS_ENOMEM, "", 0, "out of memory for the report")
                 : write_text(&t, e);
    text_free(&t);
    return rc;
}

int write_state_as(const options *o, const state_info *info,
                   const engine_result *res, cs_error *e)
{
    const char *path = o->state_path;
    FILE *f = path ? fopen(path, "wb") : stdout;
    int rc = CS_OK;
    if (!info->key)
        rc = cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    else if (!f)
        rc = cs_fail(e, CS_EDATA, path, 0, "cannot open: %s", strerror(errno));
    else
        rc = state_write(f, info, res, e);
    if (f && path && fclose(f) && rc == CS_OK)
        rc = cs_fail(e, CS_EDATA, path, 0, "write error: %s", strerror(errno));
    return rc;
}

int write_state(const options *o, const engine_result *res, cs_error *e)
{
    state_info info = {.key = state_key(&o->cfg),
                       .what = o->cfg.what,
                       .part_lo = (uint32_t)o->part_k,
                       .part_hi = (uint32_t)o->part_k,
                       .part_n = (uint32_t)o->part_n};
    int rc = write_state_as(o, &info, res, e);
    free(info.key);
    return rc;
}
