/* --group-by over raw CSV (group_raw.cuh). Per segment, after the parse:
 *   find     each row's key (its fields' text as the host's CSV reader
 *            gives it: unquoted, blanks around unquoted fields dropped, a
 *            null spelling the missing key) in the table of
 *            src/stats/group_core.h, counting rows per group;
 *   order    the rows by group: an exclusive scan of the counts, then a
 *            scatter (a counting sort; not stable, which the reduction
 *            does not need: gc_part_add and gc_part_merge break ties by
 *            row, whatever the order);
 *   reduce   one thread per chunk of ordered rows and column: a group
 *            wholly inside the chunk into the group's state, a run that
 *            goes on past the chunk into one of the chunk's two edge
 *            pieces; then the first piece of each group merges its
 *            group's pieces into the state.
 * State a segment touches is copied first; when a sum needs the host's
 * csum (gc_sum_add fails), the copies go back and the segment stops the
 * device, which leaves the segment and the rest of the input to the host.
 * A segment that stops for any reason leaves no group behind: its new
 * groups leave the table (slots claimed after the segment began empty
 * again: under linear probing no older key's probe sequence crossed
 * them, Knuth, TAOCP vol. 3, 6.4). */
#include "group_raw.cuh"

#include <cub/cub.cuh>
#include <string.h>

#include "cuda_try.cuh"
#include "pull.cuh"

#include "parse_field.cuh"
#include "src/stats/group_core.h"

namespace
{

constexpr int THREADS = 256;
/* Ordered rows per reducing thread: 32 where groups are many (their runs
 * short), up to 1024 where they are few (fewer pieces to merge after);
 * more where a segment's rows pass the edge pieces' room. */
constexpr size_t CHUNK_MIN = 32, CHUNK_MAX = 1024;
/* Chunks whose edge pieces fit: 16,384, fewer for a wide table (their
 * pieces in EDGE_BYTES at most) */
constexpr size_t EDGE_CHUNKS = 16384, EDGE_BYTES = (size_t)64 << 20;
constexpr int PREFETCH = 8;       /* rows whose values load at once */
constexpr unsigned KEY_MAX = 512; /* encoded key bytes the device takes */
constexpr unsigned NONE = 0xffffffffu;
/* The table (keys to ids: some 40 bytes a group) and the groups' state
 * (col_part and group_sum per column, and their copies: 400 bytes a
 * column) start small and grow by 4 as the groups come, the host
 * growing them between segments (raw_input.cu's ensure_groups). */
constexpr size_t FIRST_TABLE = (size_t)1 << 16;
constexpr size_t FIRST_STATE = (size_t)1 << 12; /* fewer for a wide table: */
constexpr size_t FIRST_STATE_BYTES = (size_t)16 << 20;
/* the places of a segment's key fields: more (many key columns) and the
 * device groups nothing (raw_group_make fails; the host does it all) */
constexpr size_t KEY_PLACES_BYTES = (size_t)512 << 20;
constexpr size_t FIRST_ARENA = (size_t)4 << 20;

/* What one segment began with, and what it found. */
struct seg_info {
    ull n0, a0;       /* groups and arena bytes before the segment */
    ull rows;         /* its rows */
    ull new_max;      /* the most groups one segment made so far */
    ull chunk;        /* ordered rows per reducing thread */
    ull row_base;     /* the absolute row of its first row */
    unsigned armed;   /* the segment went on to the groups */
    unsigned inexact; /* a sum needs the host's csum */
};

} // namespace

struct raw_group {
    int ncols;
    size_t nchunks;      /* chunks whose edge pieces fit */
    unsigned max_groups; /* the table's room */
    size_t state_groups; /* the state's room */
    size_t arena_bytes;
    gc_table t;             /* device pointers */
    uint64_t *counters;     /* [4]: ngroups (low word), arena bytes, full */
    col_part *part, *bpart; /* [max_groups][ncols]: state, its copy */
    group_sum *sum, *bsum;
    ull *rows;                      /* [max_groups] */
    unsigned *count, *fill, *start; /* [max_groups], per segment */
    unsigned *gid, *idx, *sg; /* [ld]: rows' groups; ordered rows, groups */
    col_part *epart;          /* [2 * nchunks][ncols] */
    group_sum *esum;
    unsigned *edge; /* [2 * nchunks] */
    seg_info *seg;
    unsigned *key_at, *key_len; /* [records][key columns] */
    void *scan_tmp;
    size_t scan_bytes;
    /* with kept values (median, quantiles): the group of each row of the
       store's arena, [vgid_cap] as its rows (raw_group_keep_room) */
    unsigned *vgid;
    size_t vgid_cap;
};

