/* The structural index of a CSV batch, 64 bytes a step (csv_simd.h). Each
 * step turns the bytes into four masks, then the quote mask's prefix XOR
 * into the inside of quoted fields, with the previous step's state carried
 * in; the checks that keep the grammar's lax readings out are masks too,
 * so a batch is read once and judged at the end. */
#include "io/csv/csv_simd.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CSV_SIMD_X86 1
#define CSV_TARGET(t) __attribute__((target(t)))
#endif

#if defined(__GNUC__)
#define CSV_INLINE static inline __attribute__((always_inline))
#else
#define CSV_INLINE static inline
#endif

/* The bytes of one step that matter, a bit each. */
typedef struct masks {
    uint64_t quote, delim, cr, lf;
} masks;

CSV_INLINE void masks_scalar(const unsigned char *p, unsigned char delim,
                             masks *m)
{
    uint64_t q = 0, d = 0, cr = 0, lf = 0;
    for (unsigned i = 0; i < 64; i++) {
        uint64_t bit = (uint64_t)1 << i;
        q |= p[i] == '"' ? bit : 0;
        d |= p[i] == delim ? bit : 0;
        cr |= p[i] == '\r' ? bit : 0;
        lf |= p[i] == '\n' ? bit : 0;
    }
    m->quote = q;
    m->delim = d;
    m->cr = cr;
    m->lf = lf;
}

/* The carry-less product's shift-and-XOR equivalent: bit i becomes the
 * XOR of bits 0..i. */
CSV_INLINE uint64_t prefix_xor_shift(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

#ifdef CSV_SIMD_X86
/* 16 bytes equal to c, as 16 bits. */
CSV_INLINE uint64_t eq16(__m128i v, unsigned char c)
{
    return (uint16_t)_mm_movemask_epi8(
        _mm_cmpeq_epi8(v, _mm_set1_epi8((char)c)));
}

CSV_INLINE void masks_sse2(const unsigned char *p, unsigned char delim,
                           masks *m)
{
    memset(m, 0, sizeof *m);
    for (unsigned i = 0; i < 64; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        m->quote |= eq16(v, '"') << i;
        m->delim |= eq16(v, delim) << i;
        m->cr |= eq16(v, '\r') << i;
        m->lf |= eq16(v, '\n') << i;
    }
}

CSV_TARGET("avx2") CSV_INLINE uint64_t eq32(__m256i v, unsigned char c)
{
    return (uint32_t)_mm256_movemask_epi8(
        _mm256_cmpeq_epi8(v, _mm256_set1_epi8((char)c)));
}

CSV_TARGET("avx2")
CSV_INLINE void masks_avx2(const unsigned char *p, unsigned char delim,
                           masks *m)
{
    __m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)p);
    __m256i hi = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
    m->quote = eq32(lo, '"') | eq32(hi, '"') << 32;
    m->delim = eq32(lo, delim) | eq32(hi, delim) << 32;
    m->cr = eq32(lo, '\r') | eq32(hi, '\r') << 32;
    m->lf = eq32(lo, '\n') | eq32(hi, '\n') << 32;
}

/* The prefix XOR as one carry-less multiplication by all ones. */
CSV_TARGET("pclmul") CSV_INLINE uint64_t prefix_xor_clmul(uint64_t x)
{
    __m128i a = _mm_set_epi64x(0, (long long)x);
    __m128i ones = _mm_set1_epi8(-1);
    return (uint64_t)_mm_cvtsi128_si64(_mm_clmulepi64_si128(a, ones, 0));
}
#endif

/* What the steps carry from one to the next: each a bit for the previous
 * step's last byte, or all ones for inside quotes. */
typedef struct carry {
    uint64_t inside, sep, close, cr, bad, quotes, inner_lf, doubled;
} carry;

/* One step over 64 bytes: the field ends among them (valid: the bytes
 * that are the batch's), the carry moved on. */
CSV_INLINE uint64_t step(const masks *m, uint64_t inside, carry *c,
                         uint64_t valid)
{
    inside ^= c->inside;
    uint64_t open = m->quote & inside, close = m->quote & ~inside;
    uint64_t sep = (m->delim | m->lf) & ~inside, cr = m->cr & ~inside;
    uint64_t after_sep = sep << 1 | c->sep, after_close = close << 1 | c->close;
    uint64_t after_cr = cr << 1 | c->cr;
    /* an opening quote only starts a field (or halves a doubled quote); a
       closing one is followed by its double, a delimiter or a line end; an
       outside CR by an LF: else the grammar reads the bytes laxly */
    c->bad |= (open & ~(after_sep | after_close)) & valid;
    c->bad |= (after_close & ~(m->quote | m->delim | m->cr | m->lf)) & valid;
    c->bad |= (after_cr & ~m->lf) & valid;
    c->inside = (uint64_t)0 - (inside >> 63);
    c->sep = sep >> 63;
    c->close = close >> 63;
    c->cr = cr >> 63;
    c->quotes |= m->quote;
    c->inner_lf |= m->lf & inside;
    c->doubled |= after_close & m->quote;
    return ((sep & ~(m->lf & after_cr)) | cr) & valid;
}

