/* Raw input (gpu.h's gpu_raw_*): segments of bytes go to the device as they
 * are, on a copy stream of their own, into NBUF device buffers; stream 0
 * parses each (gpu/csv_kernel.cu or gpu/binary_kernel.cu) and reduces it
 * with the fused kernels, into stream 0's state. The copy of segment i+1
 * overlaps the kernels of segment i; a buffer is refilled only once the
 * kernels that read it are done. Everything the parse learns (rows, lines,
 * the carried record, why it stopped) stays on the device, so nothing
 * waits for the host between segments. */
extern "C" {
#include "io/binary/binary_reader.h"
#include "io/num/parse_kind.h"
#include "io/num/parse_number.h"
#include "src/stats/stats.h"
}
#include "backend.cuh"
#include "group_raw.cuh"
#include "group_values.cuh"
#include "raw.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static_assert(RAW_FIELD_BYTES == GPU_FIELD_BYTES, "one size, two names");

namespace
{

constexpr int NBUF = 3;  /* device byte buffers */
constexpr int NRAW = 64; /* segments tracked in flight */
/* 16 MiB: fewer segments, so each one's fixed launches and table
 * clears cost less; measured on the H100 host (bench/RESULTS.md, issue 22
 * "anatomy"), 16 GB of CSV by 1,000 keys took 1.06 s of kernels against
 * 1.24 s with 8 MiB, 1.51-1.55 s wall against 1.68-1.83 s; ungrouped,
 * 1.14-1.15 s against 1.19 s; 32 MiB gained nothing more. */
constexpr size_t SEGMENT_BYTES = 16u << 20;
constexpr unsigned CARRY_MAX = 1u << 20; /* the longest carried record */

struct raw_sub {
    cudaEvent_t start, copied, kstart, done;
    const void *bytes;
    ull index;
    bool busy;
};

} // namespace

struct raw_input {
    int binary, ncols;
    size_t record_size, segment_bytes;
    unsigned carry;
    cudaStream_t cs; /* copies */
    char *dbuf[NBUF];
    cudaEvent_t buf_free[NBUF];
    bool buf_used[NBUF];
    double *dcol, *dmoved;
    int *dcorr, *dmoved_corr; /* corrections: [ncols][ld], zero at rest */
    int *dcorr_on;            /* [ncols] */
    bool wide;                /* binary: an i64 or u64 column */
    size_t ld;
    raw_state *dstate;
    raw_status *hstatus, *dstatus;
    char *dcarry;
    ull *dcnt, *dcnt_segment;
    int *dmap;
    char *dinv_text; /* [ncols][RAW_FIELD_BYTES]: first invalid fields */
    unsigned *dinv_len;
    char *drepeat; /* the header line, for repeated ones */
    size_t drepeat_cap;
    unsigned char *dtype;
    unsigned short *doffset;
    void *dscratch;
    hard_entry *dhard;
    num_format num, *dnum; /* how the CSV's numbers are written */
    /* per column its kind (io/num/parse_kind.h), host and device; NULL
       while every column holds plain numbers */
    unsigned char *kinds, *dkinds;
    raw_group *grp; /* --group-by's table and state, from its first input */
    bool group_off; /* no device memory for them: the device stops at once */
    group_order *gorder; /* the kept values' rows by group, once asked for */
    bool gorder_off;     /* no device memory for it: the host orders them */
    unsigned *hgid;      /* then: each kept row's group, on the host */
    int *dkmap;          /* field -> key column */
    bool bin_keep;       /* binary: this input's values go to the arena */
    ull size_hint;       /* this input's (gpu_raw_format) */
    double row_rate;     /*   likewise */
    ull arena_base;      /* the arena's rows before this input */
    raw_sub subs[NRAW];
    ull nsub;
    ull first_row, first_line, next_row;
    csv_args a;
};