namespace
{

struct grp_args {
    csv_args a;
    gc_table t;
    col_part *part, *bpart, *epart;
    group_sum *sum, *bsum, *esum;
    ull *rows;
    unsigned *count, *fill, *start, *gid, *idx, *sg, *edge;
    seg_info *seg;
    size_t nchunks;
    size_t state_groups;
};

__device__ __forceinline__ bool going(const grp_args &g)
{
    return g.seg->armed && !g.a.st->stop_now;
}

/* One thread: the segment's starting point, when it goes on. */
__global__ void begin_kernel(grp_args g)
{
    seg_info *s = g.seg;
    ull rows;
    s->armed = 0;
    s->inexact = 0;
    s->rows = 0;
    if (raw_judge(g.a, &rows))
        return; /* end_kernel stops the device here */
    s->n0 = *g.t.ngroups;
    s->a0 = *g.t.arena_used;
    s->rows = rows;
    s->row_base = g.a.st->row_base;
    s->armed = 1;
}

__device__ __forceinline__ bool is_blank(char c, char delim)
{
    return (c == ' ' || c == '\t') && c != delim;
}

/* Key column i of record rec, encoded at out (room bytes left); its
 * size, or -1 when it does not fit. */
__device__ int key_part(const grp_args &g, unsigned rec, int i, char *out,
                        unsigned room)
{
    const csv_args &a = g.a;
    size_t at = (size_t)rec * (size_t)a.nkeys + (size_t)i;
    unsigned l = a.key_len[at];
    const char *s =
        a.buf + a.st->text_start + (l == KEY_ABSENT ? 0 : a.key_at[at]);
    unsigned n = l == KEY_ABSENT ? 0 : l & KEY_LEN_MASK;
    if (l != KEY_ABSENT && !(l & KEY_QUOTED))
        while (n && is_blank(s[n - 1], a.delim))
            n--;
    bool missing = n == 0;
    if (!missing && a.num->nnull && !(l & KEY_ESCAPED)) {
        double v;
        int c;
        missing = dev_parse_number_corr(s, s + n, a.num, &v, &c) == NUM_MISSING;
    }
    if (missing) {
        if (room < 1)
            return -1;
        out[0] = 0;
        return 1;
    }
    if (room < 5 + n)
        return -1;
    uint32_t len = 0;
    for (unsigned k = 0; k < n; k++) {
        out[5 + len++] = s[k];
        if ((l & KEY_ESCAPED) && s[k] == '"' && k + 1 < n && s[k + 1] == '"')
            k++; /* a doubled quote is one */
    }
    out[0] = 1;
    memcpy(out + 1, &len, 4);
    return 5 + (int)len;
}

/* Each row's group, and the groups' rows in this segment. */
__global__ void find_kernel(grp_args g)
{
    if (!going(g))
        return;
    const csv_args &a = g.a;
    const raw_state *st = a.st;
    unsigned nrec = st->nonblank_end;
    bool moved = st->first_blank < st->nonblank_end;
    ull n0 = g.seg->n0, base = g.seg->row_base;
    char key[KEY_MAX];
    for (unsigned r = blockIdx.x * blockDim.x + threadIdx.x; r < nrec;
         r += gridDim.x * blockDim.x) {
        if (!a.row_flag[r])
            continue;
        unsigned row = moved ? a.row_of[r] : r, len = 0;
        for (int i = 0; i < a.nkeys; i++) {
            int k = key_part(g, r, i, key + len, KEY_MAX - len);
            if (k < 0) {
                atomicCAS(&a.st->stop_now, 0, RAW_GROUP_KEY);
                return;
            }
            len += (unsigned)k;
        }
        uint32_t id;
        if (gc_find(&g.t, key, len, gc_hash(key, len), base + row, &id) ==
            GC_FULL) {
            atomicCAS(&a.st->stop_now, 0, RAW_GROUP_FULL);
            return;
        }
        g.gid[row] = id;
        atomicAdd(&g.count[id], 1u);
        if (id >= n0) /* a new group's first row: the least of its rows */
            atomicMin((unsigned long long *)&g.t.first_row[id], base + row);
    }
}

/* One thread: groups past the state's room stop the device here (the
 * host grows the state ahead of them, from how many groups segments
 * made so far: a segment that makes far more comes back to the host). */
__global__ void room_kernel(grp_args g)
{
    if (going(g) && *g.t.ngroups > g.state_groups)
        atomicCAS(&g.a.st->stop_now, 0, RAW_GROUP_FULL);
    /* a quarter of a group's rows on average, within the edges' room */
    ull n = g.seg->rows, groups = *g.t.ngroups ? *g.t.ngroups : 1,
        cs = CHUNK_MIN;
    while (cs < CHUNK_MAX && cs * 4 * groups < n)
        cs *= 2;
    while (cs * g.nchunks < n)
        cs *= 2;
    g.seg->chunk = cs;
}

/* Rows in order of group: each at its group's start plus a place taken. */
__global__ void scatter_kernel(grp_args g)
{
    if (!going(g))
        return;
    ull n = g.seg->rows;
    for (ull i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (ull)gridDim.x * blockDim.x) {
        unsigned id = g.gid[i];
        unsigned at = g.start[id] + atomicAdd(&g.fill[id], 1u);
        g.idx[at] = (unsigned)i;
        g.sg[at] = id;
    }
}

/* The cell of group id's column k, about to change, into p and s: as it
 * is, copied first (an old group), or empty (a group of this segment). */
__device__ __forceinline__ void take_cell(const grp_args &g, unsigned id, int k,
                                          col_part *p, group_sum *s)
{
    size_t c = (size_t)id * (size_t)g.a.ncols + (size_t)k;
    if (id < g.seg->n0) {
        *p = g.part[c];
        *s = g.sum[c];
        g.bpart[c] = *p;
        g.bsum[c] = *s;
    } else {
        gc_part_init(p);
        gc_sum_init(s);
    }
}

/* Ordered rows [lo, hi) of column k into p and s (the thread's own: the
 * cell is written once, after), PREFETCH rows' values loaded at once. */
__device__ void reduce_run(const grp_args &g, size_t lo, size_t hi, int k,
                           col_part *p, group_sum *s)
{
    const csv_args &a = g.a;
    const double *__restrict__ v = a.col + (size_t)k * a.ld;
    const int *__restrict__ corr =
        a.corr_on[k] ? a.corr + (size_t)k * a.ld : nullptr;
    ull base = g.seg->row_base;
    bool bad = false;
    for (size_t i = lo; i < hi; i += PREFETCH) {
        unsigned row[PREFETCH];
        double x[PREFETCH];
        int r[PREFETCH];
#pragma unroll
        for (int j = 0; j < PREFETCH; j++)
            row[j] = i + j < hi ? g.idx[i + j] : 0;
#pragma unroll
        for (int j = 0; j < PREFETCH; j++) {
            x[j] = i + j < hi ? v[row[j]] : 0;
            r[j] = i + j < hi && corr ? corr[row[j]] : 0;
        }
        for (int j = 0; j < PREFETCH && i + j < hi; j++) {
            if (x[j] != x[j]) { /* why it did not enter: RAW_NAN_KIND */
                unsigned kind = RAW_NAN_KIND((ull)__double_as_longlong(x[j]));
                gc_part_counts(p, kind == NUM_MISSING, kind == NUM_INVALID,
                               kind == NUM_NAN,
                               kind == NUM_INVALID ? base + row[j] : 0);
                continue;
            }
            gc_part_add(p, x[j], r[j], base + row[j]);
            bad |= gc_sum_add(s, x[j]) != 0;
        }
    }
    if (bad)
        atomicExch(&g.seg->inexact, 1u);
}

/* Grid: x over chunks, y over columns. */
__global__ void reduce_kernel(grp_args g)
{
    if (!going(g))
        return;
    int k = (int)blockIdx.y;
    size_t n = g.seg->rows, nc = (size_t)g.a.ncols, cs = g.seg->chunk;
    size_t nch = (n + cs - 1) / cs;
    for (size_t ch = (size_t)blockIdx.x * blockDim.x + threadIdx.x; ch < nch;
         ch += (size_t)gridDim.x * blockDim.x) {
        size_t lo = ch * cs, hi = lo + cs < n ? lo + cs : n;
        for (size_t a = lo; a < hi;) {
            unsigned id = g.sg[a];
            size_t b = a + 1;
            while (b < hi && g.sg[b] == id)
                b++;
            bool open = (a == lo && a > 0 && g.sg[a - 1] == id) ||
                        (b == hi && b < n && g.sg[b] == id);
            col_part p;
            group_sum s;
            size_t at;
            if (open) { /* the group goes on past the chunk: a piece */
                at = 2 * ch + (a == lo ? 0 : 1);
                if (k == 0)
                    g.edge[at] = id;
                gc_part_init(&p);
                gc_sum_init(&s);
            } else {
                take_cell(g, id, k, &p, &s);
            }
            reduce_run(g, a, b, k, &p, &s);
            if (open) {
                g.epart[at * nc + (size_t)k] = p;
                g.esum[at * nc + (size_t)k] = s;
            } else {
                g.part[(size_t)id * nc + (size_t)k] = p;
                g.sum[(size_t)id * nc + (size_t)k] = s;
            }
            a = b;
        }
    }
}

/* Grid: x over edge pieces, y over columns. A group's pieces follow one
 * another (none of another group between them); its first merges them
 * all into the group's state. */
__global__ void edge_kernel(grp_args g)
{
    if (!going(g))
        return;
    int k = (int)blockIdx.y;
    size_t n = g.seg->rows, nc = (size_t)g.a.ncols;
    size_t cs = g.seg->chunk, npieces = 2 * ((n + cs - 1) / cs);
    for (size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x; p < npieces;
         p += (size_t)gridDim.x * blockDim.x) {
        unsigned id = g.edge[p];
        if (id == NONE)
            continue;
        size_t q = p;
        while (q > 0 && g.edge[q - 1] == NONE)
            q--;
        if (q > 0 && g.edge[q - 1] == id)
            continue; /* not its group's first piece */
        col_part d;
        group_sum s;
        bool bad = false;
        take_cell(g, id, k, &d, &s);
        for (q = p; q < npieces && (g.edge[q] == id || g.edge[q] == NONE);
             q++) {
            if (g.edge[q] != id)
                continue;
            gc_part_merge(&d, &g.epart[q * nc + (size_t)k]);
            bad |= gc_sum_merge(&s, &g.esum[q * nc + (size_t)k]) != 0;
        }
        g.part[(size_t)id * nc + (size_t)k] = d;
        g.sum[(size_t)id * nc + (size_t)k] = s;
        if (bad)
            atomicExch(&g.seg->inexact, 1u);
    }
}

/* Each group of the segment once (at its first ordered row): its rows
 * counted, or, when a sum went past the device, its old state back. */
__global__ void settle_kernel(grp_args g)
{
    if (!going(g))
        return;
    size_t n = g.seg->rows, nc = (size_t)g.a.ncols;
    ull n0 = g.seg->n0;
    bool back = g.seg->inexact != 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned id = g.sg[i];
        if (i > 0 && g.sg[i - 1] == id)
            continue;
        if (!back) {
            g.rows[id] = (id < n0 ? g.rows[id] : 0) + g.count[id];
            continue;
        }
        for (size_t k = 0; id < n0 && k < nc; k++) {
            g.part[id * nc + k] = g.bpart[id * nc + k];
            g.sum[id * nc + k] = g.bsum[id * nc + k];
        }
    }
}

