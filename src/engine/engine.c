/* The driver: open the inputs until one shows its columns, learn the
 * columns, choose and start the backend, feed every input, drain the jobs,
 * finish the statistics, run the passes that need every value (quantiles,
 * histograms without --range; passes.h), and hand back the result; -v's
 * figures last. */
#include "src/engine/engine.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/num/parse_kind.h"
#include "src/engine/backend.h"
#include "src/engine/feed.h"
#include "src/engine/group_dev.h"
#include "src/engine/group_gpu.h"
#include "src/engine/groups.h"
#include "src/engine/hint.h"
#include "src/engine/passes.h"
#include "src/engine/policy.h"

/* What the first input's head read takes, before a backend chose its
 * block size. */
#define HEAD_BYTES (1u << 20)
#define BINARY_HEAD_BYTES (4u << 20)

struct engine {
    const engine_config *cfg;
    account acc;
    binary_spec spec;
    const binary_spec *bin; /* &spec for binary input, else NULL */
    int nthreads;           /* cores to use: -j, or every one */
    int nworkers;           /* the backend's worker threads (start_jobs) */
    source_config src_cfg;  /* how compressed inputs are decoded */
    int next;               /* the next input to open */
    col_table table;
    col_table keys;    /* --group-by's key columns */
    csv_strict strict; /* --strict: the chosen columns, not the tentative */
    cs_error none;     /* the error should no column hold numbers */
    engine_left *left; /* the columns the sample left out, with why */
    int nleft;
    int *order; /* the reported columns, in output order */
    /* per column its kind (io/num/parse_kind.h), from the first input's
       sample; NULL while every column holds plain numbers */
    unsigned char *kinds;
    int use_gpu;
    int group_device;      /* --group-by: group_gpu.h's GROUP_ON_* */
    int group_auto;        /*   chosen by --device auto */
    gpu_opener *opener;    /* opening the GPU while the first input is read */
    const engine_mpi *mpi; /* cfg->mpi, or none's */
    const engine_part *parts; /* mpi->parts, or mpi->share's */
    backend *be;
    jobs *js;
    feed fd;
    qfrac *q; /* the quantiles of every column: the median first */
    size_t nq;
    int spill;      /* values past --memory go to a file */
    unsigned npass; /* passes run after the input */
    int reread;     /* of those, passes that read the inputs again */
    /* profiles (src/stats/profile.h): NULL when no column has one (no
       text column, no --distinct, --mode, --top); else per column its
       kind, and for a text column its key among the row batches' keys
       (texts', or under -g rowkeys') */
    col_kind *kind;
    int *text_key;
    col_table texts;   /* the text columns, delivered as row_keys */
    col_table rowkeys; /* --group-by with text columns: what row_keys holds
                          (the keys, then the texts that are no key) */
    col_prof *prof;    /* the backend's, after finish */
    unsigned char *text_cols; /* per column: a text column (--strict's
                                 exemption) */
};

/* Without --mpi: every input whole, this process alone. */
static const engine_mpi no_mpi;