namespace
{

size_t segment_bytes_wanted(const gpu_backend *g)
{
    return g->cfg.raw_bytes ? g->cfg.raw_bytes : SEGMENT_BYTES;
}

int make_events(gpu_backend *g, raw_input *r)
{
    for (int i = 0; i < NRAW; i++) {
        raw_sub *s = &r->subs[i];
        cudaEvent_t *e[4] = {&s->start, &s->copied, &s->kstart, &s->done};
        for (int k = 0; k < 4; k++)
            CK(g, cudaEventCreateWithFlags(e[k], cudaEventBlockingSync));
    }
    for (int b = 0; b < NBUF; b++)
        CK(g,
           cudaEventCreateWithFlags(&r->buf_free[b], cudaEventDisableTiming));
    return 0;
}

/* Rows of the value buffer: every row of a segment, unless memory is short
 * (CSV then stops at a segment with more rows; binary segments shrink). */
size_t pick_ld(const raw_input *r, size_t free_b)
{
    size_t want = r->binary ? r->segment_bytes / r->record_size
                            : ((size_t)r->carry + r->segment_bytes) / 2 + 1;
    size_t per_row = (size_t)r->ncols * sizeof(double);
    /* two such buffers for CSV, and two of corrections half their size */
    size_t room = free_b / 16 / per_row;
    if (want > room)
        want = room > 4096 ? room : 4096;
    if (want > DEV_MAX_ROWS_PER_LAUNCH)
        want = DEV_MAX_ROWS_PER_LAUNCH;
    return (want + 1) & ~(size_t)1;
}

int setup(gpu_backend *g, raw_input *r, const gpu_raw_format *f)
{
    r->binary = f->binary;
    r->ncols = g->cfg.ncols;
    r->record_size = f->binary ? f->record_size : 1;
    size_t want = segment_bytes_wanted(g);
    /* binary: an even number of records, so each segment's values start
       16-byte aligned in the arena (the kernels load pairs) */
    size_t unit = r->record_size * (f->binary ? 2 : 1);
    r->segment_bytes = want >= unit ? want / unit * unit
                                    : want / r->record_size * r->record_size;
    if (r->segment_bytes == 0)
        r->segment_bytes = r->record_size;
    r->carry = f->binary
                   ? 0
                   : (unsigned)(r->segment_bytes < CARRY_MAX ? r->segment_bytes
                                                             : CARRY_MAX);
    size_t free_b = 0, total_b = 0;
    CK(g, cudaMemGetInfo(&free_b, &total_b));
    r->ld = pick_ld(r, free_b);
    if (r->binary && r->segment_bytes / r->record_size > r->ld)
        r->segment_bytes = r->ld * r->record_size;
    CK(g, cudaStreamCreateWithFlags(&r->cs, cudaStreamNonBlocking));
    /* Zeroed once: the parse loads whole 64-byte words, the first and
       last of a segment's text partly outside it (compute-sanitizer's
       initcheck would flag those bytes, never used, as uninitialised). */
    for (int b = 0; b < NBUF; b++) {
        size_t bytes = r->carry + r->segment_bytes + 128;
        CK(g, cudaMalloc((void **)&r->dbuf[b], bytes));
        CK(g, cudaMemset(r->dbuf[b], 0, bytes));
    }
    size_t ncols = (size_t)r->ncols;
    CK(g, cudaMalloc((void **)&r->dcol, ncols * r->ld * sizeof(double)));
    CK(g, cudaMalloc((void **)&r->dcorr, ncols * r->ld * sizeof(int)));
    CK(g, cudaMalloc((void **)&r->dcorr_on, ncols * sizeof(int)));
    CK(g, cudaMalloc((void **)&r->dstate, sizeof(raw_state)));
    CK(g, cudaHostAlloc((void **)&r->hstatus, sizeof(raw_status),
                        cudaHostAllocMapped));
    memset(r->hstatus, 0, sizeof *r->hstatus);
    CK(g, cudaHostGetDevicePointer((void **)&r->dstatus, r->hstatus, 0));
    CK(g, cudaMalloc((void **)&r->dcarry, r->carry + 1));
    CK(g, cudaMalloc((void **)&r->dcnt, ncols * CNT_N * sizeof(ull)));
    CK(g, cudaMalloc((void **)&r->dcnt_segment, ncols * CNT_N * sizeof(ull)));
    CK(g, cudaMalloc((void **)&r->dinv_text, ncols * RAW_FIELD_BYTES));
    CK(g, cudaMalloc((void **)&r->dinv_len, ncols * sizeof(unsigned)));
    /* downloaded whole, though only columns with an invalid field are
       written: defined bytes for the rest (compute-sanitizer initcheck) */
    CK(g, cudaMemset(r->dinv_text, 0, ncols * RAW_FIELD_BYTES));
    CK(g, cudaMemset(r->dinv_len, 0, ncols * sizeof(unsigned)));
    CK(g, cudaMalloc((void **)&r->dtype, ncols));
    CK(g, cudaMalloc((void **)&r->doffset, ncols * sizeof(unsigned short)));
    if (make_events(g, r))
        return -1;
    if (!r->binary) {
        csv_args *a = &r->a;
        a->nsm = g->nsm;
        a->carry = r->carry;
        a->n = (unsigned)r->segment_bytes;
        size_t bytes = csv_scratch(a, NULL);
        CK(g, cudaMalloc(&r->dscratch, bytes));
        csv_scratch(a, r->dscratch);
        CK(g, cudaMalloc((void **)&r->dhard, HARD_CAP * sizeof(hard_entry)));
        CK(g, cudaMalloc((void **)&r->dnum, sizeof(num_format)));
        g->store.arena_count = &r->dstate->arena_used; /* counted there */
        CK(g, cudaMalloc((void **)&r->dmoved, ncols * r->ld * sizeof(double)));
        CK(g,
           cudaMalloc((void **)&r->dmoved_corr, ncols * r->ld * sizeof(int)));
    }
    return 0;
}

/* Binary: each column's type and offset, from the field mapped to it. */
int upload_binary_map(gpu_backend *g, raw_input *r, const gpu_raw_format *f)
{
    size_t ncols = (size_t)r->ncols;
    unsigned char *type = static_cast<unsigned char *>(calloc(ncols, 1));
    unsigned short *off =
        static_cast<unsigned short *>(calloc(ncols, sizeof *off));
    int rc = type && off ? 0 : fail_nomem(g);
    r->wide = false;
    for (int i = 0; !rc && i < f->nmap; i++)
        if (f->map[i] >= 0) {
            type[f->map[i]] = f->type[i];
            off[f->map[i]] = f->offset[i];
            r->wide = r->wide || f->type[i] == BT_I64 || f->type[i] == BT_U64;
        }
    if (!rc)
        rc = upload(g, r->dtype, type, ncols);
    if (!rc)
        rc = upload(g, r->doffset, off, ncols * sizeof *off);
    free(type);
    free(off);
    return rc;
}

/* The columns' kinds, to the device and kept for the host's fallback. */
int upload_kinds(gpu_backend *g, raw_input *r, const gpu_raw_format *f)
{
    size_t n = (size_t)(r->ncols ? r->ncols : 1);
    if (!f->kinds)
        return 0;
    if (!r->kinds) {
        r->kinds = static_cast<unsigned char *>(malloc(n));
        if (!r->kinds)
            return fail_nomem(g);
        CK(g, cudaMalloc((void **)&r->dkinds, n));
    }
    memcpy(r->kinds, f->kinds, (size_t)r->ncols);
    return upload(g, r->dkinds, r->kinds, (size_t)r->ncols);
}

/* --group-by: the key fields, and the groups made at the first input. */
int upload_keys(gpu_backend *g, raw_input *r, const gpu_raw_format *f)
{
    if (!f->nkeys)
        return 0;
    if (!r->grp && !r->group_off) {
        size_t maxrec = (size_t)r->carry + r->segment_bytes + 1;
        cudaError_t e =
            raw_group_make(&r->grp, r->ncols, f->nkeys, r->ld, maxrec);
        if (e == cudaErrorMemoryAllocation) { /* the host groups it all */
            raw_group_free(r->grp);
            r->grp = NULL;
            r->group_off = true;
            (void)cudaGetLastError();
        } else if (e != cudaSuccess) {
            return cuda_fail(g, "raw_group_make", e);
        }
    }
    cudaFree(r->dkmap);
    r->dkmap = NULL;
    CK(g, cudaMalloc((void **)&r->dkmap,
                     (size_t)(f->nkmap ? f->nkmap : 1) * sizeof(int)));
    if (f->nkmap &&
        upload(g, r->dkmap, f->kmap, (size_t)f->nkmap * sizeof(int)))
        return -1;
    return 0;
}

int upload_csv_map(gpu_backend *g, raw_input *r, const gpu_raw_format *f)
{
    cudaFree(r->dmap);
    r->dmap = NULL;
    CK(g, cudaMalloc((void **)&r->dmap,
                     (size_t)(f->nmap ? f->nmap : 1) * sizeof(int)));
    if (f->nmap && upload(g, r->dmap, f->map, (size_t)f->nmap * sizeof(int)))
        return -1;
    r->num = f->num;
    if (upload(g, r->dnum, &r->num, sizeof r->num) || upload_kinds(g, r, f) ||
        upload_keys(g, r, f))
        return -1;
    csv_args *a = &r->a;
    a->num = r->dnum;
    a->kinds = f->kinds ? r->dkinds : NULL;
    if (f->repeat_len > r->drepeat_cap) {
        cudaFree(r->drepeat);
        r->drepeat = NULL;
        r->drepeat_cap = 0;
        CK(g, cudaMalloc((void **)&r->drepeat, f->repeat_len));
        r->drepeat_cap = f->repeat_len;
    }
    if (f->repeat_len && upload(g, r->drepeat, f->repeat, f->repeat_len))
        return -1;
    a->repeat = f->repeat_len ? r->drepeat : NULL;
    a->repeat_len = (unsigned)f->repeat_len;
    a->delim = f->delim ? f->delim : ',';
    a->strict = f->strict;
    a->map = r->dmap;
    a->nmap = f->nmap;
    a->ncols = r->ncols;
    a->col = r->dcol;
    a->ld = r->ld;
    a->st = r->dstate;
    a->status = r->dstatus;
    a->carry_buf = r->dcarry;
    a->cnt = r->dcnt;
    a->cnt_segment = r->dcnt_segment;
    a->inv_text = r->dinv_text;
    a->inv_len = r->dinv_len;
    a->hard = r->dhard;
    a->moved = r->dmoved;
    a->corr = r->dcorr;
    a->corr_on = r->dcorr_on;
    a->moved_corr = r->dmoved_corr;
    a->keep = gpu_store_on(g);
    a->nkeys = f->nkeys;
    a->nkmap = f->nkeys ? f->nkmap : 0;
    a->kmap = f->nkeys ? r->dkmap : NULL;
    a->arena = g->store.arena;
    a->corr_arena = g->store.carena;
    a->arena_ld = g->store.arena_ld;
    return 0;
}

int reset_state(gpu_backend *g, raw_input *r)
{
    /* a segment the device stopped at may have left corrections behind (the
       uploads below wait for these) */
    size_t ncols = (size_t)r->ncols;
    CK(g, cudaMemsetAsync(r->dcorr, 0, ncols * r->ld * sizeof(int), g->st[0]));
    CK(g, cudaMemsetAsync(r->dcorr_on, 0, ncols * sizeof(int), g->st[0]));
    raw_state st;
    memset(&st, 0, sizeof st);
    if (r->a.nkeys && !r->grp) /* --group-by without the device's groups */
        st.stop = RAW_GROUP_MEMORY;
    st.row_base = r->first_row;
    st.line_base = r->first_line;
    st.arena_used = g->store.arena_used;
    /* the groups live across inputs: their counts stay */
    ull groups = r->hstatus->groups, keys = r->hstatus->key_bytes;
    ull made = r->hstatus->new_groups_max;
    memset(r->hstatus, 0, sizeof *r->hstatus);
    r->hstatus->arena_used = st.arena_used;
    r->hstatus->groups = groups;
    r->hstatus->key_bytes = keys;
    r->hstatus->new_groups_max = made;
    r->hstatus->stop = st.stop;
    size_t n = (size_t)r->ncols * CNT_N;
    ull *cnt = static_cast<ull *>(calloc(n, sizeof *cnt));
    if (!cnt)
        return fail_nomem(g);
    for (size_t i = 0; i < n; i++)
        cnt[i] = cnt_takes_min((int)(i % CNT_N)) ? ~0ull : 0;
    int rc = upload(g, r->dstate, &st, sizeof st);
    if (!rc)
        rc = upload(g, r->dcnt, cnt, n * sizeof *cnt);
    free(cnt);
    return rc;
}

void harvest_sub(gpu_backend *g, raw_sub *s)
{
    float ms;
    if (!s->busy)
        return;
    s->busy = false;
    if (cudaEventSynchronize(s->done) != cudaSuccess) {
        cuda_fail(g, "cudaEventSynchronize", cudaGetLastError());
        return;
    }
    if (cudaEventElapsedTime(&ms, s->start, s->copied) == cudaSuccess)
        g->h2d_ms += ms;
    if (cudaEventElapsedTime(&ms, s->kstart, s->done) == cudaSuccess)
        g->kernel_ms += ms;
}

/* Reduction blocks: g->dpart holds g->maxblocks per column. */
int blocks(const gpu_backend *g, size_t n)
{
    int b = reduce_grid(g->nsm, n);
    return b < g->maxblocks ? b : g->maxblocks;
}

unsigned what_sums(unsigned what)
{
    return (what & (STAT_SUM | STAT_MEAN | STAT_STD)) != 0;
}

/* Room in the arena is made for the values as they are likely to come:
 * before the device has parsed a segment of the input, for twice the rows
 * its head shows a byte; after, for a quarter more than the densest segment
 * seen. A segment denser than that is caught by the device itself
 * (RAW_ARENA_FULL: the host parses the rest of the input, -v says so), so
 * a guess costs speed, never an answer. */
constexpr double ARENA_SLACK = 1.25;

/* Rows to make room for, for bytes of input, given the most rows a whole
 * segment has held so far (0: none parsed yet); never more than one row per
 * two bytes, nor than the device's row buffer (a segment with more stops
 * the device anyway). */
ull rows_for(const raw_input *r, double bytes, ull most)
{
    ull cap = (ull)(bytes / 2) + 1;
    if (cap > r->ld)
        cap = r->ld;
    if (!most && r->row_rate <= 0)
        return cap;
    double n =
        most ? (double)most * ARENA_SLACK * bytes / (double)r->segment_bytes
             : 2 * r->row_rate * bytes;
    return (ull)n + 64 < cap ? (ull)n + 64 : cap;
}

/* Rows per input byte for what is left of the input: the denser of the
 * whole input so far and its densest segment, else its head's. */
double row_rate(const raw_input *r, ull used, ull consumed, ull most)
{
    double rate = most ? (double)most / (double)r->segment_bytes : 0;
    if (used > r->arena_base && consumed) {
        double seen = (double)(used - r->arena_base) / (double)consumed;
        rate = seen > rate ? seen : rate;
    }
    return rate > 0 ? rate : r->row_rate;
}

/* Room in the arena for the segment about to go (n bytes) and those still
 * in flight, made ahead of the device: the mapped status says how far it
 * got, so the device is waited for only to grow the arena, and the arena
 * then takes the rest of the input's likely rows. */
int ensure_arena(gpu_backend *g, raw_input *r, size_t n)
{
    device_store *k = &g->store;
    const raw_status *s = r->hstatus;
    ull done = s->segments_done; /* first: the counts below are as new */
    ull used = s->arena_used, most = s->segment_rows_max;
    ull ahead = (r->nsub - done) * rows_for(r, (double)r->segment_bytes, most) +
                rows_for(r, (double)n, most);
    if (used + ahead <= k->arena_ld || !k->arena)
        return 0;
    CK(g, cudaStreamSynchronize(g->st[0]));
    used = s->arena_used;
    most = s->segment_rows_max;
    ahead = rows_for(r, (double)n, most);
    if (used + ahead <= k->arena_ld)
        return 0;
    ull consumed = s->consumed, want = used + ahead;
    if (r->size_hint > consumed)
        want += (ull)((double)(r->size_hint - consumed) *
                      row_rate(r, used, consumed, most) * ARENA_SLACK);
    else if (!r->size_hint && want < 2 * (ull)k->arena_ld)
        want = 2 * (ull)k->arena_ld;
    k->arena_used = used;
    if (gpu_store_grow_arena(g, (size_t)(want - used)))
        return -1;
    r->a.arena = k->arena;
    r->a.corr_arena = k->carena;
    r->a.arena_ld = k->arena_ld;
    return 0;
}

/* The arena's first size for a CSV input: its likely rows (its head's
 * rate) and a quarter more, at least room for its first segment as
 * rows_for makes it; for a stream of unknown size that first segment's. */
size_t arena_first_rows(const raw_input *r)
{
    double first = (double)r->segment_bytes;
    if (r->size_hint && r->size_hint < r->segment_bytes)
        first = (double)r->size_hint;
    ull want = rows_for(r, first, 0);
    ull likely = (ull)((double)r->size_hint * r->row_rate * ARENA_SLACK) + 64;
    if (r->size_hint && r->row_rate > 0 && likely > want)
        want = likely;
    if (r->size_hint && want > r->size_hint / 2 + 2)
        want = r->size_hint / 2 + 2;
    return (size_t)want;
}

/* --group-by: room for the groups the segments in flight and the next
 * one may make, made ahead of the device from the mapped status, as the
 * arena's is: in the table (keys to ids, 40 bytes a group) and in the
 * state (400 bytes a group and column). Both grow by 4 at a time while a
 * quarter of the device's free memory holds them.
 * A guess short of the groups costs the device the rest of the input
 * (RAW_GROUP_FULL: the host parses it), never an answer. */
constexpr double GROUP_MEMORY_SHARE = 0.25;

struct group_need {
    size_t table, state, arena;
};

int group_grow(gpu_backend *g, raw_input *r, group_need want)
{
    size_t state, arena, table = raw_group_room(r->grp, &state, &arena);
    group_need to = {table, state, arena};
    while (to.table < want.table && to.table < ((size_t)1 << 30))
        to.table *= 4;
    while (to.state < want.state && to.state < to.table)
        to.state *= 4;
    to.state = to.state < to.table ? to.state : to.table;
    while (to.arena < want.arena)
        to.arena *= 4;
    size_t free_b = 0, total_b = 0;
    CK(g, cudaMemGetInfo(&free_b, &total_b));
    double cost = (double)(to.table - table) * raw_group_table_bytes() +
                  (double)(to.state - state) * raw_group_state_bytes(r->grp) +
                  (double)(to.arena - arena);
    if (cost > GROUP_MEMORY_SHARE * (double)free_b)
        return 0; /* the device stops when the groups come */
    cudaError_t e =
        raw_group_grow(r->grp, to.table, to.state, to.arena, g->st[0]);
    return e == cudaSuccess ? 0 : cuda_fail(g, "raw_group_grow", e);
}

/* Before the segment of n bytes: room for the groups it and those in
 * flight may make, twice the most one segment made so far each; before
 * any made groups (the first segments of a run), the segments before it
 * waited for and its rows at most. */
int ensure_groups(gpu_backend *g, raw_input *r, size_t n)
{
    const raw_status *s = r->hstatus;
    if (!s->new_groups_max && r->nsub > 0)
        CK(g, cudaStreamSynchronize(g->st[0]));
    ull done = s->segments_done, groups = s->groups, bytes = s->key_bytes;
    ull made = s->new_groups_max, inflight = r->nsub - done + 1;
    ull more = made ? 2 * inflight * made + 1024
                    : rows_for(r, (double)n, s->segment_rows_max);
    ull key = groups ? bytes / groups + 1 : 64; /* bytes a key, at least 64 */
    key = key > 64 ? key : 64;
    size_t state, arena, table = raw_group_room(r->grp, &state, &arena);
    group_need want = {(size_t)(groups + more),
                       (size_t)(made ? groups + more : 0),
                       (size_t)(bytes + more * key)};
    if (want.table <= table && want.state <= state && want.arena <= arena)
        return 0;
    return group_grow(g, r, want);
}

/* Before any segment made groups, how many one makes is unknown: the
 * host waits for the segment's keys and grows the state for them. */
int learn_groups(gpu_backend *g, raw_input *r)
{
    if (r->hstatus->new_groups_max)
        return 0;
    cudaError_t e;
    size_t n = raw_group_count(r->grp, g->st[0], &e);
    if (e != cudaSuccess)
        return cuda_fail(g, "raw_group_count", e);
    size_t state, arena;
    raw_group_room(r->grp, &state, &arena);
    if (n <= state)
        return 0;
    group_need want = {0, n + n / 4, 0};
    return group_grow(g, r, want);
}

/* --group-by's segment: parsed, its keys found, its values into their
 * groups, then judged (a device without the groups' buffers stopped at
 * once: reset_state). */
int launch_groups(gpu_backend *g, raw_input *r, csv_args *a, size_t n)
{
    cudaStream_t st = g->st[0];
    if (r->grp && ensure_groups(g, r, n))
        return -1;
    if (r->grp)
        raw_group_bind(r->grp, a);
    if (r->grp && a->keep && a->arena)
        CK(g, raw_group_keep_room(r->grp, a->arena_ld, st));
    CK(g, csv_parse_launch(a, st));
    if (r->grp) {
        CK(g, raw_group_find(r->grp, a, st));
        if (learn_groups(g, r))
            return -1;
        CK(g, raw_group_reduce(r->grp, a, st));
    }
    CK(g, csv_end_launch(a, st));
    if (r->grp)
        CK(g, raw_group_settle(r->grp, a, st));
    return 0;
}

int launch_csv(gpu_backend *g, raw_input *r, char *buf, size_t n)
{
    cudaStream_t st = g->st[0];
    if (r->a.keep && ensure_arena(g, r, n))
        return -1;
    csv_args a = r->a;
    a.buf = buf;
    a.n = (unsigned)n;
    if (a.nkeys) /* --group-by: the groups take the values */
        return launch_groups(g, r, &a, n);
    CK(g, csv_parse_launch(&a, st));
    CK(g, csv_end_launch(&a, st));
    if (a.keep)
        CK(g, raw_keep_launch(&a, st));
    unsigned what = g->cfg.what;
    reduce_args ra = {.col = r->dcol,
                      .ld = r->ld,
                      .n = r->ld,
                      .first_row = 0,
                      .sums = (int)what_sums(what),
                      .squares = (what & STAT_STD) != 0,
                      .state = g->dstate[0],
                      .part = g->dpart[0],
                      .nblocks = blocks(g, r->ld),
                      .dyn = r->dstate->n_row0,
                      .corr = r->dcorr,
                      .corr_ld = r->ld,
                      .corr_on = r->dcorr_on,
                      .ipart = g->dipart[0],
                      .terms = g->cfg.terms};
    CK(g, reduce_launch(&ra, r->ncols, st));
    if ((what & STAT_HIST) && g->cfg.have_range)
        CK(g, hist_launch(r->dcol, r->ld, r->ld, r->ncols, g->cfg.nbins,
                          g->dscales, g->dbins, g->nsm, st, r->dstate->n_row0));
    return 0;
}

/* Where a binary segment's values go: the arena, a kept piece, or the
 * segment buffer (*host: then on to the host store). *corr: where the
 * kept rows' corrections go, or NULL. */
int binary_target(gpu_backend *g, raw_input *r, size_t nrec, double **dst,
                  size_t *ld, int **corr, bool *host)
{
    store_piece *keep = NULL;
    *host = false;
    if (r->bin_keep) {
        *dst = gpu_store_span_rows(g, nrec, ld, corr);
        return 0;
    }
    if (gpu_store_piece(g, nrec, g->st[0], r->dcol, dst, &keep, host))
        return -1;
    *ld = keep ? keep->ld : r->ld;
    *corr = keep ? keep->c : NULL;
    return 0;
}

/* The decoded corrections (zero where none, as the reductions leave
 * them) to where the kept rows are, before the reductions clear them. */
int keep_binary(gpu_backend *g, raw_input *r, const double *dst, size_t ld,
                int *corr, bool host, size_t nrec)
{
    cudaStream_t st = g->st[0];
    if (corr)
        CK(g,
           cudaMemcpy2DAsync(corr, ld * sizeof(int), r->dcorr,
                             r->ld * sizeof(int), nrec * sizeof(int),
                             (size_t)r->ncols, cudaMemcpyDeviceToDevice, st));
    if (host)
        return gpu_store_host_device(g, dst, ld, r->dcorr, r->ld, nrec, st);
    return 0;
}

int launch_binary(gpu_backend *g, raw_input *r, const char *buf, size_t n)
{
    cudaStream_t st = g->st[0];
    size_t nrec = n / r->record_size, ld;
    double *dst;
    int *corr;
    bool host;
    if (binary_target(g, r, nrec, &dst, &ld, &corr, &host))
        return -1;
    bin_args b = {.buf = reinterpret_cast<const unsigned char *>(buf),
                  .nrec = nrec,
                  .record_size = r->record_size,
                  .type = r->dtype,
                  .offset = r->doffset,
                  .ncols = r->ncols,
                  .col = dst,
                  .ld = ld,
                  .cnt = r->dcnt,
                  .corr = r->dcorr,
                  .corr_ld = r->ld,
                  .corr_on = r->dcorr_on};
    CK(g, bin_segment_launch(&b, st));
    if (keep_binary(g, r, dst, ld, corr, host, nrec))
        return -1;
    unsigned what = g->cfg.what;
    reduce_args ra = {.col = dst,
                      .ld = ld,
                      .n = nrec,
                      .first_row = r->next_row,
                      .sums = (int)what_sums(what),
                      .squares = (what & STAT_STD) != 0,
                      .state = g->dstate[0],
                      .part = g->dpart[0],
                      .nblocks = blocks(g, nrec),
                      .dyn = NULL,
                      .corr = r->wide ? r->dcorr : NULL,
                      .corr_ld = r->ld,
                      .corr_on = r->dcorr_on,
                      .ipart = g->dipart[0],
                      .terms = g->cfg.terms};
    r->next_row += nrec;
    CK(g, reduce_launch(&ra, r->ncols, st));
    if ((what & STAT_HIST) && g->cfg.have_range)
        CK(g, hist_launch(dst, ld, nrec, r->ncols, g->cfg.nbins, g->dscales,
                          g->dbins, g->nsm, st));
    return 0;
}

int submit(gpu_backend *g, raw_input *r, const void *bytes, size_t n)
{
    raw_sub *s = &r->subs[r->nsub % NRAW];
    harvest_sub(g, s);
    int b = (int)(r->nsub % NBUF);
    char *buf = r->dbuf[b];
    if (r->buf_used[b])
        CK(g, cudaStreamWaitEvent(r->cs, r->buf_free[b], 0));
    CK(g, cudaEventRecord(s->start, r->cs));
    CK(g, cudaMemcpyAsync(buf + r->carry, bytes, n, cudaMemcpyHostToDevice,
                          r->cs));
    CK(g, cudaEventRecord(s->copied, r->cs));
    CK(g, cudaStreamWaitEvent(g->st[0], s->copied, 0));
    CK(g, cudaEventRecord(s->kstart, g->st[0]));
    int rc = r->binary ? launch_binary(g, r, buf + r->carry, n)
                       : launch_csv(g, r, buf, n);
    if (rc)
        return rc;
    CK(g, cudaEventRecord(s->done, g->st[0]));
    CK(g, cudaEventRecord(r->buf_free[b], g->st[0]));
    r->buf_used[b] = true;
    g->h2d_bytes += n;
    s->bytes = bytes;
    s->index = r->nsub++;
    s->busy = true;
    return 0;
}

/* The numbers the device listed for the host's exact fallback: parsed
 * here, added to the statistics by gpu_finish. */
int take_hard(gpu_backend *g, raw_input *r, unsigned n)
{
    if (!n)
        return 0;
    hard_entry *h = static_cast<hard_entry *>(malloc(n * sizeof *h));
    if (!h)
        return fail_nomem(g);
    int rc = download(g, h, r->dhard, n * sizeof *h);
    for (unsigned i = 0; !rc && i < n; i++) {
        double v = 0;
        int32_t corr = 0;
        int c = (int)h[i].col;
        unsigned k = r->a.kinds ? r->kinds[c] : (unsigned)KIND_NUMBER;
        if (parse_kind_fmt(h[i].text, h[i].len, &r->num, k, &v, &corr) ==
            NUM_OK)
            rc = add_extra(g, c, v, corr, h[i].row);
        else /* the device saw a number's grammar: cannot happen */
            rc = failf(g, "GPU: internal: '%.*s' is no number", (int)h[i].len,
                       h[i].text);
    }
    free(h);
    return rc;
}

/* Why the device stopped, in words, into out[n]. */
void say_stop(int why, unsigned carry, char *out, size_t n)
{
    const char *what = "an internal error";
    switch (why) {
    case RAW_STRAY_QUOTE:
        what = "a quote where RFC 4180 puts none";
        break;
    case RAW_BARE_CR:
        what = "a CR that is not part of a CRLF";
        break;
    case RAW_LONG_RECORD:
        snprintf(out, n, "a record longer than %u bytes", carry);
        return;
    case RAW_STRICT:
        what = "an invalid field under --strict";
        break;
    case RAW_HARD_NUMBER:
        what = "a number only strtod rounds, too long or one too many to list";
        break;
    case RAW_TOO_MANY_ROWS:
        what = "more rows in a segment than the device buffer holds";
        break;
    case RAW_ARENA_FULL:
        what = "values kept to the end past the device's room";
        break;
    case RAW_GROUP_FULL:
        what = "more groups than the device's table holds";
        break;
    case RAW_GROUP_KEY:
        what = "a group key longer than the device takes";
        break;
    case RAW_GROUP_SUM:
        what = "a group's sum past the device's exact range";
        break;
    case RAW_GROUP_MEMORY:
        what = "no device memory for the groups' buffers";
        break;
    }
    snprintf(out, n, "%s", what);
}

int end_input(gpu_backend *g, raw_input *r, gpu_raw_result *res, char *tail,
              size_t *tail_len)
{
    CK(g, cudaStreamSynchronize(r->cs));
    CK(g, cudaStreamSynchronize(g->st[0]));
    for (ull i = r->nsub > NRAW ? r->nsub - NRAW : 0; i < r->nsub; i++)
        harvest_sub(g, &r->subs[i % NRAW]);
    raw_state st;
    if (download(g, &st, r->dstate, sizeof st))
        return -1;
    size_t n = (size_t)r->ncols * CNT_N;
    ull *cnt = static_cast<ull *>(malloc(n * sizeof *cnt));
    if (!cnt)
        return fail_nomem(g);
    int rc = download(g, cnt, r->dcnt, n * sizeof *cnt);
    int texts = 0;
    for (int c = 0; !rc && c < r->ncols; c++) {
        const ull *k = cnt + (size_t)c * CNT_N;
        res->missing[c] += k[CNT_MISSING];
        res->invalid[c] += k[CNT_INVALID];
        res->nan[c] += k[CNT_NAN];
        if (!res->first_invalid_line[c] && k[CNT_FIRST_LINE] != ~0ull) {
            res->first_invalid_line[c] = k[CNT_FIRST_LINE];
            texts = 1;
        }
    }
    free(cnt);
    if (!rc && texts && !r->binary)
        rc = download(g, res->first_invalid_text, r->dinv_text,
                      (size_t)r->ncols * RAW_FIELD_BYTES);
    if (!rc && texts && !r->binary)
        rc = download(g, res->first_invalid_len, r->dinv_len,
                      (size_t)r->ncols * sizeof(unsigned));
    if (rc)
        return rc;
    if (!r->binary && take_hard(g, r, st.hard_n))
        return -1;
    if (!r->binary)
        g->store.arena_used = st.arena_used;
    res->rows =
        r->binary ? r->next_row - r->first_row : st.row_base - r->first_row;
    res->lines = r->binary ? 0 : st.line_base - r->first_line;
    res->consumed = r->binary ? res->rows * r->record_size : st.consumed;
    res->stopped = st.stop != 0;
    res->repeats = r->binary ? 0 : st.repeats;
    res->repeat_line = r->binary ? 0 : st.repeat_line;
    res->reason[0] = 0;
    if (st.stop)
        say_stop(st.stop, r->carry, res->reason, sizeof res->reason);
    *tail_len = r->binary ? 0 : st.carry_len;
    if (*tail_len)
        return download(g, tail, r->dcarry, *tail_len);
    return 0;
}

} // namespace