/* The corrections back to zero (the fused reductions' job elsewhere):
 * grid x over rows, y over columns. */
__global__ void clear_corr_kernel(grp_args g)
{
    const csv_args &a = g.a;
    int k = (int)blockIdx.y;
    if (!g.seg->armed || !a.corr_on[k])
        return;
    ull n = g.seg->rows;
    int *c = a.corr + (size_t)k * a.ld;
    for (ull i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (ull)gridDim.x * blockDim.x)
        c[i] = 0;
}

/* With kept values: the segment's rows (values, corrections, groups)
 * at the arena's end, where end_kernel counts them in unless the segment
 * stops (then they are past the arena's rows: nothing). Before
 * clear_corr_kernel clears the corrections. Grid x over rows, y over
 * columns. */
__global__ void keep_kernel(grp_args g, unsigned *vgid)
{
    const csv_args &a = g.a;
    int k = (int)blockIdx.y;
    if (!going(g))
        return;
    ull n = g.seg->rows, at = a.st->arena_used;
    const double *src = a.col + (size_t)k * a.ld;
    const int *csrc = a.corr + (size_t)k * a.ld;
    double *dst = a.arena + (size_t)k * a.arena_ld + at;
    int *cdst =
        a.corr_arena ? a.corr_arena + (size_t)k * a.arena_ld + at : nullptr;
    bool corr = a.corr_on[k] != 0;
    for (ull i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (ull)gridDim.x * blockDim.x) {
        dst[i] = src[i];
        if (cdst)
            cdst[i] = corr ? csrc[i] : 0;
        if (k == 0)
            vgid[at + i] = g.gid[i];
    }
}