int engine_cores(void)
{
    cpu_set_t set;
    if (!sched_getaffinity(0, sizeof set, &set) && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static int threads_wanted(const engine_config *cfg)
{
    return cfg->threads > 0       ? cfg->threads
           : cfg->hooks.cores > 0 ? cfg->hooks.cores
                                  : engine_cores();
}

static const engine_part *part_of(const engine *r, int i)
{
    return r->parts ? &r->parts[i] : NULL;
}

/* The shares from mpi->share, asked whatever rc says (the processes meet
 * there); the first error stays e's. */
static int share_parts(engine *r, int rc, cs_error *e)
{
    const engine_share *sh = r->mpi->share;
    if (!sh)
        return rc;
    cs_error mine = {0};
    int got = sh->parts(sh->ctx, rc == CS_OK, &r->parts, &mine);
    if (rc == CS_OK && got != CS_OK)
        *e = mine;
    return rc == CS_OK ? got : rc;
}

/* How every input's text is read, on every pass. */
static csv_dialect dialect_of(const engine_config *cfg)
{
    csv_dialect d = {.delim = cfg->delim,
                     .header = cfg->header,
                     .whitespace = cfg->whitespace,
                     .num = cfg->num,
                     .max_record = cfg->hooks.record_limit};
    return d;
}

/* Input i opened, its fields named by --names where given. */
static int open_named(engine *r, int i, size_t head_bytes, int first,
                      input **in, cs_error *e)
{
    const engine_config *cfg = r->cfg;
    int rc = input_open(cfg->files[i], &r->src_cfg, r->bin, dialect_of(cfg),
                        head_bytes, first, part_of(r, i), &r->acc, in, e);
    if (rc == CS_OK && cfg->names &&
        (rc = input_give_names(*in, cfg->names, cfg->nnames, e)) != CS_OK) {
        input_release(*in);
        *in = NULL;
    }
    return rc;
}

/* first: the input may be the one whose fields set the columns. */
static int open_next(engine *r, size_t head_bytes, int first, input **in,
                     cs_error *e)
{
    int i = r->next++;
    return open_named(r, i, head_bytes, first, in, e);
}

/* Once the columns are known, an input none of which is this process's
 * share is not opened. */
static int skip_next(const engine *r)
{
    const engine_part *p = part_of(r, r->next);
    return p && p->lo == p->hi;
}

/* --device auto asks the policy, from the inputs' kinds and sizes (group:
 * for --group-by's device path). */
static int auto_device(engine *r, int group, cs_error *e)
{
    const engine_config *cfg = r->cfg;
    probe_info *in = calloc((size_t)cfg->nfiles, sizeof *in);
    if (!in)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    for (int i = 0; i < cfg->nfiles; i++)
        probe_path(cfg->files[i], &in[i]);
    policy_params p = {r->nthreads,     backend_gpu_present(&cfg->hooks),
                       r->bin != NULL,  cfg->what,
                       cfg->have_range, group};
    policy_choice c;
    policy_choose(&p, in, cfg->nfiles, &c);
    free(in);
    account_say(&r->acc, "%s", c.why);
    return c.gpu;
}

/* --group-by reduces on the device when asked for it (--device gpu) or
 * estimated faster (auto), a device is there and makes the statistics;
 * else on the host, and -v says why. */
static int group_where(engine *r, engine_device d, cs_error *e)
{
    const engine_hooks *h = &r->cfg->hooks;
    int present = backend_gpu_present(h);
    int parses = present && !h->host_parse && !h->gpu_group_steps;
    /* the device parsing the bytes makes all but std and histograms
       (group_dev.h); reducing the host's row batches, no statistic that
       needs every value or the squares (group_gpu.h) */
    int can =
        parses ? group_dev_can(r->cfg->what) : group_gpu_can(r->cfg->what);
    /* auto: the device where it parses and is estimated faster */
    if (d == ENGINE_AUTO && parses && can) {
        int gpu = auto_device(r, 1, e);
        if (e->status)
            return e->status;
        if (gpu) {
            r->group_device = GROUP_ON_DEVICE;
            r->group_auto = 1;
            account_say(&r->acc, "group-by reduces on the device");
            return CS_OK;
        }
    }
    if (d == ENGINE_GPU && (present || h->gpu_group_steps) && can) {
        r->group_device =
            h->gpu_group_steps ? GROUP_ON_HOST_STEPS : GROUP_ON_DEVICE;
        account_say(&r->acc, "group-by reduces on the device%s",
                    h->gpu_group_steps ? " (its steps on the host: "
                                         "COLSTAT_GPU_GROUP=host)"
                                       : "");
    } else if (d == ENGINE_GPU && (present || h->gpu_group_steps)) {
        account_say(&r->acc,
                    parses ? "group-by runs on the host: per-group std and "
                             "histograms are the host's for now"
                           : "group-by runs on the host: with the host "
                             "parsing, per-group std, medians, quantiles "
                             "and histograms are the host's");
    } else if (d == ENGINE_GPU || (d == ENGINE_AUTO && present)) {
        account_say(&r->acc, "group-by runs on the host");
    }
    return CS_OK;
}

/* Decided before the first byte is read, so that the GPU, when it is
 * used, opens on a thread of its own while the first input is read. */
static int choose_device(engine *r, cs_error *e)
{
    engine_device d = r->cfg->device;
    /* the distinct values' counts travel in a state whole: the host's
       tables; without one the device counts them */
    if ((r->cfg->what & STAT_PROFILE) &&
        (r->cfg->group_by || r->cfg->keep_profiles)) {
        if (d == ENGINE_GPU ||
            (d == ENGINE_AUTO && backend_gpu_present(&r->cfg->hooks)))
            account_say(&r->acc, "--distinct, --mode, --top run on the host%s",
                        r->cfg->group_by ? " with --group-by"
                                         : " with --emit-state or --mpi");
        return CS_OK;
    }
    if (r->cfg->group_by) {
        if (group_where(r, d, e) != CS_OK)
            return e->status;
        /* the device parses too: its context made while the inputs open
           (group_dev_open's gpu_open then finds it) */
        if (r->group_device == GROUP_ON_DEVICE && !r->cfg->hooks.host_parse)
            return backend_gpu_prepare(&r->opener, e);
        return CS_OK;
    }
    r->use_gpu = d == ENGINE_GPU || (d == ENGINE_AUTO && auto_device(r, 0, e));
    if (e->status || !r->use_gpu)
        return e->status;
    return backend_gpu_prepare(&r->opener, e);
}

/* An empty CSV, or one of blank lines, says nothing about the columns,
 * and holds no rows. A binary spec names its fields whatever the input
 * holds, so an empty binary input is told by its length alone: taken for
 * one that shows its fields, it would give count-0 columns where CSV
 * gives no data. */
static int input_empty(const input *in)
{
    if (in->spec)
        return input_no_rows(in);
    return in->nfields == 0 && in->head_eof &&
           (in->head_len == 0 || input_no_rows(in));
}

/* Opens inputs until one shows its fields; *in is NULL when none does. */
static int open_first(engine *r, input **in, cs_error *e)
{
    size_t head = r->bin ? BINARY_HEAD_BYTES : HEAD_BYTES;
    *in = NULL;
    while (r->next < r->cfg->nfiles) {
        if (open_next(r, head, 1, in, e) != CS_OK)
            return e->status;
        if (!input_empty(*in))
            return CS_OK;
        input_release(*in);
        *in = NULL;
    }
    return CS_OK;
}

/* A run that may answer no rows (no_rows_ok) whose inputs hold none:
 * every input empty (in NULL), or the last one sampled without rows. */
static int no_rows(const engine *r, const input *in)
{
    if (!r->cfg->no_rows_ok)
        return 0;
    cs_error quote = {0}; /* a quote left open is the input's fault */
    return !in || (r->next == r->cfg->nfiles && input_no_rows(in) &&
                   input_quote_open(in, &quote) == CS_OK);
}

/* No input shows a field: an answer without columns is no answer. */
static int all_empty(const engine *r, cs_error *e)
{
    const char *f = r->cfg->files[0];
    if (r->cfg->nfiles > 1)
        return cs_fail(e, CS_EDATA, "", 0, "no data: every input is empty");
    return cs_fail(e, CS_EDATA, strcmp(f, "-") ? f : "(standard input)", 0,
                   "no data: the input is empty");
}

/* Why the sample left out each column the table says it did. */
static int why_left(engine *r, const input *in, cs_error *e)
{
    const col_table *t = &r->table;
    r->left = calloc((size_t)(t->nleft ? t->nleft : 1), sizeof *r->left);
    if (!r->left)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    for (int i = 0; i < t->nleft; i++) {
        char why[256];
        engine_left *l = &r->left[r->nleft++];
        if (in->why)
            hint_left_out(&in->why[t->left[i]], why, sizeof why);
        else /* unsampled: the head's records alone said text */
            snprintf(why, sizeof why, "text");
        l->index = t->left[i] + 1;
        if (!(l->label = strdup(t->left_labels[i])) || !(l->why = strdup(why)))
            return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    }
    return CS_OK;
}

/* Binary input groups by the decimal text of integer fields: a float's
 * bits have no text the user would recognise as the same key. */
static int float_key(const engine *r, cs_error *e)
{
    for (int k = 0; k < r->keys.ncols; k++) {
        int f = r->keys.fields[k];
        int t = f < r->spec.nfields ? r->spec.type[f] : 0;
        if (t == BT_F32 || t == BT_F64)
            return cs_fail(e, CS_EUSAGE, "", 0,
                           "--group-by: field %d is %s; binary input groups "
                           "by integer fields",
                           f + 1, t == BT_F32 ? "f32" : "f64");
    }
    return CS_OK;
}

/* --group-by: the key columns, which the default columns leave out. */
static int learn_keys(engine *r, const col_fields *f, cs_error *e)
{
    if (columns_learn(&r->keys, r->cfg->group_by, f, e) != CS_OK) {
        /* the list's grammar is -c's, and so are its messages */
        static const char c[] = "--columns:";
        if (!strncmp(e->msg, c, sizeof c - 1)) {
            char msg[sizeof e->msg];
            snprintf(msg, sizeof msg, "--group-by:%s", e->msg + sizeof c - 1);
            memcpy(e->msg, msg, sizeof msg);
        }
        return e->status;
    }
    if (r->bin && float_key(r, e) != CS_OK)
        return e->status;
    if (!r->cfg->columns)
        columns_drop(&r->table, r->keys.fields, r->keys.ncols);
    return CS_OK;
}

_Static_assert((int)COL_DATE == (int)KIND_DATE &&
                   (int)COL_DATETIME == (int)KIND_DATETIME &&
                   (int)COL_DATETIME_Z == (int)KIND_DATETIME_Z &&
                   (int)COL_TEXT > (int)KIND_DATETIME_Z &&
                   (int)COL_TEXT < (int)KIND_UNIT,
               "stats.h's column types are parse_kind.h's kinds, and text "
               "none of them");

/* The units of set (bit u: unit u), "ms, s", into buf. */
static void unit_names(uint32_t set, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (unsigned u = 0; u < KIND_NUNITS && n < cap; u++)
        if (set >> u & 1)
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "",
                                  kind_unit_name(KIND_UNIT + u));
}

/* -v: a column's kind and what in the sample chose it. */
static void say_kind(engine *r, int k, const csv_why *w, unsigned char kind)
{
    const char *label = r->table.labels[k];
    char units[128];
    if (w)
        unit_names(w->unit_set, units, sizeof units);
    if (!w)
        account_say(&r->acc, "column %s: number (not sampled)", label);
    else if (kind >= KIND_UNIT)
        account_say(&r->acc,
                    "column %s: number in %s (%u of %u sampled values carry "
                    "a unit, %u are bare numbers%s%s%s)",
                    label, kind_unit_name(kind), w->with_unit,
                    w->numbers + w->texts, w->numbers,
                    w->unit_set & (w->unit_set - 1) ? "; units seen: " : "",
                    w->unit_set & (w->unit_set - 1) ? units : "",
                    w->unit_set & (w->unit_set - 1)
                        ? " (not converted: the others' fields are invalid)"
                        : "");
    else if (kind != KIND_NUMBER)
        account_say(&r->acc,
                    "column %s: %s (%u of %u sampled values are ISO 8601 "
                    "%s%s)",
                    label, kind == KIND_DATE ? "date" : "datetime",
                    w->dates + w->datetimes, w->numbers + w->texts,
                    kind == KIND_DATE ? "dates" : "dates or datetimes",
                    kind == KIND_DATETIME_Z ? ", with zones: compared in UTC"
                                            : "");
    else
        account_say(&r->acc,
                    "column %s: number (%u of %u sampled values are numbers)",
                    label, w->numbers, w->numbers + w->texts);
}

/* Each column's kind, from the first input's sample of its field: every
 * later input's fields are read as that kind. */
static int learn_kinds(engine *r, const input *in, cs_error *e)
{
    int n = r->table.ncols, any = 0;
    unsigned char *k = calloc((size_t)(n ? n : 1), 1);
    if (!k)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    for (int c = 0; c < n && in->why; c++) {
        k[c] = csv_why_kind(&in->why[r->table.fields[c]]);
        any |= k[c] != KIND_NUMBER;
    }
    for (int c = 0; c < n && !in->spec; c++) {
        say_kind(r, c, in->why ? &in->why[r->table.fields[c]] : NULL, k[c]);
        if (k[c] != KIND_NUMBER && k[c] < KIND_UNIT &&
            (r->cfg->what & (STAT_SUM | STAT_MEAN | STAT_STD | STAT_HIST)))
            account_say(&r->acc,
                        "column %s: instants have no sum, mean, std or "
                        "histogram: left out of its entry",
                        r->table.labels[c]);
    }
    if (any)
        r->kinds = k;
    else
        free(k);
    return CS_OK;
}

/* The text columns, from the first input's sample: a field it saw
 * text and no number in is a text column (binary records hold numbers
 * only). */
static int learn_texts(engine *r, const input *in, cs_error *e)
{
    const col_table *t = &r->table;
    size_t n = (size_t)(t->ncols ? t->ncols : 1);
    unsigned char *text = calloc(n, 1);
    int ntext = 0;
    for (int k = 0; text && k < t->ncols; k++) {
        int f = t->fields[k];
        /* a field whose sample held some numbers stays a number column
           (its other texts invalid), as before text columns were answered */
        text[k] = !in->spec && f < in->nfields && in->numeric[f] == CSV_TEXT &&
                  (!in->why || !in->why[f].numbers);
        ntext += text[k];
    }
    if (text && !ntext && !(r->cfg->what & STAT_PROFILE)) {
        free(text);
        return CS_OK;
    }
    r->kind = calloc(n, sizeof *r->kind);
    r->text_key = malloc(n * sizeof *r->text_key);
    if (!text || !r->kind || !r->text_key) {
        free(text);
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    }
    for (int k = 0, i = 0; k < t->ncols; k++) {
        r->kind[k] = text[k] ? COL_TEXT : COL_NUMBER;
        r->text_key[k] = text[k] ? i++ : -1;
        if (text[k])
            account_say(&r->acc, "column %s: text (the sample saw no number)",
                        t->labels[k]);
    }
    r->text_cols = text; /* --strict: a text field is no invalid number */
    r->strict.exempt = text;
    return columns_subset(&r->texts, t, text, e);
}

/* The key among the group keys of field f, or -1. */
static int key_of(const col_table *keys, int f)
{
    for (int j = 0; j < keys->ncols; j++)
        if (keys->fields[j] == f)
            return j;
    return -1;
}

/* --group-by with text columns: the row batches' keys are the group keys,
 * then the text columns' fields that are no key (a text column that is a
 * key reads the key's); the device reduces no text: the host does. */
static int group_texts(engine *r, cs_error *e)
{
    const col_table *t = &r->texts;
    if (!r->cfg->group_by || !t->ncols)
        return CS_OK;
    if (r->group_device != GROUP_ON_HOST)
        account_say(&r->acc, "group-by runs on the host: text columns are "
                             "answered on the host");
    r->group_device = GROUP_ON_HOST;
    unsigned char *pick = malloc((size_t)t->ncols);
    int *at = malloc((size_t)t->ncols * sizeof *at);
    if (!pick || !at) {
        free(pick);
        free(at);
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    }
    for (int i = 0, next = r->keys.ncols; i < t->ncols; i++) {
        int key = key_of(&r->keys, t->fields[i]);
        pick[i] = key < 0;
        at[i] = key < 0 ? next++ : key;
    }
    for (int k = 0; k < r->table.ncols; k++)
        if (r->text_key[k] >= 0)
            r->text_key[k] = at[r->text_key[k]];
    int rc = columns_join(&r->rowkeys, &r->keys, t, pick, e);
    free(pick);
    free(at);
    return rc;
}

static int learn_columns(engine *r, const input *in, cs_error *e)
{
    if (!in)
        return all_empty(r, e);
    col_fields f = {in->names, in->numeric,      in->nfields, in->named,
                    in->name,  in->spec != NULL, in->why,     0};
    f.with_text = r->cfg->text_columns && !in->spec;
    if (columns_learn(&r->table, r->cfg->columns, &f, e) != CS_OK ||
        (r->cfg->group_by && learn_keys(r, &f, e) != CS_OK) ||
        why_left(r, in, e) != CS_OK || learn_texts(r, in, e) != CS_OK ||
        group_texts(r, e) != CS_OK)
        return e->status;
    char why[256];
    hint_no_numbers(in, why, sizeof why);
    cs_fail(&r->none, CS_EDATA, in->name, 0, "%s", why);
    if (r->table.ncols == 0) { /* an open quote is the input's fault */
        if (input_quote_open(in, e) == CS_OK)
            *e = r->none;
        return e->status;
    }
    r->strict.ncols = r->cfg->strict ? r->table.nfirm : 0;
    r->strict.labels = (const char *const *)r->table.labels;
    return learn_kinds(r, in, e);
}

size_t engine_default_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0)
        return (size_t)1 << 30;
    return (size_t)pages / 4 * (size_t)size;
}