/* The set bits of ends as offsets from base, eight at a time without a
 * branch on each (the flattening of Langdale and Lemire, "Parsing
 * Gigabytes of JSON per Second", VLDB Journal 28(6), 2019): a loop that
 * stops at the last bit mispredicts its exit nearly every step, as the
 * count varies. Up to 15 entries past the count are written (garbage):
 * csv_simd_init leaves room. The bit 63 or'ed in keeps ctz defined once
 * the bits run out; it does not move a lower set bit. */
CSV_INLINE uint64_t flatten8(uint64_t ends, uint32_t base, uint32_t *out)
{
    for (int i = 0; i < 8; i++) {
        out[i] = base + (uint32_t)__builtin_ctzll(ends | (uint64_t)1 << 63);
        ends &= ends - 1;
    }
    return ends;
}

CSV_INLINE size_t flatten(uint64_t ends, uint32_t base, uint32_t *out)
{
    size_t k = (size_t)__builtin_popcountll(ends);
    ends = flatten8(ends, base, out);
    if (k > 8) {
        ends = flatten8(ends, base, out + 8);
        for (size_t i = 16; ends; i++) {
            out[i] = base + (uint32_t)__builtin_ctzll(ends);
            ends &= ends - 1;
        }
    }
    return k;
}

typedef void (*masks_fn)(const unsigned char *, unsigned char, masks *);
typedef uint64_t (*pxor_fn)(uint64_t);

/* The whole batch with one kernel's masks and prefix XOR: inlined into
 * each kernel's function, so that it compiles for that kernel's ISA. */
CSV_INLINE int scan_with(csv_simd_index *ix, const unsigned char *buf, size_t n,
                         unsigned char delim, masks_fn mk, pxor_fn px)
{
    carry c = {0, 1, 0, 0, 0, 0, 0, 0}; /* a batch starts a field */
    unsigned char tail[64];
    size_t k = 0, at = 0, lines = 0;
    masks m;
    uint64_t ends;
    for (; at + 64 <= n; at += 64) {
        mk(buf + at, delim, &m);
        if (!(m.quote | m.cr | c.inside | c.close | c.cr)) {
            /* no quote or CR here or just before: every delimiter and LF
               ends a field, nothing is lax (step's result, fewer steps) */
            ends = m.delim | m.lf;
            c.sep = ends >> 63;
            lines += (size_t)__builtin_popcountll(m.lf);
        } else {
            ends = step(&m, px(m.quote), &c, ~(uint64_t)0);
            lines += (size_t)__builtin_popcountll(ends & ~m.delim);
        }
        k += flatten(ends, (uint32_t)at, ix->end + k);
        if (c.bad)
            return 0;
    }
    if (at < n) {
        memset(tail, 0, sizeof tail);
        memcpy(tail, buf + at, n - at);
        mk(tail, delim, &m);
        ends = step(&m, px(m.quote), &c, ((uint64_t)1 << (n - at)) - 1);
        lines += (size_t)__builtin_popcountll(ends & ~m.delim);
        k += flatten(ends, (uint32_t)at, ix->end + k);
    }
    ix->n = k;
    ix->lines = lines;
    ix->quoted = c.quotes != 0;
    ix->inner_lf = c.inner_lf != 0;
    ix->doubled = c.doubled != 0;
    return !c.bad && !c.inside;
}

/* The cutter's question over buf[0, n) from state start
 * (csv_simd_cut): where the last LF outside quotes is, no index kept. */