/* One thread: a sum past the device stops it at this segment. */
__global__ void judge_kernel(grp_args g)
{
    const csv_args &a = g.a;
    for (int k = 0; k < a.ncols; k++)
        a.corr_on[k] = 0;
    if (going(g) && g.seg->inexact)
        a.st->stop_now = RAW_GROUP_SUM;
}

/* After end_kernel: a segment that stopped the device leaves no group. */
__global__ void unclaim_kernel(grp_args g)
{
    if (!g.seg->armed || !g.a.st->stop)
        return;
    uint32_t n0 = (uint32_t)g.seg->n0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
         i <= g.t.mask; i += (size_t)gridDim.x * blockDim.x) {
        uint32_t v = g.t.slot[i];
        if (v == GC_BUSY || v == GC_GAVE_UP ||
            (v >= GC_ID_BASE && v - GC_ID_BASE >= n0))
            g.t.slot[i] = GC_EMPTY;
    }
}

__global__ void disarm_kernel(grp_args g)
{
    seg_info *s = g.seg;
    if (s->armed && g.a.st->stop) {
        *g.t.ngroups = (uint32_t)s->n0;
        *g.t.arena_used = s->a0;
        *g.t.full = 0;
    } else if (s->armed && *g.t.ngroups - s->n0 > s->new_max)
        s->new_max = *g.t.ngroups - s->n0;
    s->armed = 0;
    g.a.status->new_groups_max = s->new_max;
    g.a.status->groups = *g.t.ngroups;
    g.a.status->key_bytes = *g.t.arena_used;
}