/* Values past --memory spill to a file when some input cannot be read
 * twice (a pipe, a terminal); otherwise the passes read the inputs again,
 * which needs no disk. */
static int must_spill(const engine_config *cfg)
{
    for (int i = 0; i < cfg->nfiles && !cfg->hooks.spill; i++) {
        probe_info in;
        probe_path(cfg->files[i], &in);
        if (in.kind == PROBE_STREAM)
            return 1;
    }
    return cfg->hooks.spill;
}

/* The quantiles every column selects: the median first, then the list. */
static int quantile_list(engine *r, cs_error *e)
{
    const engine_config *cfg = r->cfg;
    size_t n = (cfg->what & STAT_QUANTILES) ? cfg->nquantiles : 0;
    int median = (cfg->what & STAT_MEDIAN) != 0;
    r->nq = n + (size_t)median;
    if (!r->nq)
        return CS_OK;
    r->q = malloc(r->nq * sizeof *r->q);
    if (!r->q)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    if (median)
        r->q[0] = (qfrac){5, 1};
    if (n)
        memcpy(r->q + median, cfg->quantiles, n * sizeof *r->q);
    return CS_OK;
}

/* Bytes of state each column holds, whatever the input's length: its
 * statistics in the result, the run, and each job in flight (a wide table
 * runs nthreads + 1 jobs, jobs.c), names, maps and message slots, the
 * answer's text, histograms (each job's with --range, else one per
 * counting thread and the result's) and the quantile selection. Measured
 * with 2 threads (max RSS over columns): 1.9 KB a column by default (300000
 * columns, 30 rows), 9.4 KB with --all (5000 columns); this estimates 2.5
 * and 10.6 KiB. */
static size_t column_bytes(const engine *r)
{
    const engine_config *cfg = r->cfg;
    size_t t = (size_t)r->nthreads, hist = 8 * (size_t)cfg->nbins;
    size_t b = sizeof(col_stats) * (t + 3) + 512;
    if (cfg->what & STAT_HIST)
        b += hist * (cfg->have_range ? t + 3 : t + 1) + 1024;
    if (r->nq)
        b += 1024 + 64 * r->nq;
    return b;
}

static void size_text(double bytes, char *buf, size_t cap)
{
    const char *unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024 && u < 4) {
        bytes /= 1024;
        u++;
    }
    snprintf(buf, cap, u ? "%.1f %s" : "%.0f %s", bytes, unit[u]);
}

/* Per-column state counts against --memory (a wide file's columns are
 * its size: 5 million columns took 7.9 GB): past it, an error before any
 * of it is made. Never against less than STATE_FLOOR: a small --memory
 * asks for passes over kept values (the tests' --memory 1k), not for
 * fewer columns. Kept values have --memory of their own besides. */
#define STATE_FLOOR ((size_t)64 << 20)
#define DEFAULT_MEMORY "the default --memory (a quarter of the memory)"

static int state_fits(const engine *r, const input *in, cs_error *e)
{
    size_t budget =
        r->cfg->memory_set ? r->cfg->memory : engine_default_memory();
    budget = budget > STATE_FLOOR ? budget : STATE_FLOOR;
    size_t each = column_bytes(r), n = (size_t)r->table.ncols;
    if (n <= budget / each)
        return CS_OK;
    char need[32], per[32], have[32];
    size_text((double)n * (double)each, need, sizeof need);
    size_text((double)each, per, sizeof per);
    size_text((double)budget, have, sizeof have);
    return cs_fail(e, CS_EDATA, in->name, 0,
                   "%zu columns need about %s of state (%s each), more than "
                   "the %s that %s allows: choose columns with -c, or give "
                   "more --memory",
                   n, need, per, have,
                   r->cfg->memory_set ? "--memory (at least 64 MiB)"
                                      : DEFAULT_MEMORY);
}

