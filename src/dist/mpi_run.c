/* --mpi over MPI: guess this rank's part of the inputs and run the engine
 * on it at once, its quote-state summary made beside (speculate.h); then
 * exchange the summaries (one MPI_Allgather), check the guesses and parse
 * again where one missed; gather the states, errors and first invalid
 * fields on rank 0, merge them there in rank order, and agree on the
 * status (MPI_Bcast). Every rank reaches every collective, whatever
 * failed before it. */
#include "src/dist/mpi_run.h"

#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/binary/binary_reader.h"
#include "src/dist/mpi_collective.h"
#include "src/dist/mpi_spec.h"
#include "src/dist/state.h"

typedef struct world {
    int rank, n;
    MPI_Comm node;     /* the ranks of this node */
    int local, nlocal; /* this rank's index there, and their number */
    int jobs;          /* -j as given (0: none) */
} world;

/* GPUs of this node: CUDA_VISIBLE_DEVICES's list, else /dev/nvidiaN. */
static int count_gpus(const char *vis)
{
    int n = 0;
    if (vis && *vis) {
        for (const char *p = vis; p; p = strchr(p + 1, ','))
            n++;
        return n;
    }
    DIR *d = opendir("/dev");
    struct dirent *de;
    while (d && (de = readdir(d)))
        n += !strncmp(de->d_name, "nvidia", 6) && de->d_name[6] >= '0' &&
             de->d_name[6] <= '9';
    if (d)
        closedir(d);
    return n;
}

/* cores / among, at least 1 and at most the rank's own (its affinity). */
static int cores_each(int among)
{
    long share = sysconf(_SC_NPROCESSORS_ONLN) / (among > 0 ? among : 1);
    int mine = engine_cores();
    return share < 1 ? 1 : share < mine ? (int)share : mine;
}

/* The ranks of one node share its cores: without -j, each takes its
 * share of them, or fewer where the launcher bound it to fewer (Open
 * MPI binds 1 or 2 ranks to a core each unless told --bind-to none; srun
 * to --cpus-per-task). */
static void share_node(engine_config *cfg, world *w)
{
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                        &w->node);
    MPI_Comm_rank(w->node, &w->local);
    MPI_Comm_size(w->node, &w->nlocal);
    if (cfg->threads == 0)
        cfg->threads = cores_each(w->nlocal);
}

/* The rank's node-local index modulo the node's GPUs picks its GPU, set
 * before anything opens CUDA, so that --device and auto then see one;
 * the ranks that pick the same one share its memory (m->gpu_sharers). */
static void choose_gpu(const engine_config *cfg, engine_mpi *m, world w)
{
    int local = w.local;
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    /* set empty, it keeps colstat on the CPU (man page) */
    int n = vis && !*vis ? 0 : count_gpus(vis);
    if (cfg->device == ENGINE_CPU || n == 0)
        return;
    char pick[256];
    if (vis && *vis) {
        const char *p = vis;
        for (int k = local % n; k > 0; k--)
            p = strchr(p, ',') + 1;
        size_t len = strcspn(p, ",");
        snprintf(pick, sizeof pick, "%.*s", (int)len, p);
    } else {
        snprintf(pick, sizeof pick, "%d", local % n);
    }
    setenv("CUDA_VISIBLE_DEVICES", pick, 1);
    m->gpu_sharers = w.nlocal / n + (local % n < w.nlocal % n);
}

/* Ranks other than 0: their -v lines only, marked with the rank (where
 * each rank's backend and GPU show); warnings come once, from rank 0. */
typedef struct rank_sink {
    const engine_sink *to;
    int rank;
} rank_sink;

static void say_rank(void *ctx, engine_msg kind, const char *file,
                     uint64_t line, const char *text)
{
    const rank_sink *r = ctx;
    char marked[1024];
    if (kind != ENGINE_VERBOSE)
        return;
    snprintf(marked, sizeof marked, "rank %d: %s", r->rank, text);
    r->to->say(r->to->ctx, kind, file, line, marked);
}