/* The keys of groups [0, n) into a new table's empty slots. */
__global__ void rehash_kernel(gc_table t, uint32_t n)
{
    for (uint32_t id = blockIdx.x * blockDim.x + threadIdx.x; id < n;
         id += gridDim.x * blockDim.x) {
        const char *k = t.arena + t.key_off[id];
        uint32_t i = (uint32_t)gc_hash(k, t.key_len[id]) & t.mask;
        while (atomicCAS(&t.slot[i], GC_EMPTY, id + GC_ID_BASE) != GC_EMPTY)
            i = (i + 1) & t.mask;
    }
}

grp_args args_of(raw_group *g, const csv_args *a)
{
    grp_args x;
    x.a = *a;
    x.a.key_at = g->key_at;
    x.a.key_len = g->key_len;
    x.t = g->t;
    x.part = g->part;
    x.bpart = g->bpart;
    x.epart = g->epart;
    x.sum = g->sum;
    x.bsum = g->bsum;
    x.esum = g->esum;
    x.rows = g->rows;
    x.count = g->count;
    x.fill = g->fill;
    x.start = g->start;
    x.gid = g->gid;
    x.idx = g->idx;
    x.sg = g->sg;
    x.edge = g->edge;
    x.seg = g->seg;
    x.nchunks = g->nchunks;
    x.state_groups = g->state_groups;
    return x;
}

unsigned grid_for(size_t n, int nsm)
{
    size_t b = (n + THREADS - 1) / THREADS, most = (size_t)nsm * 8;
    b = b < most ? b : most;
    return b ? (unsigned)b : 1;
}

template <typename T> cudaError_t dalloc(T **p, size_t n)
{
    return cudaMalloc((void **)p, (n ? n : 1) * sizeof(T));
}

} // namespace

cudaError_t raw_group_make(raw_group **out, int ncols, int nkeys, size_t ld,
                           size_t maxrec)
{
    raw_group *g = static_cast<raw_group *>(calloc(1, sizeof *g));
    *out = g;
    if (!g)
        return cudaErrorMemoryAllocation;
    g->ncols = ncols;
    size_t cell = sizeof(col_part) + sizeof(group_sum);
    size_t edges = EDGE_BYTES / (2 * cell * (size_t)ncols);
    g->nchunks = edges < 256 ? 256 : edges > EDGE_CHUNKS ? EDGE_CHUNKS : edges;
    size_t state = FIRST_STATE_BYTES / (2 * cell * (size_t)ncols);
    state = state < 16 ? 16 : state > FIRST_STATE ? FIRST_STATE : state;
    size_t ecells = 2 * g->nchunks * (size_t)ncols;
    if (maxrec * (size_t)nkeys * 2 * sizeof(unsigned) > KEY_PLACES_BYTES)
        return cudaErrorMemoryAllocation;
    TRY(dalloc(&g->counters, 4));
    TRY(cudaMemset(g->counters, 0, 4 * sizeof(uint64_t)));
    g->t.ngroups = reinterpret_cast<uint32_t *>(&g->counters[0]);
    g->t.arena_used = &g->counters[1];
    g->t.full = reinterpret_cast<uint32_t *>(&g->counters[2]);
    TRY(raw_group_grow(g, FIRST_TABLE, state, FIRST_ARENA, 0));
    TRY(dalloc(&g->gid, ld));
    TRY(dalloc(&g->idx, ld));
    TRY(dalloc(&g->sg, ld));
    TRY(dalloc(&g->epart, ecells));
    TRY(dalloc(&g->esum, ecells));
    TRY(dalloc(&g->edge, 2 * g->nchunks));
    TRY(dalloc(&g->seg, 1));
    TRY(cudaMemset(g->seg, 0, sizeof(seg_info)));
    TRY(dalloc(&g->key_at, maxrec * (size_t)nkeys));
    TRY(dalloc(&g->key_len, maxrec * (size_t)nkeys));
    return cudaSuccess;
}