/* A datetime column with zones whose min or max is asked: its extremes
 * print at the offsets their rows were written in, which only the host's
 * readers keep (the device reads the same instants, without offsets). */
static int zoned_extremes(const engine *r)
{
    if (!r->kinds || !(r->cfg->what & (STAT_MIN | STAT_MAX)))
        return 0;
    for (int k = 0; k < r->table.ncols; k++)
        if (r->kinds[k] == KIND_DATETIME_Z)
            return 1;
    return 0;
}

/* The GPU when chosen and it opens (else -v says why); a table without
 * columns needs no device. */
static int start_backend(engine *r, cs_error *e)
{
    const engine_config *cfg = r->cfg;
    backend_params p = {.ncols = r->table.ncols,
                        .what = cfg->what,
                        .nbins = cfg->nbins,
                        .have_range = cfg->have_range,
                        .range_lo = cfg->range_lo,
                        .range_hi = cfg->range_hi,
                        .spec = r->bin,
                        .nthreads = r->nthreads,
                        .memory = cfg->memory_set ? cfg->memory
                                                  : engine_default_memory(),
                        .spill = r->spill = must_spill(cfg),
                        .tmpdir = cfg->tmpdir,
                        .gpu_sharers = r->mpi->gpu_sharers,
                        .group_device = r->group_device,
                        .group_auto = r->group_auto,
                        .hooks = &cfg->hooks,
                        .acc = &r->acc,
                        .kind = r->kind,
                        .text_key = r->text_key,
                        .nkeys = r->texts.ncols,
                        .group_keys = r->keys.ncols,
                        /* a state lists every group's statistics */
                        .group_lazy = !cfg->keep_profiles && !cfg->mpi,
                        .q = r->q,
                        .nq = r->nq};
    if (cfg->group_by)
        return backend_group_open(&p, &r->be, e);
    if (r->use_gpu && r->texts.ncols > 0)
        account_say(&r->acc, "GPU not used: text columns are answered on "
                             "the host");
    else if (r->use_gpu && zoned_extremes(r))
        account_say(&r->acc, "GPU not used: the min and max of a datetime "
                             "column with zones are shown at their rows' "
                             "offsets, which the device does not keep");
    else if (r->use_gpu && r->table.ncols > 0) {
        cs_error why = {0};
        if (backend_gpu_open(&p, r->opener, &r->be, &why) == CS_OK)
            return CS_OK;
        if (cfg->device == ENGINE_GPU)
            return cs_fail(e, CS_EDATA, "", 0, "--device gpu: %s", why.msg);
        account_say(&r->acc, "GPU not used: %s", why.msg);
    }
    return backend_cpu_open(&p, &r->be, e);
}

/* Text on the host's backend: the main thread cuts every block (a plain
 * file's read ahead by helper threads, feed.c) while the workers parse
 * them, and jobs retire in order. With a worker on every one of many
 * cores, the main thread and the workers take turns and the workers run
 * out of blocks: on 16 cores and 16 GB, 16 workers left 14.5 core-seconds
 * idle and took 6.05-6.09 s, 15 left 3.2-4.0 and took 5.0-5.2 s; with the
 * read-ahead, 16 still took 4.42-4.85 s against 15's 3.81-4.43. Leaving
 * the main thread a core was worth as much at 12 cores and cost time at 4
 * and 8 (bench/RESULTS.md, 2026-11-27), where a worker is worth more than
 * its wait. -j is taken as given. */
#define MAIN_CORE_FROM 12

static int worker_threads(const engine *r)
{
    int n = r->nthreads;
    if (r->cfg->threads > 0 || r->be->bytes || r->bin || n < MAIN_CORE_FROM)
        return n;
    return n - 1;
}

static int start_jobs(engine *r, cs_error *e)
{
    r->nworkers = worker_threads(r);
    jobs_params p = {r->be,
                     r->nworkers,
                     r->table.ncols,
                     r->bin,
                     r->cfg->strict ? &r->strict : NULL,
                     &r->acc};
    if (jobs_start(&p, &r->js, e) != CS_OK)
        return e->status;
    feed_init(&r->fd, r->js, r->be, &r->acc, r->nthreads, r->table.ncols,
              r->strict.ncols);
    const engine_hooks *h = &r->cfg->hooks;
    if (h->readers)
        r->fd.readers = h->readers < 0 ? 0 : h->readers;
    if (h->block_bytes && !r->be->bytes)
        r->fd.block = h->block_bytes;
    return CS_OK;
}

/* Threads inflating gzip. With the GPU parsing, the cores have nothing
 * else to do: all of them (-j). On the CPU the workers parse too, and
 * parsing costs a core about three times what ISA-L's inflating does,
 * while a piece decoded in parallel costs about twice a sequential one:
 * two cores parse and inflate fastest with ISA-L on one thread (2.1 s
 * against 1.9 s on 200 MB, bench/RESULTS.md), more cores with two
 * thirds of them inflating. The workers wait while no text is ready, so
 * the two overlap rather than compete. */
static void decode_threads(engine *r)
{
    const engine_hooks *h = &r->cfg->hooks;
    int n = r->nthreads;
    if (!r->use_gpu)
        n = n <= 2 ? 1 : (2 * n + 2) / 3;
    r->src_cfg.threads = (unsigned)(h->gzip_threads > 0 ? h->gzip_threads : n);
    r->src_cfg.gzip_piece = h->gzip_piece;
}

/* -v: how a compressed input was decoded. */
static void say_decoded(engine *r, const input *in)
{
    char line[512];
    source_describe(in->src, line, sizeof line);
    if (line[0])
        account_say(&r->acc, "%s: %s", in->name, line);
}

/* What in's row batches carry as keys: the group keys and text columns'
 * fields. */
static int input_map_row_keys(const engine *r, input *in, cs_error *e)
{
    if (r->cfg->group_by)
        return input_map_keys(in, r->rowkeys.ncols ? &r->rowkeys : &r->keys, e);
    return r->texts.ncols ? input_map_keys(in, &r->texts, e) : CS_OK;
}

/* Feeds in, then each later input, one at a time. */
static int feed_all(engine *r, input *in, cs_error *e)
{
    int rc = CS_OK;
    while (in && rc == CS_OK) {
        in->dialect.kinds = r->kinds;
        if (!input_empty(in) && !in->none &&
            input_map(in, &r->table, e) == CS_OK &&
            input_map_row_keys(r, in, e) == CS_OK)
            feed_input(&r->fd, in, e);
        if (e->status == CS_OK)
            say_decoded(r, in);
        input_release(in);
        in = NULL;
        rc = e->status;
        while (rc == CS_OK && r->next < r->cfg->nfiles && skip_next(r))
            r->next++;
        if (rc == CS_OK && r->next < r->cfg->nfiles)
            rc = open_next(r, r->be->block_bytes, 0, &in, e);
    }
    return rc;
}

/* Every input once more, for a pass: the backend counts what the jobs
 * parse. The column table is the first reading's. */
static int refeed(engine *r, cs_error *e)
{
    const engine_config *cfg = r->cfg;
    for (int i = 0; i < cfg->nfiles && e->status == CS_OK; i++) {
        input *in = NULL;
        if (open_named(r, i, r->be->block_bytes, 0, &in, e) != CS_OK)
            break;
        in->dialect.kinds = r->kinds;
        if (!input_empty(in) && !in->none &&
            input_map(in, &r->table, e) == CS_OK &&
            (!r->texts.ncols || input_map_keys(in, &r->texts, e) == CS_OK))
            feed_input(&r->fd, in, e);
        input_release(in);
    }
    return jobs_drain(r->js, e);
}

/* The passes' sums cover every input at once: an error they find without
 * a file (the input changed between passes) names the inputs, which the
 * selection knows nothing of. */