void raw_release(gpu_backend *g)
{
    raw_input *r = g->raw;
    if (!r)
        return;
    if (r->cs) {
        cudaStreamSynchronize(r->cs);
        cudaStreamDestroy(r->cs);
    }
    for (int b = 0; b < NBUF; b++) {
        cudaFree(r->dbuf[b]);
        if (r->buf_free[b])
            cudaEventDestroy(r->buf_free[b]);
    }
    for (int i = 0; i < NRAW; i++) {
        raw_sub *s = &r->subs[i];
        cudaEvent_t e[4] = {s->start, s->copied, s->kstart, s->done};
        for (int k = 0; k < 4; k++)
            if (e[k])
                cudaEventDestroy(e[k]);
    }
    void *dev[] = {r->dcol,         r->dstate,      r->dcarry,  r->dcnt,
                   r->dcnt_segment, r->dmap,        r->dtype,   r->doffset,
                   r->dscratch,     r->dhard,       r->dmoved,  r->dcorr,
                   r->dcorr_on,     r->dmoved_corr, r->drepeat, r->dinv_text,
                   r->dinv_len,     r->dnum,        r->dkinds,  r->dkmap};
    for (void *p : dev)
        cudaFree(p);
    raw_group_free(r->grp);
    group_order_free(r->gorder);
    free(r->hgid);
    if (r->hstatus)
        cudaFreeHost(r->hstatus);
    free(r->kinds);
    free(r);
    g->raw = NULL;
    (void)cudaGetLastError();
}

