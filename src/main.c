/* colstat: per-column statistics of CSV, gzip CSV and binary numbers.
 * main is the one place that prints: the result, errors, and the engine's
 * warnings, -v lines and progress (through its sink). It chooses the exit
 * status. */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "src/dist/merge.h"
#include "src/dist/mpi_run.h"
#include "src/dist/state.h"
#include "src/engine/engine.h"
#include "src/options.h"
#include "src/report/report.h"

/* Seconds between progress lines that go to a file or a pipe. */
#define PLAIN_EVERY 2

/* Messages wait until the result is written (or an error is), so stderr
 * reads in the order things happened and never interrupts a table;
 * progress alone is shown at once. */
typedef struct messages {
    char *text;
    size_t len;
    FILE *buf; /* open_memstream over text */
    int progress_shown;
    int progress_tty; /* progress redraws one line, else a line each */
    time_t last_line; /* of the plain lines: one each PLAIN_EVERY seconds */
} messages;

/* Bytes of the well-formed UTF-8 sequence at s (RFC 3629: no overlongs,
 * no surrogates, nothing past U+10FFFF), or 0. */
static size_t utf8_seq(const unsigned char *s)
{
    size_t len = s[0] >= 0xC2 && s[0] <= 0xDF   ? 2
                 : s[0] >= 0xE0 && s[0] <= 0xEF ? 3
                 : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4
                                                : 0;
    unsigned lo = s[0] == 0xE0 ? 0xA0 : s[0] == 0xF0 ? 0x90 : 0x80;
    unsigned hi = s[0] == 0xED ? 0x9F : s[0] == 0xF4 ? 0x8F : 0xBF;
    if (len == 0 || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    return len;
}

/* Every message is one line, whatever a file name, a field or an option
 * holds: control bytes print as \n, \r, \t or \xNN, and so do bytes that
 * are not UTF-8. The one place user text reaches the terminal. */
static void put_escaped(FILE *f, const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    while (*s) {
        size_t len = *s >= 0x80 ? utf8_seq(s) : 0;
        if (len) {
            fwrite(s, 1, len, f);
            s += len;
        } else if (*s == '\n' || *s == '\r' || *s == '\t') {
            fputs(*s == '\n' ? "\\n" : *s == '\r' ? "\\r" : "\\t", f);
            s++;
        } else if (*s < 0x20 || *s >= 0x7F) {
            fprintf(f, "\\x%02X", *s);
            s++;
        } else {
            putc(*s++, f);
        }
    }
}

static void print_located(FILE *f, const char *file, unsigned long long line,
                          const char *text)
{
    fputs("colstat: ", f);
    if (file[0]) {
        put_escaped(f, file);
        if (line)
            fprintf(f, ":%llu", line);
        fputs(": ", f);
    }
    put_escaped(f, text);
    putc('\n', f);
}

static void say(void *ctx, engine_msg kind, const char *file, uint64_t line,
                const char *text)
{
    messages *m = ctx;
    if (kind == ENGINE_PROGRESS || kind == ENGINE_PROGRESS_END) {
        /* a log or a pipe gets plain lines, fewer: no \r, no escapes */
        time_t now = time(NULL);
        if (!m->progress_tty && kind == ENGINE_PROGRESS &&
            now - m->last_line >= PLAIN_EVERY) {
            fputs("colstat: ", stderr);
            put_escaped(stderr, text);
            putc('\n', stderr);
            m->last_line = now;
        } else if (m->progress_tty) {
            fputs(kind == ENGINE_PROGRESS ? "\rcolstat: " : "\r\033[K", stderr);
            if (kind == ENGINE_PROGRESS)
                put_escaped(stderr, text);
        }
        fflush(stderr);
        return;
    }
    print_located(m->buf ? m->buf : stderr, file, line, text);
}

static void flush_messages(messages *m)
{
    if (!m->buf)
        return;
    fclose(m->buf);
    m->buf = NULL;
    fwrite(m->text, 1, m->len, stderr);
    free(m->text);
    m->text = NULL;
}

/* Hooks for tests and benchmarks (ARCHITECTURE.md): read here, once. */
static void read_hooks(engine_hooks *h)
{
    const char *v;
    memset(h, 0, sizeof *h);
    if ((v = getenv("COLSTAT_GPU_PARSE")))
        h->host_parse = *v == '0';
    if ((v = getenv("COLSTAT_GPU_BATCH_ROWS")) && atol(v) > 0)
        h->gpu_batch_rows = (size_t)atol(v);
    if ((v = getenv("COLSTAT_GPU_RAW_BYTES")) && atoll(v) > 0)
        h->gpu_raw_bytes = (size_t)atoll(v);
    if ((v = getenv("COLSTAT_GPU_KEEP_BYTES"))) {
        h->gpu_keep_set = 1;
        h->gpu_keep_bytes = (size_t)strtoull(v, NULL, 10);
    }
    if ((v = getenv("COLSTAT_GPU_TERMS")))
        h->gpu_terms = atoi(v);
    if ((v = getenv("COLSTAT_GPU_PRESENT")))
        h->gpu_presence = *v == '0' ? 1 : 2;
    h->mpi_cuts = getenv("COLSTAT_MPI_CUTS");
    if ((v = getenv("COLSTAT_QSEL"))) {
        char *end;
        h->qsel_bits = (int)strtol(v, &end, 10);
        h->qsel_candidates = *end == ',' ? strtoull(end + 1, NULL, 10) : 0;
    }
    if ((v = getenv("COLSTAT_SPILL")))
        h->spill = *v == '1';
    if ((v = getenv("COLSTAT_GZIP_CHUNK")) && atoll(v) > 0)
        h->gzip_chunk = (size_t)atoll(v);
    if ((v = getenv("COLSTAT_GZIP_THREADS")) && atoi(v) > 0)
        h->gzip_threads = atoi(v);
    if ((v = getenv("COLSTAT_RECORD_LIMIT")) && atoll(v) > 0)
        h->record_limit = (size_t)atoll(v);
}

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

/* Standard output written whole, or the error; a reader that closed it
 * early (| head) is no error. */
static int stdout_done(cs_error *e)
{
    int bad = fflush(stdout) != 0;
    bad |= ferror(stdout);
    if (bad && errno != EPIPE)
        return cs_fail(e, CS_EDATA, "", 0, "write error: %s", strerror(errno));
    return CS_OK;
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
    return st;
}

/* The report is built in memory and written with one call, so a reader
 * never sees half of it followed by an error. Closing stdout early
 * (| head) is not an error. */
static int write_result(const options *o, const engine_result *res, cs_error *e)
{
    report_col *cols = calloc((size_t)res->ncols + 1, sizeof *cols);
    char *text = NULL;
    size_t size = 0;
    FILE *m = cols ? open_memstream(&text, &size) : NULL;
    if (!m) {
        free(cols);
        return cs_fail(e, CS_EDATA, "", 0, "out of memory");
    }
    for (int k = 0; k < res->ncols; k++) {
        cols[k].name = res->cols[k].name;
        cols[k].index = res->cols[k].index;
        stats_finalize(res->cols[k].st, &cols[k].s);
        cols[k].h = (o->cfg.what & STAT_HIST) ? res->cols[k].h : NULL;
        /* the engine's quantiles: the median first, then the list */
        const qres *q = res->cols[k].q;
        int median = (o->cfg.what & STAT_MEDIAN) != 0;
        cols[k].median = median && q ? q : NULL;
        cols[k].quant = q ? q + median : NULL;
        cols[k].qf = o->cfg.quantiles;
        cols[k].nquant =
            q && (o->cfg.what & STAT_QUANTILES) ? o->cfg.nquantiles : 0;
    }
    report_style st = style_for(o);
    int bad = report_write(m, o->format, o->cfg.what, res->rows, cols,
                           res->ncols, &st);
    bad |= fclose(m);
    free(cols);
    int rc = CS_OK;
    if (bad)
        rc = cs_fail(e, CS_EDATA, "", 0, "out of memory for the report");
    else if (fwrite(text, 1, size, stdout) != size && errno != EPIPE)
        rc = cs_fail(e, CS_EDATA, "", 0, "write error: %s", strerror(errno));
    else
        rc = stdout_done(e);
    free(text);
    return rc;
}

/* Once the result is out, what is left is freeing memory the kernel takes
 * back anyway, and a GPU's teardown (about 0.1 s in the driver): skipped,
 * except in sanitizer builds, whose leak check must see every free.
 * COLSTAT_FULL_EXIT=1 tears down for measuring what this saves. */
static int fast_exit(void)
{
#ifdef COLSTAT_SANITIZE
    return 0;
#else
    const char *v = getenv("COLSTAT_FULL_EXIT");
    return !(v && *v == '1');
#endif
}

/* --list-columns: the names a run would give the fields, one a line,
 * for scripts and shell completion; only the head of the input is read.
 * A name is written as it is (a script splitting at line breaks must not
 * get \n for a quoted line break it cannot select with -c). */
static int list_columns(const options *o, cs_error *e)
{
    messages m = {0};
    m.buf = open_memstream(&m.text, &m.len);
    engine_sink sink = {say, &m};
    char **names;
    int n;
    int rc = engine_list_columns(&o->cfg, &sink, &names, &n, e);
    for (int i = 0; rc == CS_OK && i < n; i++)
        printf("%s\n", names[i]);
    engine_names_free(names, n);
    flush_messages(&m);
    return rc == CS_OK ? stdout_done(e) : rc;
}

/* --emit-state: the exact partial state instead of the report. */
static int write_state(const options *o, const engine_result *res, cs_error *e)
{
    state_info info = {state_key(&o->cfg), o->cfg.what, 0, 0, 0, 0};
    const char *path = o->state_path;
    FILE *f = path ? fopen(path, "wb") : stdout;
    int rc = CS_OK;
    if (!info.key)
        rc = cs_fail(e, CS_EDATA, "", 0, "out of memory");
    else if (!f)
        rc = cs_fail(e, CS_EDATA, path, 0, "cannot open: %s", strerror(errno));
    else
        rc = state_write(f, &info, res, e);
    if (f && path && fclose(f) && rc == CS_OK)
        rc = cs_fail(e, CS_EDATA, path, 0, "write error: %s", strerror(errno));
    free(info.key);
    return rc;
}

/* --merge: the operands are states; their report is the one run over all
 * their parts would give, of the statistics and columns asked among those
 * the states hold. */
static int merge(options *o, cs_error *e)
{
    engine_result res;
    merge_ask ask = {
        o->asked,          o->cfg.columns,  o->bins_set ? o->cfg.nbins : 0,
        o->cfg.have_range, o->cfg.range_lo, o->cfg.range_hi};
    int rc =
        merge_states(o->cfg.files, o->cfg.nfiles, &ask, &res, &o->cfg.what, e);
    if (rc == CS_OK)
        rc = write_result(o, &res, e);
    engine_result_free(&res);
    return rc;
}

static int summarize(options *o, cs_error *e)
{
    messages m = {0};
    m.buf = open_memstream(&m.text, &m.len);
    engine_sink sink = {say, &m};
    engine_result res;
    engine *eng = NULL;
    read_hooks(&o->cfg.hooks);
    m.progress_tty = isatty(STDERR_FILENO);
    o->cfg.tmpdir = getenv("TMPDIR");
    o->cfg.progress = o->progress < 0 ? m.progress_tty : o->progress;
    int rc = engine_run(&o->cfg, &sink, &eng, &res, e);
    if (rc == CS_OK)
        rc = o->emit_state ? write_state(o, &res, e) : write_result(o, &res, e);
    flush_messages(&m);
    if (rc == CS_OK && fast_exit()) {
        fflush(stderr);
        _exit(rc);
    }
    engine_close(eng);
    engine_result_free(&res);
    return rc;
}

/* An error: one line on stderr, always; with --json-errors also one JSON
 * document on stdout, for programs that read only stdout (nothing else
 * is on it: the report is written whole or not at all). */
static void print_error(const cs_error *e, int json)
{
    print_located(stderr, e->file, e->line, e->msg);
    if (json) {
        report_json_error(stdout, e->file, (unsigned long long)e->line, e->msg,
                          e->status);
        fflush(stdout);
    }
}

/* --mpi: every rank runs its share; rank 0 alone writes the result and
 * the one error line; every rank exits with the same status. */
static int summarize_mpi(options *o, int *root, cs_error *e)
{
    messages m = {0};
    m.buf = open_memstream(&m.text, &m.len);
    engine_sink sink = {say, &m};
    engine_result res;
    read_hooks(&o->cfg.hooks);
    o->cfg.progress = o->progress < 0 ? isatty(STDERR_FILENO) : o->progress;
    int rc = dist_mpi_run(&o->cfg, &sink, &res, root, e);
    if (rc == CS_OK && *root)
        rc = o->emit_state ? write_state(o, &res, e) : write_result(o, &res, e);
    flush_messages(&m);
    /* printed before MPI ends: a launcher may stop the job as soon as a
     * rank exits with an error */
    if (rc != CS_OK && *root)
        print_error(e, o->json_errors);
    fflush(stderr);
    *root = 0;
    engine_result_free(&res);
    dist_mpi_end();
    return rc;
}

/* colstat hands --mpi over to colstat-mpi beside it (the same program,
 * linked with MPI), so that without --mpi no MPI library is loaded.
 * Returns only when there is none. */
static void hand_over_mpi(char **argv)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 16);
    if (n <= 0)
        return;
    self[n] = 0;
    char *slash = strrchr(self, '/');
    strcpy(slash ? slash + 1 : self, "colstat-mpi");
    execv(self, argv);
}