/* What a rank sends rank 0: its state, and its columns' first invalid
 * fields as "column\0line\0file\0text\0" records, then its repeated
 * header lines as one with column -1 and the count for text. Rank 0 keeps its
 * own columns' tentative marks and the error should none be reported: every
 * rank reports every tentative column (keep_tentative), which rank 0
 * drops where the merged counts show no numbers, as one process would. */
typedef struct packed {
    char *state, *invalid;
    size_t state_len, invalid_len;
    int ncols, verbose;
    size_t memory; /* --memory: the merged counts' room on rank 0 */
    unsigned char *tentative;
    cs_error none;
    size_t nq;     /* quantiles a column, the same on every rank (the */
    qres *q;       /* collective passes): rank 0 keeps its own, per column */
    char **labels; /* as messages name the columns (states carry none) */
    int nleft;     /* the columns left out: rank 0 keeps its own (the */
    engine_left *left; /* sample, the same on every rank) */
} packed;

/* What the states do not carry, the same on every rank, into p: the
 * quantiles and the labels of r's columns, in their order, and the
 * columns left out (taken from r). */
static int keep_own(engine_result *r, packed *p)
{
    size_t n = (size_t)r->ncols * r->nq;
    p->nq = r->nq;
    p->q = malloc((n ? n : 1) * sizeof *p->q);
    p->labels = calloc((size_t)(r->ncols ? r->ncols : 1), sizeof *p->labels);
    for (int k = 0; p->q && k < r->ncols && r->nq; k++)
        memcpy(p->q + (size_t)k * r->nq, r->cols[k].q, r->nq * sizeof *p->q);
    for (int k = 0; p->labels && k < r->ncols; k++)
        if (r->cols[k].label && !(p->labels[k] = strdup(r->cols[k].label)))
            return -1;
    p->left = r->left;
    p->nleft = r->nleft;
    r->left = NULL;
    r->nleft = 0;
    return p->q && p->labels ? 0 : -1;
}

static void free_packed(packed *p)
{
    engine_result rest = {0};
    rest.left = p->left;
    rest.nleft = p->nleft;
    engine_result_free(&rest);
    for (int k = 0; p->labels && k < p->ncols; k++)
        free(p->labels[k]);
    free(p->labels);
    free(p->q);
    free(p->state);
    free(p->invalid);
    free(p->tentative);
}

static int pack(const engine_config *cfg, engine_result *r, packed *p,
                cs_error *e)
{
    FILE *s = open_memstream(&p->state, &p->state_len);
    FILE *v = open_memstream(&p->invalid, &p->invalid_len);
    state_info info = {.key = state_key(cfg), .what = cfg->what};
    int rc = s && v && info.key ? state_write(s, &info, r, e)
                                : cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    for (int k = 0; v && k < r->ncols; k++)
        if (r->cols[k].invalid_file)
            fprintf(v, "%d%c%llu%c%s%c%s%c", k, 0,
                    (unsigned long long)r->cols[k].invalid_line, 0,
                    r->cols[k].invalid_file, 0,
                    r->cols[k].invalid_text ? r->cols[k].invalid_text : "", 0);
    if (v && r->repeats)
        fprintf(v, "-1%c%llu%c%s%c%llu%c", 0,
                (unsigned long long)r->repeat_line, 0,
                r->repeat_file ? r->repeat_file : "", 0,
                (unsigned long long)r->repeats, 0);
    int bad = s && fclose(s); /* both closed, whatever the first gave */
    bad |= v && fclose(v);
    if (bad)
        rc = cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    p->none = r->none;
    p->verbose = cfg->verbose;
    p->memory = cfg->memory_set ? cfg->memory : engine_default_memory();
    p->ncols = r->ncols;
    p->tentative = calloc((size_t)(r->ncols ? r->ncols : 1), 1);
    for (int k = 0; p->tentative && k < r->ncols; k++)
        p->tentative[k] = (unsigned char)r->cols[k].tentative;
    if (rc == CS_OK && (!p->tentative || keep_own(r, p)))
        rc = cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    free(info.key);
    return rc;
}

