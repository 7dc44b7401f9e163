/* The report's assembly: the engine's result and the options' style
 * into report_write, written with one call. */
#include "src/cli/output.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdio_ext.h>
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

/* A memory stream one thread alone writes: its calls take no lock (a
 * million groups' report makes a hundred million of them). */
static FILE *unlocked(FILE *m)
{
    if (m)
        __fsetlocking(m, FSETLOCKING_BYCALLER);
    return m;
}

/* A report's text while it is made: a memory stream grows by copying
 * into a buffer twice the size and zeroing the rest (glibc's), so that a
 * million groups' 460 MB of JSON held 780 MB at its last step; the
 * stream's bytes are moved here every GROUP_TEXT_STEP groups instead,
 * into a buffer that realloc grows in place. */
typedef struct report_text {
    FILE *m;
    char *const *mtext; /* the stream's buffer and size, after fflush */
    const size_t *msize;
    char *buf;
    size_t len, cap;
    /* the groups' pieces made on threads (group_piece), written after buf
       and before the stream's last bytes */
    struct group_piece *piece;
    size_t npiece;
} report_text;

#define GROUP_TEXT_STEP 256

static int text_append(report_text *t, const char *p, size_t n)
{
    if (!n) /* nothing, maybe into no buffer yet */
        return 0;
    if (n > t->cap - t->len) {
        size_t cap = t->cap ? t->cap : (size_t)1 << 20;
        while (n > cap - t->len)
            cap *= 2;
        char *b = realloc(t->buf, cap);
        if (!b)
            return -1;
        t->buf = b;
        t->cap = cap;
    }
    memcpy(t->buf + t->len, p, n);
    t->len += n;
    return 0;
}

/* The stream's bytes appended, the stream started again at its start
 * (its size is then what is written after: POSIX's open_memstream). */
static int text_take(report_text *t)
{
    if (fflush(t->m) || text_append(t, *t->mtext, *t->msize))
        return -1;
    return fseek(t->m, 0, SEEK_SET) ? -1 : 0;
}

/* The report's groups, one at a time: a group's columns are finalized
 * as the writer comes to it, into room for one group. */