static void name_inputs(const engine_config *cfg, cs_error *e)
{
    if (e->file[0])
        return;
    size_t at = 0;
    for (int i = 0; i < cfg->nfiles && at < sizeof e->file; i++) {
        const char *f = cfg->files[i];
        at += (size_t)snprintf(e->file + at, sizeof e->file - at, "%s%s",
                               i ? ", " : "",
                               strcmp(f, "-") ? f : "(standard input)");
    }
}

/* One pass: counted over the values the backend kept, else over the
 * inputs read again. */
static int one_pass(engine *r, passes *ps, cs_error *e)
{
    const backend_ops *ops = r->be->ops;
    pass_plan *plan = passes_plan(ps);
    int all = 0;
    if (!plan)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory for the quantiles");
    if (ops->pass_begin(r->be, plan, e) != CS_OK ||
        ops->pass_kept(r->be, &all, e) != CS_OK)
        return e->status;
    if (!all && refeed(r, e) != CS_OK)
        return e->status;
    r->reread += !all;
    if (ops->pass_end(r->be, e) != CS_OK)
        return e->status;
    const engine_collective *every = r->mpi->collective;
    if (every && every->sum(every->ctx, plan, e) != CS_OK)
        return e->status;
    if (passes_narrow(ps, e) != CS_OK)
        name_inputs(r->cfg, e);
    return e->status;
}

/* Histograms without --range: edges from the final finite min and max
 * of st, the whole input's (infinities count as underflow and overflow),
 * none (NaN, printed as null) for a column without finite values. */
static int hist_edges(engine *r, const col_stats *st, engine_result *out,
                      cs_error *e)
{
    for (int k = 0; k < out->nheld; k++) {
        double lo, hi;
        stats_hist_edges(&st[k], &lo, &hi);
        hist_free(&out->held_h[k]);
        if (hist_init(&out->held_h[k], r->cfg->nbins, lo, hi))
            return cs_fail(e, CS_ENOMEM, "", 0, "out of memory for --hist");
    }
    return CS_OK;
}

/* The statistics the passes start from: this process's own, or under
 * --mpi every process's (mpi->collective), in *whole (freed by the
 * caller with stats_free each, then free). */
static int whole_input(engine *r, const engine_result *out, col_stats **whole,
                       cs_error *e)
{
    const engine_collective *all = r->mpi->collective;
    *whole = NULL;
    if (!all)
        return CS_OK;
    size_t n = (size_t)(out->nheld > 0 ? out->nheld : 1);
    if (!(*whole = malloc(n * sizeof **whole)))
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    for (int k = 0; k < out->nheld; k++)
        stats_init(&(*whole)[k]);
    return all->whole(all->ctx, out->nheld, out->held_st, *whole, e);
}

static void free_whole(col_stats *whole, int n)
{
    for (int k = 0; whole && k < n; k++)
        stats_free(&whole[k]);
    free(whole);
}

/* nq quantiles a column, in the column table's order. */
static int take_results(engine *r, passes *ps, engine_result *out, cs_error *e)
{
    size_t n = (size_t)out->nheld;
    out->nq = r->nq;
    if (!r->nq)
        return CS_OK;
    out->held_q = calloc(n ? n * r->nq : 1, sizeof *out->held_q);
    if (!out->held_q)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < r->nq; i++)
            passes_result(ps, (int)k, i, &out->held_q[k * r->nq + i]);
    return CS_OK;
}

/* The passes after the input, over every column the backend reduced:
 * quantiles and histograms whose edges are the final min and max. */
static int select_values(engine *r, engine_result *out, cs_error *e)
{
    const engine_config *cfg = r->cfg;
    int bins = (cfg->what & STAT_HIST) && !cfg->have_range;
    if ((!r->nq && !bins) || cfg->group_by) /* groups: groups.h */
        return CS_OK;
    col_stats *whole = NULL;
    int rc = whole_input(r, out, &whole, e);
    const col_stats *st = whole ? whole : out->held_st;
    if (rc == CS_OK && bins)
        rc = hist_edges(r, st, out, e);
    passes *ps = NULL;
    passes_params pp = {out->nheld,
                        st,
                        r->q,
                        r->nq,
                        bins ? out->held_h : NULL,
                        cfg->hooks.qsel_candidates,
                        cfg->hooks.qsel_bits};
    double t0 = account_now();
    if (rc == CS_OK)
        rc = passes_new(&pp, &ps, e);
    free_whole(whole, out->nheld);
    while (rc == CS_OK && !passes_done(ps))
        rc = one_pass(r, ps, e);
    account_time(&r->acc, ACC_PASSES, account_now() - t0);
    r->npass += ps ? passes_run(ps) : 0; /* the profile passes' before */
    if (rc == CS_OK)
        rc = take_results(r, ps, out, e);
    passes_free(ps);
    return rc;
}

/* A chosen column is reported; a tentative one only if it turned out to
 * hold numbers: the sample's rule, applied to the whole input. */
int engine_holds_numbers(const col_stats *s)
{
    return s->count + s->nan > s->invalid;
}

/* 1 when column k is reported, 0 when it is left out (named in out's
 * left), -1 when out of memory. */
static int reported(engine *r, int k, engine_result *out, cs_error *e)
{
    const col_table *t = &r->table;
    const col_stats *s = &out->held_st[k];
    if (k < t->nfirm || engine_holds_numbers(s) || r->mpi->keep_tentative)
        return 1;
    uint64_t line;
    const char *text = NULL;
    jobs_first_invalid(r->js, k, &line, &text);
    return engine_leave_out(out, t->labels[k], t->fields[k] + 1, s, text, e)
               ? -1
               : 0;
}

/* The reported columns in output order: the chosen ones as chosen, the
 * tentative ones (only the default has any, in field order as its chosen
 * ones are) merged in by field. */
static int output_order(engine *r, engine_result *out, cs_error *e)
{
    const col_table *t = &r->table;
    int i = 0, j = t->nfirm, n = 0, got = 0;
    for (;;) {
        while (j < t->ncols && !(got = reported(r, j, out, e)))
            j++;
        if (got < 0)
            return -1;
        if (i < t->nfirm && (j >= t->ncols || t->fields[i] < t->fields[j]))
            r->order[n++] = i++;
        else if (j < t->ncols)
            r->order[n++] = j++;
        else
            return n;
    }
}

/* The reported columns, pointing into the statistics out holds. */
static int take_columns(engine *r, engine_result *out, cs_error *e)
{
    out->left = r->left;
    out->nleft = r->nleft;
    r->left = NULL;
    int n = output_order(r, out, e);
    if (n < 0)
        return e->status;
    out->cols = calloc((size_t)(n ? n : 1), sizeof *out->cols);
    if (!out->cols)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    for (int i = 0; i < n; i++) {
        int k = r->order[i];
        engine_column *c = &out->cols[i];
        c->index = r->table.fields[k] + 1;
        c->st = &out->held_st[k];
        c->h = &out->held_h[k];
        c->q = out->held_q ? &out->held_q[(size_t)k * out->nq] : NULL;
        c->held = k;
        c->tentative = k >= r->table.nfirm;
        c->kind = r->kinds ? r->kinds[k] : KIND_NUMBER;
        c->unit = c->kind >= KIND_UNIT ? kind_unit_name(c->kind) : NULL;
        out->ncols = i + 1;
        if (!(c->name = strdup(r->table.names[k])) ||
            !(c->label = strdup(r->table.labels[k])))
            return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    }
    out->none = r->none;
    if (n == 0 && !(r->cfg->no_rows_ok && out->rows == 0))
        *e = r->none;
    return e->status;
}

/* One partition's pass: its values read again and counted; *over when
 * they passed --memory too. */
static int profile_part(engine *r, engine_result *out, uint32_t part,
                        uint32_t nparts, int *over, cs_error *e)
{
    size_t top = (r->cfg->what & STAT_TOP) ? r->cfg->top : 1;
    if (backend_cpu_profiles_spilled(r->be)) {
        if (backend_cpu_profile_spill_pass(r->be, part, nparts, e) != CS_OK)
            return e->status;
    } else if (backend_cpu_profile_pass(r->be, part, nparts, e) != CS_OK ||
               refeed(r, e) != CS_OK) {
        return e->status;
    } else {
        r->reread++;
    }
    r->npass++;
    col_prof *m;
    if ((*over = backend_cpu_profile_pass_end(r->be, &m)) != 0)
        return CS_OK;
    for (int k = 0; k < r->table.ncols; k++) {
        col_summary s;
        stats_finalize(&out->held_st[k], &s);
        if (r->prof[k].vals &&
            profile_take_part(&r->prof[k], &m[k], r->kind[k] == COL_TEXT,
                              s.is_int, top))
            return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    }
    return CS_OK;
}

