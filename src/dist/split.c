#include "src/dist/split.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv/csv_grammar.h"
#include "io/source/source.h"

/* Bytes read at once while summarising or looking for a boundary. */
#define SPLIT_BLOCK ((size_t)1 << 20)
/* What the engine reads to detect a dialect (engine.c's HEAD_BYTES). */
#define SPLIT_HEAD ((size_t)1 << 20)
/* At most this many threads summarise one range. */
#define SPLIT_THREADS 64
/* The kernel copies a page-cache page out with `rep movsb`, which on an
 * AMD EPYC ran 5-7x slower when the destination sat 1-31 bytes past the
 * source modulo a page (bench/pread_align.c: 10.5-12.7 GB/s elsewhere,
 * 1.8-2.2 GB/s there, 16 bytes being the offset malloc gives a large
 * block; the Xeon GPU hosts showed no such penalty): so reads land in a
 * page-aligned buffer at their file offset's page offset. */
#define SPLIT_PAGE ((size_t)4096)

static int csv_dialect_of(source *s, const csv_dialect *base, split_input *in,
                          cs_error *e)
{
    char *buf = malloc(SPLIT_HEAD);
    if (!buf)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    size_t n = in->size < SPLIT_HEAD ? (size_t)in->size : SPLIT_HEAD;
    int rc = source_pread(s, buf, n, 0, e) < 0 ? CS_EDATA : CS_OK;
    if (rc == CS_OK) {
        in->bom = n >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3) ? 3 : 0;
        in->d = *base;
        csv_detect(buf, n, n == in->size, &in->d);
    }
    free(buf);
    return rc;
}

int split_probe(const char *path, size_t record, const csv_dialect *base,
                split_input *in, cs_error *e)
{
    memset(in, 0, sizeof *in);
    in->kind = SPLIT_WHOLE;
    source *s = NULL;
    cs_error ignored = {0};
    /* what cannot be opened goes whole to a rank, whose engine says why
     * when its turn comes, in input order */
    if (source_open(path, &s, &ignored) != CS_OK)
        return CS_OK;
    in->size = source_file_size(s);
    int rc = CS_OK;
    if (source_can_pread(s) && in->size > 0) {
        in->kind = record ? SPLIT_BINARY : SPLIT_CSV;
        in->record = record;
        if (!record)
            rc = csv_dialect_of(s, base, in, e);
    }
    source_close(s);
    return rc;
}

/* Where rank r's share of a total of t bytes begins: the r-th of cuts,
 * or an even share. */
static uint64_t share_start(uint64_t t, int nranks, int r, const char *cuts)
{
    if (r == 0)
        return 0;
    if (r == nranks)
        return t;
    for (int k = 1; cuts && *cuts; k++) {
        char *end;
        uint64_t at = strtoull(cuts, &end, 10);
        if (k == r)
            return at < t ? at : t;
        cuts = *end == ',' ? end + 1 : end;
    }
    uint64_t n = (uint64_t)nranks, k = (uint64_t)r;
    return t / n * k + t % n * k / n;
}

static int rank_at(uint64_t t, int nranks, const char *cuts, uint64_t pos)
{
    int r = 0;
    while (r + 1 < nranks && share_start(t, nranks, r + 1, cuts) <= pos)
        r++;
    return r;
}