namespace
{

/* What a table of max_groups groups holds; freed together. */
struct table_mem {
    uint32_t *slot;
    uint64_t *key_off, *first_row;
    ull *rows;
    uint32_t *key_len;
    unsigned *count, *fill, *start;
    void *scan_tmp;
    size_t scan_bytes;
};

/* The state of state_groups groups; freed together. */
struct state_mem {
    col_part *part, *bpart;
    group_sum *sum, *bsum;
};

void table_free(table_mem &m)
{
    void *p[] = {m.slot,  m.key_off, m.first_row, m.rows,    m.key_len,
                 m.count, m.fill,    m.start,     m.scan_tmp};
    for (void *q : p)
        cudaFree(q);
}

void state_free(state_mem &m)
{
    void *p[] = {m.part, m.bpart, m.sum, m.bsum};
    for (void *q : p)
        cudaFree(q);
}

cudaError_t table_alloc(table_mem &m, size_t groups)
{
    memset(&m, 0, sizeof m);
    TRY(dalloc(&m.slot, 2 * groups));
    TRY(dalloc(&m.key_off, groups));
    TRY(dalloc(&m.first_row, groups));
    TRY(dalloc(&m.rows, groups));
    TRY(dalloc(&m.key_len, groups));
    TRY(dalloc(&m.count, groups));
    TRY(dalloc(&m.fill, groups));
    TRY(dalloc(&m.start, groups));
    TRY(cub::DeviceScan::ExclusiveSum(nullptr, m.scan_bytes,
                                      (const unsigned *)nullptr,
                                      (unsigned *)nullptr, (int)groups));
    return cudaMalloc(&m.scan_tmp, m.scan_bytes ? m.scan_bytes : 1);
}

cudaError_t state_alloc(state_mem &m, size_t groups, int ncols)
{
    size_t cells = groups * (size_t)ncols;
    memset(&m, 0, sizeof m);
    TRY(dalloc(&m.part, cells));
    TRY(dalloc(&m.bpart, cells));
    TRY(dalloc(&m.sum, cells));
    return dalloc(&m.bsum, cells);
}

template <typename T>
cudaError_t carry_over(T *to, const T *from, size_t n, cudaStream_t s)
{
    return n && from ? cudaMemcpyAsync(to, from, n * sizeof(T),
                                       cudaMemcpyDeviceToDevice, s)
                     : cudaSuccess;
}

table_mem table_of(const raw_group *g)
{
    return {g->t.slot, g->t.key_off, g->t.first_row, g->rows,     g->t.key_len,
            g->count,  g->fill,      g->start,       g->scan_tmp, 0};
}

state_mem state_of(const raw_group *g)
{
    return {g->part, g->bpart, g->sum, g->bsum};
}

/* The groups [0, n) of g's table into m's, which becomes g's: their keys
 * hashed into its slots again. */
cudaError_t table_move(raw_group *g, table_mem &m, size_t groups, size_t n,
                       cudaStream_t s)
{
    TRY(carry_over(m.key_off, g->t.key_off, n, s));
    TRY(carry_over(m.first_row, g->t.first_row, n, s));
    TRY(carry_over(m.rows, g->rows, n, s));
    TRY(carry_over(m.key_len, g->t.key_len, n, s));
    TRY(cudaMemsetAsync(m.slot, 0, 2 * groups * sizeof(uint32_t), s));
    TRY(cudaStreamSynchronize(s));
    table_mem old = table_of(g);
    table_free(old);
    g->t.slot = m.slot;
    g->t.key_off = m.key_off;
    g->t.first_row = m.first_row;
    g->rows = m.rows;
    g->t.key_len = m.key_len;
    g->count = m.count;
    g->fill = m.fill;
    g->start = m.start;
    g->scan_tmp = m.scan_tmp;
    g->scan_bytes = m.scan_bytes;
    g->max_groups = (unsigned)groups;
    g->t.max_groups = (uint32_t)groups;
    g->t.mask = (uint32_t)(2 * groups - 1);
    if (n) {
        rehash_kernel<<<grid_for(n, 132), THREADS, 0, s>>>(g->t, (uint32_t)n);
        TRY(cudaGetLastError());
        TRY(cudaStreamSynchronize(s));
    }
    return cudaSuccess;
}

/* The state of groups [0, n) into m's, which becomes g's. */
cudaError_t state_move(raw_group *g, state_mem &m, size_t groups, size_t n,
                       cudaStream_t s)
{
    size_t nc = (size_t)g->ncols;
    TRY(carry_over(m.part, g->part, n * nc, s));
    TRY(carry_over(m.sum, g->sum, n * nc, s));
    TRY(cudaStreamSynchronize(s));
    state_mem old = state_of(g);
    state_free(old);
    g->part = m.part;
    g->bpart = m.bpart;
    g->sum = m.sum;
    g->bsum = m.bsum;
    g->state_groups = groups;
    return cudaSuccess;
}

cudaError_t arena_grow(raw_group *g, size_t bytes, size_t used, cudaStream_t s)
{
    char *a = nullptr;
    TRY(dalloc(&a, bytes));
    if (used && g->t.arena)
        TRY(cudaMemcpyAsync(a, g->t.arena, used, cudaMemcpyDeviceToDevice, s));
    TRY(cudaStreamSynchronize(s));
    cudaFree(g->t.arena);
    g->t.arena = a;
    g->t.arena_room = bytes;
    g->arena_bytes = bytes;
    return cudaSuccess;
}

} // namespace