/* The distinct values past --memory: counted by partitions of their
 * hashes, each within --memory, a pass over the inputs each; a partition
 * that does not fit is split (the hash modulo m times as many, m sized
 * by split_by). Each value is in one partition, so the distinct counts
 * add up, and the k most frequent of all are among the partitions' k
 * most frequent. */
#define PROFILE_FIRST_PARTS 4u
#define PROFILE_MAX_SPLIT 256u
#define PROFILE_MAX_PARTS (1u << 20)
#define PROFILE_MAX_PASSES 4096u

/* How many partitions a reading's values need, from how they filled
 * --memory (f, its rows counted from the reading's start) over n rows.
 * What they held when they passed it is a floor: over_bytes / budget.
 * Distinct values grow as a power of the rows read, V(r) = K r^b (Heaps'
 * law: H. S. Heaps, Information Retrieval, Academic Press 1978, 7.5):
 * past half of it at row h and all of it at row o give b = ln 2 /
 * ln(o / h), and all n rows about (n / o)^b times --memory. Values that
 * saturate (a few categories repeated) give a small b and few
 * partitions, where the rows' share alone would give many (a quarter
 * more for the hashes' uneven shares). When one batch of rows passed
 * both marks, the floor alone. The larger, as a power of two, at least
 * `least`. */
static uint32_t split_by(const profile_fill *f, uint64_t n, uint32_t least)
{
    uint64_t h = f->half_rows, o = f->over_rows;
    double need = f->budget ? (double)f->over_bytes / (double)f->budget : 0;
    if (h > 0 && h < o && o < n)
        need = fmax(need, 1.25 * pow((double)n / (double)o,
                                     log(2.0) / log((double)o / (double)h)));
    uint32_t m = least;
    while (m < PROFILE_MAX_SPLIT && m < need)
        m *= 2;
    return m;
}

/* The split of the reading that just passed --memory, which began after
 * row base of the run's count and read rows rows. */
static uint32_t split_now(engine *r, uint64_t base, uint64_t rows,
                          uint32_t least)
{
    profile_fill f = backend_cpu_profiles_filled(r->be);
    if (f.over_rows <= base || rows == 0)
        return least;
    f.half_rows = f.half_rows > base ? f.half_rows - base : 0;
    f.over_rows -= base;
    return split_by(&f, rows, least);
}

/* The partitions still to count, (part, nparts) each, the next on top. */
typedef struct part_stack {
    uint32_t (*w)[2];
    size_t n, cap;
} part_stack;

/* Pushes the m partitions (part + j * nparts, m * nparts) of partition
 * (part, nparts), the first of them on top. */
static int push_split(part_stack *st, uint32_t part, uint32_t nparts,
                      uint32_t m, cs_error *e)
{
    if (st->n + m > st->cap) {
        size_t c = 2 * (st->n + m);
        uint32_t(*w)[2] = realloc(st->w, c * sizeof *st->w);
        if (!w)
            return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
        st->w = w;
        st->cap = c;
    }
    for (uint32_t j = m; j-- > 0;) {
        st->w[st->n][0] = part + j * nparts;
        st->w[st->n++][1] = m * nparts;
    }
    return CS_OK;
}

/* A partition of nparts that did not fit needs m: so do its pending
 * siblings (the hash shares values out evenly), each split before its
 * pass rather than after a pass that fails. */
static int split_level(part_stack *st, uint32_t part, uint32_t nparts,
                       uint32_t m, cs_error *e)
{
    part_stack old = *st;
    *st = (part_stack){0};
    int rc = CS_OK;
    for (size_t i = 0; rc == CS_OK && i < old.n; i++)
        rc = old.w[i][1] == nparts
                 ? push_split(st, old.w[i][0], nparts, m, e)
                 : push_split(st, old.w[i][0], old.w[i][1], 1, e);
    if (rc == CS_OK)
        rc = push_split(st, part, nparts, m, e);
    free(old.w);
    return rc;
}

static int too_many_passes(engine *r, cs_error *e)
{
    return cs_fail(e, CS_EDATA, "", 0,
                   "the distinct values counted (--distinct, --mode, "
                   "--top) do not fit --memory in %u passes: give a "
                   "larger --memory",
                   r->npass);
}

static int profile_passes(engine *r, engine_result *out, cs_error *e)
{
    part_stack st = {0};
    double t0 = account_now();
    account_say(&r->acc, "distinct values past --memory: counted by "
                         "partitions, a pass over the input (a stream: "
                         "its values' temporary file) each");
    int rc = push_split(&st, 0, 1,
                        split_now(r, 0, out->rows, PROFILE_FIRST_PARTS), e);
    while (rc == CS_OK && st.n > 0) {
        st.n--;
        uint32_t part = st.w[st.n][0], nparts = st.w[st.n][1];
        uint64_t base = jobs_rows(r->js);
        int over = 0;
        rc = profile_part(r, out, part, nparts, &over, e);
        if (rc != CS_OK || !over)
            continue;
        uint32_t m = split_now(r, base, out->rows, 2);
        if (nparts >= PROFILE_MAX_PARTS / m || r->npass >= PROFILE_MAX_PASSES)
            rc = too_many_passes(r, e);
        else
            rc = split_level(&st, part, nparts, m, e);
    }
    free(st.w);
    cs_error ignored = {0};
    backend_cpu_profile_pass(r->be, 0, 0, &ignored);
    account_time(&r->acc, ACC_PASSES, account_now() - t0);
    return rc;
}

/* A partial state carries its distinct values' counts whole, in one
 * line: past --memory it cannot be made (passes over partitions would
 * give each partition's, which do not merge). */
static int profiles_too_big(engine *r, cs_error *e)
{
    const char *which = r->cfg->memory_set ? "--memory" : DEFAULT_MEMORY;
    return cs_fail(e, CS_EDATA, "", 0,
                   "the distinct values' counts (--distinct, --mode, --top) "
                   "need more than %s: with --emit-state or --mpi they "
                   "travel whole, in a state; give a larger --memory",
                   which);
}

static int finish(engine *r, engine_result *out, cs_error *e)
{
    int n = r->table.ncols;
    size_t k1 = (size_t)(n ? n : 1);
    out->rows = jobs_rows(r->js);
    out->held_st = calloc(k1, sizeof *out->held_st);
    out->held_h = calloc(k1, sizeof *out->held_h);
    r->order = malloc(k1 * sizeof *r->order);
    if (!out->held_st || !out->held_h || !r->order)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    out->nheld = n;
    for (int k = 0; k < n; k++)
        stats_init(&out->held_st[k]);
    /* groups keep their profiles in their table (take_groups) */
    double t0 = account_now();
    int rc = r->be->ops->finish(r->be, out->held_st, out->held_h, e);
    account_time(&r->acc, ACC_FINISH, account_now() - t0);
    if (rc != CS_OK || !r->kind || r->cfg->group_by)
        return e->status;
    r->prof = calloc(k1, sizeof *r->prof);
    if (!r->prof)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    size_t top = (r->cfg->what & STAT_TOP) ? r->cfg->top : 1;
    int over = 0;
    t0 = account_now();
    rc = r->be->ops->profiles(r->be, out->held_st, top, r->prof, &over, e);
    account_time(&r->acc, ACC_FINISH, account_now() - t0);
    if (rc != CS_OK)
        return e->status;
    if (over && r->cfg->keep_profiles)
        return profiles_too_big(r, e);
    return over ? profile_passes(r, out, e) : CS_OK;
}

/* A partial state's profiles: whole, summarized by
 * engine_result_finalize. */
static int keep_profiles(engine *r, engine_result *out)
{
    for (int k = 0; k < out->ncols; k++)
        if (r->kind[out->cols[k].held] == COL_TEXT)
            out->cols[k].kind = COL_TEXT;
    out->held_raw = r->prof;
    out->prof_top = (r->cfg->what & STAT_TOP) ? r->cfg->top : 1;
    r->prof = NULL;
    return CS_OK;
}