/* Threads summarising the tail beside the parse. A rank parsing on its
 * cores spares a few (a thread reads 6 GB/s with quotes, 20-36 GB/s
 * without). A rank on a GPU gives it half: its cores only feed the copies,
 * and on two H100s the tail of a 16 GB share took 2.6 s on 2 threads while
 * the GPU parsed the share in 1.0 s, every rank waiting for it. */
static int tail_threads(world w, int on_gpu)
{
    int n = cores_each(w.nlocal) / (on_gpu ? 2 : 8);
    int most = on_gpu ? 16 : 4;
    return n < 1 ? 1 : n > most ? most : n;
}

/* This rank's share through the engine, packed for rank 0. */
static int run_share(const engine_config *cfg, const engine_sink *sink, world w,
                     packed *p, cs_error *e)
{
    rank_sink rs = {sink, w.rank};
    engine_sink marked = {say_rank, &rs};
    const engine_sink *says = w.rank == 0 ? sink : &marked;
    engine_config c = *cfg;
    engine_mpi m = *cfg->mpi;
    c.mpi = &m;
    m.invalid_to_result = 1;
    m.keep_tentative = 1;
    c.progress = c.progress && w.rank == 0;
    engine *eng = NULL;
    engine_result r;
    int others = 0;
    mpi_rank me = {w.rank, w.n, tail_threads(w, m.gpu_sharers > 0)};
    mpi_spec_parts keep = {NULL, NULL};
    int rc = mpi_spec_run(&c, says, me, &eng, &r, &others, &keep, e);
    if (rc == CS_OK)
        rc = pack(&c, &r, p, e);
    if (others) /* the first error in input order is another rank's */
        rc = CS_OK;
    engine_close(eng);
    engine_result_free(&r);
    mpi_spec_free(&keep);
    return rc;
}

/* Rank 0: the merged distinct values' counts within --memory, as one
 * process's (a state carries them whole). */
static int counts_fit(const engine_result *out, size_t memory, cs_error *e)
{
    if (state_profile_bytes(out) <= profile_budget(memory, out->nheld))
        return CS_OK;
    return cs_fail(e, CS_EDATA, "", 0,
                   "--mpi: the ranks' distinct values' counts (--distinct, "
                   "--mode, --top) need more than --memory on rank 0, which "
                   "merges them; give a larger --memory");
}

/* Rank 0: the ranks' states merged in rank order into *out. */
static int merge_ranks(const char *states, const int *len, const int *at, int n,
                       size_t memory, engine_result *out, cs_error *e)
{
    int rc = CS_OK;
    for (int r = 0; r < n && rc == CS_OK; r++) {
        engine_result part;
        state_info info;
        FILE *f = fmemopen((void *)(states + at[r]), (size_t)len[r], "rb");
        if (!f)
            return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
        rc = state_read(f, "(rank's state)", &info, r ? &part : out, e);
        fclose(f);
        free(info.key);
        if (rc == CS_OK && r) {
            rc = state_merge(out, &part, NULL, e);
            engine_result_free(&part);
        }
        if (rc == CS_OK)
            rc = counts_fit(out, memory, e);
    }
    return rc;
}

/* Rank 0: the repeated header lines are every rank's together, the
 * first of them the first rank's that has one, as one process counts. */
static int add_repeats(engine_result *out, unsigned long long line,
                       const char *file, const char *count, cs_error *e)
{
    out->repeats += strtoull(count, NULL, 10);
    if (out->repeat_file || !file[0])
        return CS_OK;
    out->repeat_line = line;
    if (!(out->repeat_file = strdup(file)))
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    return CS_OK;
}