size_t raw_group_room(const raw_group *g, size_t *state, size_t *key_bytes)
{
    *state = g->state_groups;
    *key_bytes = g->arena_bytes;
    return g->max_groups;
}

size_t raw_group_table_bytes(void)
{
    return 2 * sizeof(uint32_t) + 3 * sizeof(uint64_t) + sizeof(uint32_t) +
           3 * sizeof(unsigned);
}

size_t raw_group_state_bytes(const raw_group *g)
{
    return 2 * (sizeof(col_part) + sizeof(group_sum)) * (size_t)g->ncols;
}

size_t raw_group_count(raw_group *g, cudaStream_t s, cudaError_t *e)
{
    uint64_t c = 0;
    *e = cudaStreamSynchronize(s);
    if (*e == cudaSuccess)
        *e = cudaMemcpy(&c, g->counters, sizeof c, cudaMemcpyDeviceToHost);
    return (uint32_t)c;
}

cudaError_t raw_group_grow(raw_group *g, size_t table, size_t state,
                           size_t key_bytes, cudaStream_t s)
{
    uint64_t c[2] = {0, 0};
    TRY(cudaStreamSynchronize(s));
    TRY(cudaMemcpy(c, g->counters, sizeof c, cudaMemcpyDeviceToHost));
    size_t n = (uint32_t)c[0];
    n = n < g->max_groups ? n : g->max_groups; /* past it: none made */
    if (key_bytes > g->arena_bytes)
        TRY(arena_grow(g, key_bytes, (size_t)c[1], s));
    if (table > g->max_groups) {
        table_mem m;
        cudaError_t e = table_alloc(m, table);
        if (e == cudaSuccess)
            e = table_move(g, m, table, n, s);
        if (e != cudaSuccess) {
            table_free(m);
            return e;
        }
    }
    if (state > g->state_groups) {
        state_mem m;
        cudaError_t e = state_alloc(m, state, g->ncols);
        if (e == cudaSuccess)
            e = state_move(g, m, state,
                           n < g->state_groups ? n : g->state_groups, s);
        if (e != cudaSuccess) {
            state_free(m);
            return e;
        }
    }
    return cudaSuccess;
}

void raw_group_free(raw_group *g)
{
    if (!g)
        return;
    table_mem m = table_of(g);
    table_free(m);
    state_mem st = state_of(g);
    state_free(st);
    void *p[] = {g->counters, g->t.arena, g->gid,     g->idx,
                 g->sg,       g->epart,   g->esum,    g->edge,
                 g->seg,      g->key_at,  g->key_len, g->vgid};
    for (void *q : p)
        cudaFree(q);
    free(g);
}

cudaError_t raw_group_keep_room(raw_group *g, size_t rows, cudaStream_t s)
{
    if (rows <= g->vgid_cap)
        return cudaSuccess;
    unsigned *v = nullptr;
    TRY(dalloc(&v, rows));
    if (g->vgid_cap)
        TRY(cudaMemcpyAsync(v, g->vgid, g->vgid_cap * sizeof(unsigned),
                            cudaMemcpyDeviceToDevice, s));
    TRY(cudaStreamSynchronize(s));
    cudaFree(g->vgid);
    g->vgid = v;
    g->vgid_cap = rows;
    return cudaSuccess;
}

const unsigned *raw_group_row_groups(const raw_group *g)
{
    return g->vgid;
}

void raw_group_bind(raw_group *g, csv_args *a)
{
    a->key_at = g->key_at;
    a->key_len = g->key_len;
}