/* The profiles as the report shows them: a number column's values as
 * its other statistics are (exact integers in an integer column). */
static int take_profiles(engine *r, engine_result *out, cs_error *e)
{
    if (!r->prof)
        return CS_OK;
    if (r->cfg->keep_profiles)
        return keep_profiles(r, out);
    size_t n = (size_t)(out->nheld ? out->nheld : 1);
    if (!(out->held_prof = calloc(n, sizeof *out->held_prof)))
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    size_t top = (r->cfg->what & STAT_TOP) ? r->cfg->top : 1;
    for (int k = 0; k < out->nheld; k++) {
        col_summary s;
        stats_finalize(&out->held_st[k], &s);
        if (profile_finalize(&r->prof[k], r->kind[k] == COL_TEXT, s.is_int, top,
                             &out->held_prof[k]))
            return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    }
    for (int k = 0; k < out->ncols; k++) {
        engine_column *c = &out->cols[k];
        if (r->kind[c->held] == COL_TEXT)
            c->kind = COL_TEXT;
        c->prof = &out->held_prof[c->held];
    }
    return CS_OK;
}

/* --group-by: the groups, in order, with their quantiles and
 * histograms. */
static int take_groups(engine *r, engine_result *out, cs_error *e)
{
    const engine_config *cfg = r->cfg;
    groups_params p = {
        r->keys.ncols, r->keys.names, cfg->num,   cfg->what,
        r->q,          r->nq,         cfg->nbins, cfg->have_range,
        cfg->range_lo, cfg->range_hi, r->nthreads};
    if (groups_make(&p, backend_group_table(r->be), &out->groups, e) != CS_OK ||
        !r->kind)
        return e->status;
    engine_groups *gs = out->groups;
    if (!(gs->text = calloc((size_t)gs->nheld + 1, 1)))
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    for (int h = 0; h < gs->nheld; h++)
        gs->text[h] = r->kind[h] == COL_TEXT;
    for (int k = 0; k < out->ncols; k++)
        if (gs->text[out->cols[k].held])
            out->cols[k].kind = COL_TEXT;
    gs->top = (cfg->what & STAT_TOP) ? cfg->top : 1;
    return CS_OK;
}

/* Where each column's first invalid field is, into the result. */
static int note_invalid(engine *r, engine_result *res, cs_error *e)
{
    for (int i = 0; i < res->ncols; i++) {
        engine_column *c = &res->cols[i];
        uint64_t line;
        const char *text;
        const char *file = jobs_first_invalid(r->js, r->order[i], &line, &text);
        if (!c->st->invalid || !file || c->kind == COL_TEXT)
            continue;
        c->invalid_line = line;
        if (!(c->invalid_file = strdup(file)) ||
            !(c->invalid_text = strdup(text ? text : "")))
            return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    }
    return CS_OK;
}

/* A usual null spelling gets the option that makes it missing. */
static void null_advice(const char *text, char *buf, size_t cap)
{
    char opt[64], unit[8], word[32];
    buf[0] = '\0';
    if (!text ||
        csv_text_kind(text, strlen(text), unit, sizeof unit) != CSV_WHY_NULL)
        return;
    /* the spelling without the blanks around it, as --null takes it */
    const char *w = text + strspn(text, " \t");
    snprintf(word, sizeof word, "%.*s", (int)strcspn(w, " \t\r"), w);
    hint_null_option(word, opt, sizeof opt);
    snprintf(buf, cap, "; if it means a missing value, try %s", opt);
}

/* What a column's valid fields are: "a number", "a number in ms" (a
 * field in another unit is not converted), "an ISO 8601 date". */
static void kind_noun(const engine_column *c, char *buf, size_t cap)
{
    if (c->unit)
        snprintf(buf, cap, "a number in %s", c->unit);
    else if (c->kind == KIND_DATE)
        snprintf(buf, cap, "an ISO 8601 date");
    else if (c->kind != KIND_NUMBER)
        snprintf(buf, cap, "an ISO 8601 date or datetime");
    else
        snprintf(buf, cap, "a number");
}

void engine_warn_invalid(const engine_result *res, const engine_sink *sink)
{
    for (int k = 0; k < res->ncols; k++) {
        const engine_column *c = &res->cols[k];
        unsigned long long n = c->st->invalid;
        if (!n || !c->invalid_file)
            continue;
        char text[1024], name[512], advice[128], what[64];
        if (!c->label)
            snprintf(name, sizeof name, "'%s'", c->name);
        null_advice(c->invalid_text, advice, sizeof advice);
        kind_noun(c, what, sizeof what);
        snprintf(text, sizeof text,
                 "warning: column %s: %llu field%s not %s (counted as "
                 "invalid; the first, '%s', is here%s)",
                 c->label ? c->label : name, n, n == 1 ? " is" : "s are", what,
                 c->invalid_text ? c->invalid_text : "", advice);
        sink->say(sink->ctx, ENGINE_WARNING, c->invalid_file, c->invalid_line,
                  text);
    }
}

/* Item 3: the repeated header lines, into the result: said once, by
 * whoever has every process's count (engine_warn_repeats). */
static int take_repeats(engine *r, engine_result *out, cs_error *e)
{
    const char *file = NULL;
    uint64_t line = 0;
    out->repeats = jobs_repeats(r->js, &file, &line);
    out->repeat_line = line;
    if (out->repeats && file && !(out->repeat_file = strdup(file)))
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    return CS_OK;
}

void engine_warn_repeats(const engine_result *res, const engine_sink *sink)
{
    unsigned long long n = res->repeats;
    char text[256];
    if (!n)
        return;
    snprintf(text, sizeof text,
             "%llu repeated header line%s skipped (line%s identical "
             "to the header, as where files were joined; the first is here)",
             n, n == 1 ? "" : "s", n == 1 ? "" : "s");
    sink->say(sink->ctx, ENGINE_WARNING,
              res->repeat_file ? res->repeat_file : "", res->repeat_line, text);
}

static void report_times(engine *r, uint64_t rows)
{
    account *a = &r->acc;
    double total = account_now() - a->t_start, mb = (double)a->bytes_in / 1e6;
    account_say(a, "backend %s, %d worker thread%s, %d column%s, %llu rows",
                r->be->name, r->nworkers, r->nworkers == 1 ? "" : "s",
                r->table.ncols, r->table.ncols == 1 ? "" : "s",
                (unsigned long long)rows);
    if (r->table.ncols > r->table.nfirm)
        account_say(a,
                    "%d column%s tentative: the sample showed no value in "
                    "them",
                    r->table.ncols - r->table.nfirm,
                    r->table.ncols - r->table.nfirm == 1 ? "" : "s");
    account_say(a,
                "read    %8.3f s  %8.1f MB/s  (%.1f MB; summed over "
                "readers)",
                a->t[ACC_READ], a->t[ACC_READ] > 0 ? mb / a->t[ACC_READ] : 0.0,
                mb);
    account_say(a, "parse   %8.3f s  thread time", a->t[ACC_PARSE]);
    r->be->ops->describe(r->be, a);
    if (r->cfg->what & STAT_HIST)
        account_say(a, "hist    %8.3f s", a->t[ACC_HIST]);
    if (r->npass)
        account_say(a,
                    "passes  %8.3f s  %u after the input (%d reading it "
                    "again)",
                    a->t[ACC_PASSES], r->npass, r->reread);
    account_say(a, "retire  %8.3f s  main thread waiting for workers",
                a->t[ACC_RETIRE]);
    account_say(a, "finish  %8.3f s  the backend's states merged",
                a->t[ACC_FINISH]);
    if (r->cfg->group_by)
        account_say(a,
                    "groups  %8.3f s  put in order, their quantiles and "
                    "histograms",
                    a->t[ACC_GROUPS]);
    account_say(a, "total   %8.3f s  %8.1f MB/s", total,
                total > 0 ? mb / total : 0.0);
}