CSV_INLINE int cut_with(const unsigned char *buf, size_t n, unsigned char delim,
                        int start, size_t *last_lf, int *inside, masks_fn mk,
                        pxor_fn px)
{
    carry c = {0};
    c.sep = start == CSV_SIMD_FIELD;
    c.inside = start == CSV_SIMD_QUOTED ? ~(uint64_t)0 : 0;
    unsigned char tail[64];
    size_t last = 0, at = 0;
    masks m;
    for (; at < n; at += 64) {
        const unsigned char *p = buf + at;
        uint64_t valid = ~(uint64_t)0;
        if (n - at < 64) {
            memset(tail, 0, sizeof tail);
            memcpy(tail, p, n - at);
            p = tail;
            valid = ((uint64_t)1 << (n - at)) - 1;
        }
        mk(p, delim, &m);
        uint64_t pq = px(m.quote), in = pq ^ c.inside;
        step(&m, pq, &c, valid);
        uint64_t lf = m.lf & ~in & valid;
        if (lf)
            last = at + 64 - (size_t)__builtin_clzll(lf);
        if (c.bad)
            return 0;
    }
    /* a CR last: its LF, if any, is in the next bytes */
    if (c.cr)
        return 0;
    *last_lf = last;
    *inside = c.inside != 0;
    return 1;
}

static int scan_scalar(csv_simd_index *ix, const unsigned char *buf, size_t n,
                       unsigned char delim)
{
    return scan_with(ix, buf, n, delim, masks_scalar, prefix_xor_shift);
}

static int cut_scalar(const unsigned char *buf, size_t n, unsigned char delim,
                      int start, size_t *last_lf, int *inside)
{
    return cut_with(buf, n, delim, start, last_lf, inside, masks_scalar,
                    prefix_xor_shift);
}

#ifdef CSV_SIMD_X86
static int cut_sse2(const unsigned char *buf, size_t n, unsigned char delim,
                    int start, size_t *last_lf, int *inside)
{
    return cut_with(buf, n, delim, start, last_lf, inside, masks_sse2,
                    prefix_xor_shift);
}

CSV_TARGET("avx2,pclmul")
static int cut_avx2(const unsigned char *buf, size_t n, unsigned char delim,
                    int start, size_t *last_lf, int *inside)
{
    return cut_with(buf, n, delim, start, last_lf, inside, masks_avx2,
                    prefix_xor_clmul);
}

static int scan_sse2(csv_simd_index *ix, const unsigned char *buf, size_t n,
                     unsigned char delim)
{
    return scan_with(ix, buf, n, delim, masks_sse2, prefix_xor_shift);
}

CSV_TARGET("avx2,pclmul,popcnt,bmi")
static int scan_avx2(csv_simd_index *ix, const unsigned char *buf, size_t n,
                     unsigned char delim)
{
    return scan_with(ix, buf, n, delim, masks_avx2, prefix_xor_clmul);
}
#endif

/* -1: what the CPU has; else the kernel a test asked for. */
static int forced = -1;

void csv_simd_force(int kernel)
{
    forced = kernel;
}

static int kernel_here(void)
{
#ifdef CSV_SIMD_X86
    int best =
        __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul") ? 0
                                                                           : 1;
    return forced > best ? forced : best;
#else
    return 2;
#endif
}

const char *csv_simd_kernel(void)
{
    static const char *const name[] = {"avx2", "sse2", "scalar"};
    return name[kernel_here()];
}

int csv_simd_init(csv_simd_index *ix, size_t max_bytes)
{
    /* a field end per byte at most, and a step's worth past the last */
    ix->cap = max_bytes + 64;
    ix->n = ix->lines = 0;
    ix->quoted = ix->inner_lf = ix->doubled = 0;
    ix->end = malloc(ix->cap * sizeof *ix->end);
    return ix->end ? 0 : -1;
}

void csv_simd_free(csv_simd_index *ix)
{
    free(ix->end);
    ix->end = NULL;
}

int csv_simd_scan(csv_simd_index *ix, const char *buf, size_t n,
                  unsigned char delim)
{
    if (n == 0 || n + 64 > ix->cap || buf[n - 1] != '\n' || delim == '"' ||
        delim == '\r' || delim == '\n')
        return 0;
    const unsigned char *u = (const unsigned char *)buf;
    switch (kernel_here()) {
#ifdef CSV_SIMD_X86
    case 0:
        return scan_avx2(ix, u, n, delim);
    case 1:
        return scan_sse2(ix, u, n, delim);
#endif
    default:
        return scan_scalar(ix, u, n, delim);
    }
}

int csv_simd_cut(const char *buf, size_t n, unsigned char delim, int start,
                 size_t *last_lf, int *inside)
{
    if (delim == '"' || delim == '\r' || delim == '\n')
        return 0;
    const unsigned char *u = (const unsigned char *)buf;
    switch (kernel_here()) {
#ifdef CSV_SIMD_X86
    case 0:
        return cut_avx2(u, n, delim, start, last_lf, inside);
    case 1:
        return cut_sse2(u, n, delim, start, last_lf, inside);
#endif
    default:
        return cut_scalar(u, n, delim, start, last_lf, inside);
    }
}