/* An error found before MPI starts (the command line) is printed by the
 * launcher's rank 0 alone, as its environment says. */
static int launched_rank0(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                       "PMI_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v)
            return atoi(v) == 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    /* A closed pipe (colstat ... | head) must read as EPIPE, not kill us
     * with a signal: the engine then ends quietly with status 0. */
    signal(SIGPIPE, SIG_IGN);
    options o;
    cs_error e = {0};
    int root = 1; /* --mpi: rank 0, the one that prints */
    int rc = options_parse(argc, argv, &o, &e);
    if (rc != CS_OK && o.mpi)
        root = launched_rank0();
    if (rc == CS_OK && o.action == ACT_HELP) {
        options_usage(stdout);
        rc = stdout_done(&e);
    } else if (rc == CS_OK && o.action == ACT_VERSION) {
        printf("colstat %s\n", COLSTAT_VERSION);
        rc = stdout_done(&e);
    } else if (rc == CS_OK && o.action == ACT_LIST) {
        rc = list_columns(&o, &e);
    } else if (rc == CS_OK && o.merge)
        rc = merge(&o, &e);
    else if (rc == CS_OK && o.mpi) {
        if (!dist_mpi_built())
            hand_over_mpi(argv);
        rc = summarize_mpi(&o, &root, &e);
    } else if (rc == CS_OK)
        rc = summarize(&o, &e);
    if (rc != CS_OK && root)
        print_error(&e, o.json_errors || options_json_errors(argc, argv));
    options_free(&o);
    return rc;
}