static uint64_t clamp(uint64_t v, uint64_t lo, uint64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void split_ranges(const split_input *in, int nin, int nranks, int rank,
                  const char *cuts, uint64_t *x0, uint64_t *x1)
{
    uint64_t t = 0;
    for (int i = 0; i < nin; i++)
        t += in[i].size;
    uint64_t a = share_start(t, nranks, rank, cuts);
    uint64_t b = share_start(t, nranks, rank + 1, cuts), pos = 0;
    for (int i = 0; i < nin; pos += in[i].size, i++) {
        uint64_t size = in[i].size;
        x0[i] = x1[i] = 0;
        if (in[i].kind == SPLIT_WHOLE) {
            if (rank_at(t, nranks, cuts, pos + size / 2) == rank)
                x1[i] = ENGINE_PART_END;
            continue;
        }
        uint64_t lo = clamp(a, pos, pos + size) - pos;
        uint64_t hi = clamp(b, pos, pos + size) - pos;
        if (in[i].kind == SPLIT_BINARY) { /* up to whole records */
            uint64_t rs = in[i].record;
            lo = lo == size ? size : (lo + rs - 1) / rs * rs;
            hi = hi == size ? size : (hi + rs - 1) / rs * rs;
            lo = lo > size ? size : lo;
            hi = hi > size ? size : hi;
        }
        x0[i] = lo;
        x1[i] = hi;
    }
}

/* A buffer for reads of up to n bytes at any file offset (read_at). */
static char *block_alloc(size_t n)
{
    void *p = NULL;
    return posix_memalign(&p, SPLIT_PAGE, n + SPLIT_PAGE) ? NULL : p;
}

/* Reads n bytes at off into buf (block_alloc'ed), at off's page offset;
 * returns where they are, or NULL (e filled). */
static const char *read_at(const source *src, char *buf, size_t n, uint64_t off,
                           cs_error *e)
{
    char *to = buf + off % SPLIT_PAGE;
    return source_pread(src, to, n, off, e) < 0 ? NULL : to;
}

/* The LFs of p[0, n), and whether a quote is among its bytes. */
#if defined(__GNUC__)
/* 16 bytes compared at once (GCC's and Clang's vector extension, SSE2 or
 * NEON underneath), both bytes in one read of the block: a memchr per LF
 * costs a call per line, 8 GB/s on 4 MiB of 74-byte lines, against 21-36
 * GB/s here. A lane's count of LFs is a byte: 255 steps between sums. */
typedef unsigned char lanes16 __attribute__((vector_size(16)));

static uint64_t count_lfs(const char *p, size_t n, int *quote)
{
    uint64_t k = 0;
    size_t i = 0;
    lanes16 lf, qu, any;
    memset(&lf, '\n', sizeof lf);
    memset(&qu, '"', sizeof qu);
    memset(&any, 0, sizeof any);
    while (n - i >= sizeof lf) {
        lanes16 acc;
        memset(&acc, 0, sizeof acc);
        size_t steps = (n - i) / sizeof lf;
        for (steps = steps > 255 ? 255 : steps; steps--; i += sizeof lf) {
            lanes16 w;
            memcpy(&w, p + i, sizeof w);
            acc -= (lanes16)(w == lf); /* a match is all ones: -1 */
            any |= (lanes16)(w == qu);
        }
        for (size_t b = 0; b < sizeof acc; b++)
            k += acc[b];
    }
    int q = 0;
    for (size_t b = 0; b < sizeof any; b++)
        q |= any[b];
    for (; i < n; i++) {
        k += p[i] == '\n';
        q |= p[i] == '"';
    }
    *quote = q != 0;
    return k;
}
#else
static uint64_t count_lfs(const char *p, size_t n, int *quote)
{
    uint64_t k = 0;
    *quote = memchr(p, '"', n) != NULL;
    for (const char *end = p + n; (p = memchr(p, '\n', (size_t)(end - p))); p++)
        k++;
    return k;
}
#endif

/* The first and last record terminators (CR, LF) of buf, or NULL; a CR
 * is looked for only up to the LF (most files have none). */
static const char *first_term(const char *buf, size_t n)
{
    const char *lf = memchr(buf, CSV_G_LF, n);
    const char *cr = memchr(buf, CSV_G_CR, lf ? (size_t)(lf - buf) : n);
    return cr ? cr : lf;
}

static const char *last_term(const char *buf, size_t n)
{
    const char *lf = memrchr(buf, CSV_G_LF, n);
    const char *from = lf ? lf + 1 : buf;
    const char *cr = memrchr(from, CSV_G_CR, (size_t)(buf + n - from));
    return cr ? cr : lf;
}

/* csv_summarize, fast where a block holds no quote (most blocks of most
 * files): no quote byte can open a quoted field, so past the first
 * terminator every lane is either inside a quoted field (and stays there)
 * or between records, where the last terminator puts it back: the block's
 * summary is its head's (through the first terminator) then its tail's
 * (after the last). io/csv/csv_grammar.h's table is the proof; tests/dist/
 * test_split.c checks it against csv_summarize. */
void split_summarize_block(const csv_dialect *d, const char *buf, size_t n,
                           csv_summary *s)
{
    int quote;
    uint64_t lfs = count_lfs(buf, n, &quote);
    const char *a = quote ? NULL : first_term(buf, n);
    if (!a) {
        csv_summarize(d, buf, n, s);
        return;
    }
    const char *z = last_term(buf, n), *end = buf + n;
    csv_summary t;
    csv_summarize(d, buf, (size_t)(a + 1 - buf), s);
    csv_summarize(d, z + 1, (size_t)(end - z - 1), &t);
    csv_summary_then(s, &t);
    s->lfs = lfs;
}

/* One thread's piece of a range: [x0, x1) of src, summarised. */
typedef struct piece {
    const source *src;
    const csv_dialect *d;
    uint64_t x0, x1;
    csv_summary s;
    cs_error e;
    int rc;
} piece;

static void *summarize_piece(void *arg)
{
    piece *p = arg;
    char *buf = block_alloc(SPLIT_BLOCK);
    csv_summarize(p->d, "", 0, &p->s);
    p->rc = buf ? CS_OK : cs_fail(&p->e, CS_ENOMEM, "", 0, "out of memory");
    for (uint64_t at = p->x0; p->rc == CS_OK && at < p->x1;) {
        size_t n =
            p->x1 - at < SPLIT_BLOCK ? (size_t)(p->x1 - at) : SPLIT_BLOCK;
        const char *got = read_at(p->src, buf, n, at, &p->e);
        if (!got) {
            p->rc = CS_EDATA;
            break;
        }
        csv_summary b;
        split_summarize_block(p->d, got, n, &b);
        csv_summary_then(&p->s, &b);
        at += n;
    }
    free(buf);
    return NULL;
}

/* The range cut in nthreads pieces summarised at once, then composed in
 * order: the summaries compose, wherever the pieces are cut. */
int split_summarize(const char *path, const split_input *in, uint64_t x0,
                    uint64_t x1, int nthreads, csv_summary *s, cs_error *e)
{
    x0 = x0 < in->bom ? in->bom : x0;
    x1 = x1 < x0 ? x0 : x1;
    int n = nthreads < 1               ? 1
            : nthreads > SPLIT_THREADS ? SPLIT_THREADS
                                       : nthreads;
    if (x1 - x0 < (uint64_t)n) /* a byte at least each */
        n = (int)(x1 - x0) + 1;
    source *src = NULL;
    if (source_open(path, &src, e) != CS_OK)
        return CS_EDATA;
    piece p[SPLIT_THREADS];
    pthread_t th[SPLIT_THREADS];
    int started[SPLIT_THREADS] = {0};
    for (int k = 0; k < n; k++) {
        memset(&p[k], 0, sizeof p[k]);
        p[k] = (piece){
            src,
            &in->d,
            x0 + (x1 - x0) / (uint64_t)n * (uint64_t)k,
            k + 1 == n ? x1 : x0 + (x1 - x0) / (uint64_t)n * (uint64_t)(k + 1),
            {{0}, 0},
            {0},
            CS_OK};
        started[k] =
            k > 0 && !pthread_create(&th[k], NULL, summarize_piece, &p[k]);
        if (!started[k])
            summarize_piece(&p[k]); /* the caller's own piece, or no thread */
    }
    int rc = CS_OK;
    csv_summarize(&in->d, "", 0, s);
    for (int k = 0; k < n; k++) {
        if (started[k])
            pthread_join(th[k], NULL);
        if (p[k].rc != CS_OK && rc == CS_OK) {
            *e = p[k].e;
            rc = p[k].rc;
        }
        csv_summary_then(s, &p[k].s);
    }
    source_close(src);
    return rc;
}

int split_boundary(const char *path, const split_input *in, uint64_t x,
                   int *state, uint64_t *at, uint64_t *lfs, cs_error *e)
{
    *at = in->size;
    source *src = NULL;
    char *buf = block_alloc(SPLIT_BLOCK);
    int rc = buf ? source_open(path, &src, e)
                 : cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    while (rc == CS_OK && x < in->size) {
        uint64_t left = in->size - x;
        size_t n = left < SPLIT_BLOCK ? (size_t)left : SPLIT_BLOCK;
        const char *got = read_at(src, buf, n, x, e);
        if (!got) {
            rc = CS_EDATA;
            break;
        }
        size_t p = csv_first_record(&in->d, got, n, *state);
        if (p != (size_t)-1) {
            *state = CSV_G_ROW;
            *at = x + p;
            int quote;
            *lfs += count_lfs(got, p, &quote);
            break;
        }
        csv_summary s;
        split_summarize_block(&in->d, got, n, &s);
        *state = s.end[*state];
        *lfs += s.lfs;
        x += n;
    }
    if (src)
        source_close(src);
    free(buf);
    return rc;
}

int split_common_boundary(const char *path, const split_input *in, uint64_t x,
                          size_t window, uint64_t *at, int *found, cs_error *e)
{
    *found = 0;
    uint64_t left = x < in->size ? in->size - x : 0;
    size_t n = left < window ? (size_t)left : window;
    if (n == 0)
        return CS_OK;
    source *src = NULL;
    char *buf = block_alloc(n);
    int rc = buf ? source_open(path, &src, e)
                 : cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    const char *got = rc == CS_OK ? read_at(src, buf, n, x, e) : NULL;
    size_t p = got ? csv_common_record(&in->d, got, n) : (size_t)-1;
    if (rc == CS_OK && !got)
        rc = CS_EDATA;
    if (p != (size_t)-1) {
        *at = x + p;
        *found = 1;
    }
    if (src)
        source_close(src);
    free(buf);
    return rc;
}

int split_tail_input(const split_input *in, int nin, const uint64_t *x0,
                     const uint64_t *x1)
{
    int i = nin - 1;
    while (i >= 0 && x0[i] == x1[i])
        i--;
    /* a range to the end of its file: no later rank starts in that file,
     * nor does this rank's end need a state */
    return i < 0 || in[i].kind != SPLIT_CSV || x1[i] == in[i].size ? -1 : i;
}

int split_tail_make(const char *const *paths, const split_input *in, int nin,
                    const uint64_t *x0, const uint64_t *x1, int nthreads,
                    split_tail *t, cs_error *e)
{
    memset(t, 0, sizeof *t);
    int i = t->input = split_tail_input(in, nin, x0, x1);
    if (i < 0)
        return CS_OK;
    return split_summarize(paths[i], &in[i], x0[i], x1[i], nthreads, &t->s, e);
}

void split_state_at(const split_tail *tails, int rank, int i, int *state,
                    uint64_t *lfs)
{
    *state = csv_start_state();
    *lfs = 0;
    for (int r = 0; r < rank; r++)
        if (tails[r].input == i) {
            *state = tails[r].s.end[*state];
            *lfs += tails[r].s.lfs;
        }
}

/* A part whose start lies in a quoted field that the file never closes
 * holds no record of its own, yet the whole input is in error: it reads
 * the whole input, so that its reader meets the open quote on the line
 * where it opens and says what one process over the whole says. */
static void open_to_end(const split_input *in, engine_part *p)
{
    *p = (engine_part){0, in->size, 1};
}

static int csv_part(const char *path, const split_input *in, uint64_t x0,
                    uint64_t x1, const split_tail *tails, int rank, int i,
                    engine_part *p, cs_error *e)
{
    int state = csv_start_state(), at_x1;
    uint64_t lfs = 0, at;
    *p = (engine_part){0, 0, 1};
    if (x0 > in->bom) { /* else the part begins with the data */
        split_state_at(tails, rank, i, &state, &lfs);
        int s = state;
        if (split_boundary(path, in, x0, &s, &p->lo, &lfs, e) != CS_OK)
            return CS_EDATA;
        if (s == CSV_G_QUO) {
            open_to_end(in, p);
            return CS_OK;
        }
        p->line = 1 + lfs;
    } else if (x0 > 0) { /* inside the mark: the data's start all the same */
        p->lo = in->bom;
    }
    if (x1 == in->size) {
        p->hi = in->size;
        return CS_OK;
    }
    /* not at the end: the rank's last range, summarised in its tail */
    at_x1 = tails[rank].s.end[state];
    x1 = x1 < in->bom ? in->bom : x1;
    lfs = 0;
    if (split_boundary(path, in, x1, &at_x1, &at, &lfs, e) != CS_OK)
        return CS_EDATA;
    p->hi = at;
    return CS_OK;
}

int split_parts(const char *const *paths, const split_input *in, int nin,
                const uint64_t *x0, const uint64_t *x1, const split_tail *tails,
                int rank, engine_part *parts, cs_error *e)
{
    for (int i = 0; i < nin; i++) {
        engine_part *p = &parts[i];
        *p = (engine_part){x0[i], x1[i], 1};
        if (x0[i] == x1[i])
            *p = (engine_part){0, 0, 1};
        else if (in[i].kind == SPLIT_CSV &&
                 csv_part(paths[i], &in[i], x0[i], x1[i], tails, rank, i, p,
                          e) != CS_OK)
            return CS_EDATA;
        if (p->lo >= p->hi)
            *p = (engine_part){0, 0, 1};
    }
    return CS_OK;
}