extern "C" {

size_t gpu_raw_segment_bytes(const gpu_backend *g)
{
    return g->raw ? g->raw->segment_bytes : segment_bytes_wanted(g);
}

int gpu_raw_begin(gpu_backend *g, const gpu_raw_format *f, uint64_t first_row,
                  uint64_t first_line, cs_error *e)
{
    if (g->failed)
        return report(g, -1, e);
    int rc = 0;
    if (!g->raw) {
        g->raw = static_cast<raw_input *>(calloc(1, sizeof *g->raw));
        gpu_open_phase_start(g);
        rc = g->raw ? setup(g, g->raw, f) : fail_nomem(g);
        gpu_open_phase_done(g, GPU_OPEN_RAW);
    } else if (g->raw->binary != f->binary) {
        rc = failf(g, "GPU: raw inputs of two kinds");
    }
    raw_input *r = g->raw;
    if (!rc) {
        r->first_row = r->next_row = first_row;
        r->first_line = first_line;
        r->nsub = 0;
        r->bin_keep = false;
        r->size_hint = f->size_hint;
        r->row_rate = f->row_rate;
        r->arena_base = g->store.arena_used;
        bool keep = gpu_store_on(g);
        /* CSV: room for the rows the input likely holds, grown as the
           device finds more (ensure_arena); past the budget the device
           stops and the host goes on. Binary: the arena when the whole
           input fits, else pieces. */
        if (keep && !f->binary)
            rc = gpu_store_grow_arena(g, arena_first_rows(r));
        bool even = (r->segment_bytes / r->record_size) % 2 == 0;
        if (keep && f->binary)
            rc = gpu_store_begin_span(g, f->size_hint / r->record_size, even,
                                      &r->bin_keep);
    }
    if (!rc) {
        rc = f->binary ? upload_binary_map(g, r, f) : upload_csv_map(g, r, f);
    }
    if (!rc)
        rc = reset_state(g, r);
    return report(g, rc, e);
}

int gpu_raw_submit(gpu_backend *g, const void *bytes, size_t n, cs_error *e)
{
    if (g->failed)
        return report(g, -1, e);
    raw_input *r = g->raw;
    int rc = 0;
    if (!r)
        rc = failf(g, "GPU: raw segment outside an input");
    else if (n > r->segment_bytes || (r->binary && n % r->record_size))
        rc = failf(g, "GPU: raw segment of %zu bytes", n);
    else if (n)
        rc = submit(g, r, bytes, n);
    return report(g, rc, e);
}

int gpu_raw_wait(gpu_backend *g, const void *bytes, int *stopped, cs_error *e)
{
    *stopped = 0;
    if (g->failed)
        return report(g, -1, e);
    raw_input *r = g->raw;
    for (int i = 0; r && i < NRAW; i++) {
        raw_sub *s = &r->subs[i];
        if (!s->busy || s->bytes != bytes)
            continue;
        harvest_sub(g, s);
        if (g->failed)
            return report(g, -1, e);
        *stopped = r->hstatus->stop && r->hstatus->stop_segment <= s->index;
        return CS_OK;
    }
    *stopped = r && r->hstatus->stop;
    return CS_OK;
}

int gpu_raw_copied(gpu_backend *g, const void *bytes, int *stopped,
                   cs_error *err)
{
    *stopped = 0;
    if (g->failed)
        return report(g, -1, err);
    raw_input *r = g->raw;
    const raw_sub *last = NULL; /* the latest copy from these bytes */
    for (int i = 0; r && i < NRAW; i++) {
        const raw_sub *s = &r->subs[i];
        if (s->busy && s->bytes == bytes && (!last || s->index > last->index))
            last = s;
    }
    cudaError_t e = cudaSuccess;
    while (last && (e = cudaEventQuery(last->copied)) == cudaErrorNotReady)
        ;
    if (e != cudaSuccess)
        return report(g, cuda_fail(g, "cudaEventQuery", e), err);
    *stopped = r && r->hstatus->stop;
    return CS_OK;
}

int gpu_raw_groups(gpu_backend *g, gpu_group_out *out, cs_error *e)
{
    memset(out, 0, sizeof *out);
    if (g->failed)
        return report(g, -1, e);
    if (!g->raw || !g->raw->grp)
        return CS_OK; /* no input went to the device */
    int nomem = 0;
    cudaError_t ce = raw_group_take(g->raw->grp, g->st[0], out, &nomem);
    int rc = ce != cudaSuccess ? cuda_fail(g, "raw_group_take", ce)
             : nomem           ? fail_nomem(g)
                               : 0;
    if (rc)
        gpu_group_out_free(out);
    return report(g, rc, e);
}

namespace
{

/* Device bytes the order of n rows of ngroups groups takes, about: the
 * rows' places, two columns of keys and corrections, the offsets. */
size_t order_bytes(size_t n, size_t ngroups)
{
    return n * (sizeof(unsigned) + 2 * sizeof(uint64_t) + 2 * sizeof(int)) +
           2 * (ngroups + 1) * sizeof(uint64_t);
}

/* The kept values' rows ordered by group on the device (made at the
 * first call); where its memory (or COLSTAT_GPU_SORT_BYTES) does not
 * hold that, gorder_off: the host orders them. */
int group_order_ready(gpu_backend *g, size_t n)
{
    raw_input *in = g->raw;
    const device_store *k = &g->store;
    const unsigned *gid = in && in->grp ? raw_group_row_groups(in->grp) : NULL;
    if (!gid || !k->arena || k->arena_used != n)
        return failf(g,
                     "GPU: the groups' kept values are not the %zu rows "
                     "asked for",
                     n);
    if (in->gorder || in->gorder_off)
        return 0;
    cudaError_t ce;
    uint32_t ngroups = (uint32_t)raw_group_count(in->grp, g->st[0], &ce);
    if (ce != cudaSuccess)
        return cuda_fail(g, "raw_group_count", ce);
    size_t cap = g->cfg.sort_bytes;
    if (cap && order_bytes(n, ngroups) > cap) {
        in->gorder_off = true;
        return 0;
    }
    ce = group_order_make(&in->gorder, gid, n, ngroups, g->st[0]);
    if (ce == cudaErrorMemoryAllocation) {
        group_order_free(in->gorder);
        in->gorder = NULL;
        in->gorder_off = true;
        (void)cudaGetLastError();
        return 0;
    }
    return ce == cudaSuccess ? 0 : cuda_fail(g, "group_order_make", ce);
}

/* Column col's places in the arena. */
void arena_column(const gpu_backend *g, int col, const double **d,
                  const int **c)
{
    const device_store *k = &g->store;
    *d = k->arena + (size_t)col * k->arena_ld;
    *c = k->carena ? k->carena + (size_t)col * k->arena_ld : NULL;
}

/* gpu_raw_group_values' layout made on the host: each group's values
 * (unsorted), then its NaNs, by a counting sort of the rows' groups. */
int host_group_values(gpu_backend *g, int col, double *d, int32_t *r, size_t n)
{
    raw_input *in = g->raw;
    cudaError_t ce;
    size_t ng = raw_group_count(in->grp, g->st[0], &ce);
    if (ce != cudaSuccess)
        return cuda_fail(g, "raw_group_count", ce);
    if (!in->hgid) {
        in->hgid =
            static_cast<unsigned *>(malloc((n ? n : 1) * sizeof(unsigned)));
        if (!in->hgid)
            return fail_nomem(g);
        if (download(g, in->hgid, raw_group_row_groups(in->grp),
                     n * sizeof(unsigned)))
            return -1;
    }
    const double *dv;
    const int *dc;
    arena_column(g, col, &dv, &dc);
    double *v = static_cast<double *>(malloc((n ? n : 1) * sizeof(double)));
    int *c = static_cast<int *>(calloc(n ? n : 1, sizeof(int)));
    size_t *front = static_cast<size_t *>(calloc(ng + 1, sizeof(size_t)));
    size_t *back = static_cast<size_t *>(calloc(ng + 1, sizeof(size_t)));
    int rc = v && c && front && back ? 0 : fail_nomem(g);
    if (!rc)
        rc = download(g, v, dv, n * sizeof(double));
    if (!rc && dc)
        rc = download(g, c, dc, n * sizeof(int));
    for (size_t i = 0; !rc && i < n; i++)
        back[in->hgid[i]]++;
    for (size_t gi = 0, at = 0; !rc && gi < ng; gi++) {
        at += back[gi];
        front[gi] = at - back[gi];
        back[gi] = at;
    }
    for (size_t i = 0; !rc && i < n; i++) {
        unsigned gi = in->hgid[i];
        size_t at = v[i] != v[i] ? --back[gi] : front[gi]++;
        d[at] = v[i];
        r[at] = c[i];
    }
    free(v);
    free(c);
    free(front);
    free(back);
    return rc;
}

} // namespace

int gpu_raw_group_sorted(gpu_backend *g, size_t n, int *sorted, cs_error *e)
{
    *sorted = 0;
    if (g->failed)
        return report(g, -1, e);
    int rc = group_order_ready(g, n);
    *sorted = !rc && !g->raw->gorder_off;
    return report(g, rc, e);
}

int gpu_raw_group_values(gpu_backend *g, int col, double *d, int32_t *r,
                         size_t n, cs_error *e)
{
    if (g->failed || group_order_ready(g, n))
        return report(g, -1, e);
    if (col < 0 || col >= g->raw->ncols)
        return report(g, failf(g, "GPU: no column %d", col), e);
    if (g->raw->gorder_off)
        return report(g, host_group_values(g, col, d, r, n), e);
    const double *v;
    const int *c;
    arena_column(g, col, &v, &c);
    cudaError_t ce =
        group_order_column(g->raw->gorder, col, v, c, d, r, g->st[0]);
    return report(g, ce == cudaSuccess ? 0 : cuda_fail(g, "group values", ce),
                  e);
}

int gpu_raw_group_pick(gpu_backend *g, int col, size_t n, const uint64_t *pos,
                       size_t npos, double *d, int32_t *r, cs_error *e)
{
    if (g->failed || group_order_ready(g, n))
        return report(g, -1, e);
    if (g->raw->gorder_off || col < 0 || col >= g->raw->ncols)
        return report(g, failf(g, "GPU: column %d's values not sorted", col),
                      e);
    const double *v;
    const int *c;
    arena_column(g, col, &v, &c);
    cudaError_t ce =
        group_order_pick(g->raw->gorder, col, v, c, pos, npos, d, r, g->st[0]);
    return report(g, ce == cudaSuccess ? 0 : cuda_fail(g, "group values", ce),
                  e);
}

int gpu_raw_end(gpu_backend *g, gpu_raw_result *r, char *tail, size_t *tail_len,
                cs_error *e)
{
    *tail_len = 0;
    if (g->failed)
        return report(g, -1, e);
    if (!g->raw)
        return report(g, failf(g, "GPU: no raw input to end"), e);
    return report(g, end_input(g, g->raw, r, tail, tail_len), e);
}

} /* extern "C" */