cudaError_t raw_group_find(raw_group *g, const csv_args *a, cudaStream_t s)
{
    grp_args x = args_of(g, a);
    size_t mg = g->max_groups;
    unsigned spread = (unsigned)a->nsm * 4;
    TRY(cudaMemsetAsync(g->count, 0, mg * sizeof(unsigned), s));
    TRY(cudaMemsetAsync(g->fill, 0, mg * sizeof(unsigned), s));
    TRY(cudaMemsetAsync(g->edge, 0xff, 2 * g->nchunks * sizeof(unsigned), s));
    begin_kernel<<<1, 1, 0, s>>>(x);
    find_kernel<<<spread, THREADS, 0, s>>>(x);
    return cudaGetLastError();
}

cudaError_t raw_group_reduce(raw_group *g, const csv_args *a, cudaStream_t s)
{
    grp_args x = args_of(g, a);
    size_t mg = g->max_groups;
    unsigned spread = (unsigned)a->nsm * 4;
    room_kernel<<<1, 1, 0, s>>>(x);
    size_t bytes = g->scan_bytes;
    TRY(cub::DeviceScan::ExclusiveSum(g->scan_tmp, bytes, g->count, g->start,
                                      (int)mg, s));
    scatter_kernel<<<spread, THREADS, 0, s>>>(x);
    dim3 cgrid(grid_for(g->nchunks, a->nsm), (unsigned)a->ncols);
    reduce_kernel<<<cgrid, THREADS, 0, s>>>(x);
    dim3 egrid(grid_for(2 * g->nchunks, a->nsm), (unsigned)a->ncols);
    edge_kernel<<<egrid, THREADS, 0, s>>>(x);
    settle_kernel<<<spread, THREADS, 0, s>>>(x);
    dim3 rgrid(spread, (unsigned)a->ncols);
    if (a->keep && a->arena && g->vgid)
        keep_kernel<<<rgrid, THREADS, 0, s>>>(x, g->vgid);
    clear_corr_kernel<<<rgrid, THREADS, 0, s>>>(x);
    judge_kernel<<<1, 1, 0, s>>>(x);
    return cudaGetLastError();
}

cudaError_t raw_group_settle(raw_group *g, const csv_args *a, cudaStream_t s)
{
    grp_args x = args_of(g, a);
    unclaim_kernel<<<grid_for((size_t)g->t.mask + 1, a->nsm), THREADS, 0, s>>>(
        x);
    disarm_kernel<<<1, 1, 0, s>>>(x);
    return cudaGetLastError();
}

cudaError_t raw_group_take(raw_group *g, cudaStream_t s, gpu_group_out *out,
                           int *nomem)
{
    uint64_t c[3];
    *nomem = 0;
    memset(out, 0, sizeof *out);
    TRY(cudaStreamSynchronize(s));
    TRY(cudaMemcpy(c, g->counters, sizeof c, cudaMemcpyDeviceToHost));
    uint32_t n = (uint32_t)c[0];
    size_t nc = (size_t)g->ncols, cells = (size_t)n * nc, gn = n ? n : 1;
    out->ngroups = n;
    out->npieces = n;
    out->arena = static_cast<char *>(malloc(c[1] ? c[1] : 1));
    out->key_off = static_cast<uint64_t *>(malloc(gn * sizeof(uint64_t)));
    out->key_len = static_cast<uint32_t *>(malloc(gn * sizeof(uint32_t)));
    out->first_row = static_cast<uint64_t *>(malloc(gn * sizeof(uint64_t)));
    out->rows = static_cast<uint64_t *>(malloc(gn * sizeof(uint64_t)));
    out->part =
        static_cast<col_part *>(malloc((cells ? cells : 1) * sizeof(col_part)));
    out->sum = static_cast<group_sum *>(
        malloc((cells ? cells : 1) * sizeof(group_sum)));
    if (!out->arena || !out->key_off || !out->key_len || !out->first_row ||
        !out->rows || !out->part || !out->sum) {
        *nomem = 1;
        return cudaSuccess;
    }
    pull_copy copies[] = {
        {out->arena, g->t.arena, c[1]},
        {out->key_off, g->t.key_off, n * sizeof(uint64_t)},
        {out->key_len, g->t.key_len, n * sizeof(uint32_t)},
        {out->first_row, g->t.first_row, n * sizeof(uint64_t)},
        {out->rows, g->rows, n * sizeof(uint64_t)},
        {out->part, g->part, cells * sizeof(col_part)},
        {out->sum, g->sum, cells * sizeof(group_sum)}};
    TRY(pull_copies(copies, (int)(sizeof copies / sizeof copies[0]), 0));
    return cudaSuccess;
}