typedef struct group_cursor {
    const options *o;
    const engine_result *res;
    col_summary *sum;   /* [nheld] */
    prof_summary *prof; /* [nheld]: the group's profiles, when kept */
    report_col *cols;   /* [ncols] */
    report_text *text;
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
    if (i && i % GROUP_TEXT_STEP == 0 && text_take(c->text))
        return -1;
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

/* A cursor over res's groups with room for one group, its text drained
 * into t. -1: no memory (closed). */
static int cursor_open(group_cursor *c, const options *o,
                       const engine_result *res, report_text *t)
{
    const engine_groups *gs = res->groups;
    *c = (group_cursor){o,
                        res,
                        calloc((size_t)gs->nheld + 1, sizeof *c->sum),
                        calloc((size_t)gs->nheld + 1, sizeof *c->prof),
                        calloc((size_t)res->ncols + 1, sizeof *c->cols),
                        t};
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

/* The text a stream made, after the bytes drained from it (t's buffer):
 * into *text, *size (malloc'ed); the stream closed. -1: no memory. */
static int text_finish(report_text *t, char **text, size_t *size)
{
    int bad = fclose(t->m);
    t->m = NULL;
    if (!bad && t->buf) { /* the stream's last bytes after the rest */
        bad = text_append(t, *text, *size);
        free(*text);
        *text = t->buf;
        *size = t->len;
        t->buf = NULL;
        t->len = t->cap = 0;
    }
    return bad ? -1 : 0;
}

/* Groups [first, last)' text, made on a thread of its own: each group's
 * columns finalized and written there (a million groups' report took
 * most of a 16-core run on one thread). */
typedef struct group_piece {
    const options *o;
    const engine_result *res;
    const report_style *st;
    size_t first, last;
    char *text;
    size_t len;
    int bad;
    pthread_t th;
} group_piece;

static void *piece_main(void *arg)
{
    group_piece *p = arg;
    const engine_groups *gs = p->res->groups;
    FILE *m = unlocked(open_memstream(&p->text, &p->len));
    report_text t = {m, &p->text, &p->len, NULL, 0, 0, NULL, 0};
    group_cursor c;
    p->bad = !m || cursor_open(&c, p->o, p->res, &t);
    if (!p->bad) {
        report_groups src = groups_of(p->o, p->res, &c);
        p->bad = report_groups_range(
            m, p->o->format, p->o->cfg.what, (const char *const *)gs->names,
            gs->nkeys, &src, p->first, p->last, p->res->ncols, p->st);
    }
    if (m)
        cursor_close(&c);
    if (m && text_finish(&t, &p->text, &p->len))
        p->bad = 1;
    free(t.buf);
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
        p[started] = (group_piece){o,
                                   res,
                                   st,
                                   n / k * started,
                                   started + 1 == k ? n : n / k * (started + 1),
                                   NULL,
                                   0,
                                   0,
                                   0};
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

static void pieces_free(report_text *t)
{
    for (size_t i = 0; i < t->npiece; i++)
        free(t->piece[i].text);
    free(t->piece);
    t->piece = NULL;
    t->npiece = 0;
}

/* --group-by: every group's columns, as the columns of a run are. */
static int write_groups(const options *o, const engine_result *res,
                        report_text *t, const report_style *st)
{
    const engine_groups *gs = res->groups;
    const char *const *names = (const char *const *)gs->names;
    group_cursor c;
    if (cursor_open(&c, o, res, t)) {
        cursor_close(&c);
        return -1;
    }
    report_groups src = groups_of(o, res, &c);
    size_t k = pieces_for(o, gs->n);
    int bad;
    if (k < 2)
        bad = report_write_groups(t->m, o->format, o->cfg.what, res->rows,
                                  names, gs->nkeys, &src, res->ncols, st);
    else {
        bad = report_groups_head(t->m, o->format, o->cfg.what, res->rows, names,
                                 gs->nkeys, &src, res->ncols, st) ||
              text_take(t) || write_pieces(o, res, t, st, k);
        if (!bad)
            report_groups_tail(t->m, o->format, &src);
    }
    cursor_close(&c);
    return bad ? -1 : 0;
}

/* t's text to standard output: its drained bytes, its pieces, the
 * stream's last bytes (text), in that order. */
static int write_text(const report_text *t, const char *text, size_t size,
                      cs_error *e)
{
    int ok = fwrite(t->buf ? t->buf : "", 1, t->len, stdout) == t->len;
    for (size_t i = 0; ok && i < t->npiece; i++)
        ok = fwrite(t->piece[i].text, 1, t->piece[i].len, stdout) ==
             t->piece[i].len;
    ok = ok && fwrite(text, 1, size, stdout) == size;
    if (!ok && errno != EPIPE)
        return cs_fail(e, CS_EDATA, "", 0, "write error: %s", strerror(errno));
    return stdout_done(e);
}

/* The report is built in memory and written with one call, so a reader
 * never sees half of it followed by an error. Closing stdout early
 * (| head) is not an error. */
int write_result(const options *o, const engine_result *res, cs_error *e)
{
    report_col *cols = calloc((size_t)res->ncols + 1, sizeof *cols);
    char *text = NULL;
    size_t size = 0;
    FILE *m = cols ? unlocked(open_memstream(&text, &size)) : NULL;
    if (!m) {
        free(cols);
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    }
    for (int k = 0; k < res->ncols; k++)
        fill_col(o, &res->cols[k], &res->cols[k].sum, res->cols[k].h,
                 res->cols[k].q, res->cols[k].prof, &cols[k]);
    report_style st = style_for(o);
    report_text t = {m, &text, &size, NULL, 0, 0, NULL, 0};
    int bad = res->groups ? write_groups(o, res, &t, &st)
                          : report_write(m, o->format, o->cfg.what, res->rows,
                                         cols, res->ncols, &st);
    free(cols);
    /* the drained bytes stay first when pieces follow them */
    if (t.npiece) {
        bad |= fclose(m);
        t.m = NULL;
    } else
        bad |= text_finish(&t, &text, &size);
    int rc = bad ? cs_fail(e, CS_ENOMEM, "", 0, "out of memory for the report")
                 : write_text(&t, text, size, e);
    free(t.buf);
    pieces_free(&t);
    free(text);
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