void engine_close(engine *r)
{
    if (!r)
        return;
    jobs_stop(r->js);
    if (r->js)
        feed_free(&r->fd);
    if (r->be)
        r->be->ops->close(r->be);
    backend_gpu_opener_free(r->opener);
    for (int k = 0; r->prof && k < r->table.ncols; k++)
        profile_free(&r->prof[k]);
    free(r->prof);
    columns_free(&r->table);
    columns_free(&r->keys);
    columns_free(&r->texts);
    columns_free(&r->rowkeys);
    free(r->kind);
    free(r->text_key);
    free(r->text_cols);
    for (int k = 0; r->left && k < r->nleft; k++) {
        free(r->left[k].label);
        free(r->left[k].why);
    }
    free(r->left);
    free(r->q);
    free(r->order);
    free(r->kinds);
    free(r);
}

/* The names of the first input that shows its fields, copied out of it. */
static int copy_names(const input *in, char ***names, int *n, cs_error *e)
{
    *names = calloc((size_t)in->nfields + 1, sizeof **names);
    if (!*names)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    for (*n = 0; *n < in->nfields; ++*n)
        if (!((*names)[*n] = strdup(in->names[*n])))
            return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    return CS_OK;
}

int engine_list_columns(const engine_config *cfg, const engine_sink *sink,
                        char ***names, int *n, cs_error *e)
{
    *names = NULL;
    *n = 0;
    engine *r = calloc(1, sizeof *r);
    if (!r)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    r->cfg = cfg;
    account_init(&r->acc, sink, 0, 0);
    /* the head alone is read: one thread inflates it */
    r->src_cfg.threads = 1;
    input *in = NULL;
    int rc = CS_OK;
    if (cfg->binary && binary_spec_parse(cfg->binary, &r->spec, e) != CS_OK)
        rc = e->status;
    r->bin = cfg->binary ? &r->spec : NULL;
    if (rc == CS_OK)
        rc = open_first(r, &in, e);
    if (rc == CS_OK && !in)
        rc = all_empty(r, e);
    if (rc == CS_OK)
        rc = copy_names(in, names, n, e);
    if (in)
        input_release(in);
    free(r);
    return rc;
}

int engine_run(const engine_config *cfg, const engine_sink *sink,
               engine **handle, engine_result *out, cs_error *e)
{
    memset(out, 0, sizeof *out);
    engine *r = calloc(1, sizeof *r);
    *handle = r;
    if (!r)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    r->cfg = cfg;
    r->mpi = cfg->mpi ? cfg->mpi : &no_mpi;
    r->parts = r->mpi->parts;
    account_init(&r->acc, sink, cfg->verbose, cfg->progress);
    r->nthreads = threads_wanted(cfg);
    r->nworkers = r->nthreads;
    if (cfg->binary && binary_spec_parse(cfg->binary, &r->spec, e) != CS_OK)
        return e->status;
    r->bin = cfg->binary ? &r->spec : NULL;
    input *in = NULL;
    int rc = quantile_list(r, e);
    if (rc == CS_OK)
        rc = choose_device(r, e);
    rc = share_parts(r, rc, e);
    decode_threads(r);
    if (rc == CS_OK)
        rc = open_first(r, &in, e);
    if (rc == CS_OK && (rc = learn_columns(r, in, e)) == CS_EDATA &&
        no_rows(r, in)) { /* an input that failed to open is no answer */
        input_release(in);
        memset(e, 0, sizeof *e);
        return CS_OK; /* out: rows 0, no columns */
    }
    if (rc == CS_OK)
        rc = state_fits(r, in, e);
    if (rc == CS_OK)
        rc = start_backend(r, e);
    if (rc == CS_OK)
        rc = start_jobs(r, e);
    if (rc == CS_OK)
        rc = feed_all(r, in, e);
    else
        input_release(in);
    if (r->js)
        rc = jobs_drain(r->js, e);
    if (r->js) /* their memory is the results' now (wide tables) */
        jobs_trim(r->js);
    account_progress_end(&r->acc);
    if (rc == CS_OK)
        rc = finish(r, out, e);
    if (rc == CS_OK)
        rc = select_values(r, out, e);
    if (rc == CS_OK)
        rc = take_columns(r, out, e);
    if (rc == CS_OK)
        rc = take_profiles(r, out, e);
    double t0 = account_now();
    if (rc == CS_OK && cfg->group_by)
        rc = take_groups(r, out, e);
    account_time(&r->acc, ACC_GROUPS, account_now() - t0);
    account_progress_end(&r->acc); /* passes that read the input again */
    if (rc == CS_OK)
        rc = note_invalid(r, out, e);
    if (rc == CS_OK)
        rc = take_repeats(r, out, e);
    if (rc == CS_OK && !r->mpi->invalid_to_result) {
        engine_warn_invalid(out, sink);
        engine_warn_repeats(out, sink);
        engine_say_left(out, sink);
    }
    if (rc == CS_OK)
        report_times(r, out->rows);
    if (rc == CS_OK)
        rc = engine_result_finalize(out, e);
    if (rc != CS_OK)
        engine_result_free(out);
    return rc;
}

/* Groups finalized this far ahead are asked for (group_ask). */
#define GROUP_ASK_AHEAD 6

int engine_group_finalize(const engine_groups *gs, size_t i, col_summary *out)
{
    const engine_group *g = &gs->g[i];
    if (i + GROUP_ASK_AHEAD < gs->n)
        group_ask(&gs->table, gs->g[i + GROUP_ASK_AHEAD].id);
    for (int h = 0; h < gs->nheld; h++) {
        if (g->st) {
            stats_finalize(&g->st[h], &out[h]);
            continue;
        }
        col_stats s;
        int bad = group_cell_stats(
            &gs->table, g->id * (size_t)gs->table.ncols + (size_t)h, &s);
        if (!bad)
            stats_finalize(&s, &out[h]);
        stats_free(&s);
        if (bad)
            return -1;
    }
    return 0;
}

int engine_group_profiles(const engine_groups *gs, size_t i,
                          const col_summary *sum, prof_summary *out)
{
    const engine_group *g = &gs->g[i];
    for (int h = 0; g->prof && gs->text && h < gs->nheld; h++)
        if (profile_summarize(&g->prof[h], gs->text[h], sum[h].is_int, gs->top,
                              &out[h]))
            return -1;
    return 0;
}

/* The whole profiles' summaries, as the report shows them (a number
 * column's values as its other statistics are); their texts point into
 * held_raw. */
static int summarize_profiles(engine_result *r, cs_error *e)
{
    size_t n = (size_t)(r->nheld ? r->nheld : 1);
    if (!r->held_raw || r->held_prof)
        return CS_OK;
    if (!(r->held_prof = calloc(n, sizeof *r->held_prof)))
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    for (int k = 0; k < r->ncols; k++) {
        engine_column *c = &r->cols[k];
        if (profile_summarize(&r->held_raw[c->held], c->kind == COL_TEXT,
                              c->sum.is_int, r->prof_top,
                              &r->held_prof[c->held]))
            return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
        c->prof = &r->held_prof[c->held];
    }
    return CS_OK;
}

int engine_result_finalize(engine_result *r, cs_error *e)
{
    for (int k = 0; r->cols && k < r->ncols; k++)
        stats_finalize(r->cols[k].st, &r->cols[k].sum);
    return summarize_profiles(r, e);
}

void engine_result_free(engine_result *res)
{
    for (int k = 0; res->cols && k < res->ncols; k++) {
        free(res->cols[k].name);
        free(res->cols[k].label);
        free(res->cols[k].invalid_file);
        free(res->cols[k].invalid_text);
    }
    for (int k = 0; k < res->nheld; k++) {
        stats_free(&res->held_st[k]);
        hist_free(&res->held_h[k]);
        if (res->held_prof)
            profile_summary_free(&res->held_prof[k]);
        if (res->held_raw)
            profile_free(&res->held_raw[k]);
    }
    free(res->held_prof);
    free(res->held_raw);
    for (int k = 0; res->left && k < res->nleft; k++) {
        free(res->left[k].label);
        free(res->left[k].why);
    }
    free(res->left);
    free(res->repeat_file);
    free(res->cols);
    free(res->held_st);
    free(res->held_h);
    free(res->held_q);
    groups_free(res->groups);
    memset(res, 0, sizeof *res);
}

void engine_names_free(char **names, int n)
{
    for (int i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
}