/* Rank 0: each column's first invalid field is the first rank's that has
 * one, the ranks' shares being in input order. */
static int place_invalid(const char *v, const int *len, const int *at, int n,
                         engine_result *out, cs_error *e)
{
    for (int r = 0; r < n; r++)
        for (const char *p = v + at[r], *end = p + len[r]; p < end;) {
            int k = atoi(p);
            p += strlen(p) + 1;
            unsigned long long line = strtoull(p, NULL, 10);
            p += strlen(p) + 1;
            engine_column *c = k < out->ncols ? &out->cols[k] : NULL;
            const char *file = p;
            p += strlen(p) + 1;
            if (k < 0 && add_repeats(out, line, file, p, e) != CS_OK)
                return e->status;
            if (k >= 0 && c && !c->invalid_file) {
                c->invalid_line = line;
                if (!(c->invalid_file = strdup(file)) ||
                    !(c->invalid_text = strdup(p)))
                    return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
            }
            p += strlen(p) + 1;
        }
    return CS_OK;
}

/* Rank 0: the merged states carry no quantiles and no labels; every
 * rank's are those of the whole input, so rank 0's own go with the
 * merged columns. */
static int attach_own(engine_result *out, packed *p, cs_error *e)
{
    if (out->ncols != p->ncols) /* state_merge checked: not expected */
        return cs_fail(e, CS_EDATA, "", 0, "--mpi: the ranks' columns differ");
    for (int k = 0; p->labels && k < out->ncols; k++) {
        out->cols[k].label = p->labels[k];
        p->labels[k] = NULL;
    }
    out->left = p->left;
    out->nleft = p->nleft;
    p->left = NULL;
    p->nleft = 0;
    if (!p->nq)
        return CS_OK;
    out->nq = p->nq;
    out->held_q = p->q;
    p->q = NULL;
    for (int k = 0; k < out->ncols; k++)
        out->cols[k].q = &out->held_q[(size_t)k * out->nq];
    return CS_OK;
}

/* Rank 0: the tentative columns (p's marks) whose merged counts show no
 * numbers are not reported, but named with the others left out. */
static int drop_tentative(engine_result *out, const packed *p, cs_error *e)
{
    int n = 0, rc = CS_OK;
    for (int k = 0; k < out->ncols; k++) {
        engine_column *c = &out->cols[k];
        int keep =
            k >= p->ncols || !p->tentative[k] || engine_holds_numbers(c->st);
        if (!keep && rc == CS_OK)
            rc = engine_leave_out(out, c->label ? c->label : c->name, c->index,
                                  c->st, c->invalid_text, e);
        if (keep || rc != CS_OK) { /* out of memory: kept, to be freed */
            out->cols[n++] = *c;
            continue;
        }
        free(c->name);
        free(c->label);
        free(c->invalid_file);
        free(c->invalid_text);
    }
    out->ncols = n;
    if (rc == CS_OK && n == 0)
        *e = p->none;
    return rc == CS_OK && n ? CS_OK : e->status;
}

/* Every rank's bytes to rank 0, in rank order: *all (malloc'ed), with
 * len[r] and at[r] locating rank r's. */
static int gather_bytes(world w, const char *mine, size_t n, char **all,
                        int *len, int *at)
{
    int me = (int)n;
    MPI_Gather(&me, 1, MPI_INT, len, 1, MPI_INT, 0, MPI_COMM_WORLD);
    size_t total = 0;
    for (int r = 0; w.rank == 0 && r < w.n; r++) {
        at[r] = (int)total;
        total += (size_t)len[r];
    }
    *all = w.rank == 0 ? malloc(total ? total : 1) : NULL;
    int ok = w.rank != 0 || *all;
    MPI_Gatherv(mine, me, MPI_BYTE, *all, len, at, MPI_BYTE, 0, MPI_COMM_WORLD);
    return ok ? CS_OK : CS_EDATA;
}

/* Rank 0's -v line: how long the other ranks kept it waiting (the
 * slowest share's end), and the merge. */
static void say_merged(const engine_sink *sink, double waited, double merged)
{
    char text[160];
    snprintf(text, sizeof text,
             "--mpi: the ranks' states gathered in %.3f s, merged in %.3f s",
             waited, merged);
    sink->say(sink->ctx, ENGINE_VERBOSE, "", 0, text);
}

/* Rank 0: the first error in rank order, the shares being in input
 * order; else the merged result. */
static int conclude(world w, int rc, packed *p, const engine_sink *sink,
                    engine_result *out, cs_error *e)
{
    cs_error *errs = w.rank == 0 ? calloc((size_t)w.n, sizeof *errs) : NULL;
    int *len = w.rank == 0 ? calloc((size_t)w.n * 2, sizeof *len) : NULL;
    double t0 = MPI_Wtime();
    e->status = rc;
    MPI_Gather(e, sizeof *e, MPI_BYTE, errs, sizeof *e, MPI_BYTE, 0,
               MPI_COMM_WORLD);
    char *states = NULL, *inv = NULL;
    int got = gather_bytes(w, p->state, p->state_len, &states, len,
                           len ? len + w.n : NULL);
    int *vlen = w.rank == 0 ? calloc((size_t)w.n * 2, sizeof *vlen) : NULL;
    got |= gather_bytes(w, p->invalid, p->invalid_len, &inv, vlen,
                        vlen ? vlen + w.n : NULL);
    if (w.rank == 0) {
        double t1 = MPI_Wtime();
        int first = -1;
        for (int r = 0; r < w.n && first < 0; r++)
            first = errs[r].status ? r : -1;
        if (first >= 0)
            *e = errs[first];
        rc = first >= 0 ? e->status
             : got
                 ? cs_fail(e, CS_ENOMEM, "", 0, "out of memory")
                 : merge_ranks(states, len, len + w.n, w.n, p->memory, out, e);
        if (rc == CS_OK)
            rc = attach_own(out, p, e);
        if (rc == CS_OK)
            rc = place_invalid(inv, vlen, vlen + w.n, w.n, out, e);
        if (rc == CS_OK)
            rc = drop_tentative(out, p, e);
        if (p->verbose)
            say_merged(sink, t1 - t0, MPI_Wtime() - t1);
        if (rc == CS_OK) {
            engine_warn_invalid(out, sink);
            engine_warn_repeats(out, sink);
            engine_say_left(out, sink);
        }
    }
    free(errs);
    free(len);
    free(vlen);
    free(states);
    free(inv);
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rc;
}

int dist_mpi_built(void)
{
    return 1;
}

int dist_mpi_run(const engine_config *cfg, const engine_sink *sink,
                 engine_result *out, int *root, cs_error *e)
{
    world w;
    memset(out, 0, sizeof *out);
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w.n);
    *root = w.rank == 0;
    engine_config c = *cfg;
    w.jobs = cfg->threads;
    engine_mpi m = {0};
    c.mpi = &m;
    share_node(&c, &w);
    choose_gpu(&c, &m, w);
    packed p = {0};
    int rc = run_share(&c, sink, w, &p, e);
    rc = conclude(w, rc, &p, sink, out, e);
    if (rc == CS_OK && out->groups) /* in the ranks' table order */
        rc = engine_groups_arrange(out->groups, cfg->num, e);
    MPI_Comm_free(&w.node);
    free_packed(&p);
    if (rc == CS_OK)
        rc = engine_result_finalize(out, e);
    if (rc != CS_OK)
        engine_result_free(out);
    e->status = rc;
    return rc;
}

void dist_mpi_end(void)
{
    /* no rank leaves (and, with an error status, makes the launcher stop
     * the others) before rank 0 wrote everything */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
}
