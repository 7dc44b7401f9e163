/* CSV on the device: one segment of raw bytes into column values.
 *
 * A segment's text is the record carried over from the previous segment plus
 * the new bytes, so it starts outside quotes. Which LFs end records is
 * then a matter of quote parity: an LF ends a record when an even number
 * of quotes precede it. Each 64-byte segment is summarised as a two-state
 * transducer (its quote parity, and its LFs seen at even and at odd local
 * parity); composing summaries is associative, so one exclusive scan gives
 * every segment its starting parity, the index of its first record and the
 * quoted LFs before it. This is the speculative-state idea of E. Stehle
 * and H.-A. Jacobsen, "ParPaRaw: Massively Parallel Parsing of
 * Delimiter-Separated Raw Data", PVLDB 13(5), 2020, reduced to the two
 * states RFC 4180 needs.
 *
 * Each record's fields are then found by one thread (record_kernel): a
 * record with no quote, blank or CR is cut at its delimiters, found eight
 * bytes at a time; any other steps the host's grammar (io/csv/csv_grammar.h,
 * libcsv's rules: blanks around unquoted fields dropped, blank lines are no
 * records, doubled quotes inside quotes). Parity and the grammar agree
 * exactly when every quote stands where RFC 4180 puts it; a thread that
 * meets a lax step or a bare CR stops the device at this segment, and the
 * host (libcsv, the reference) parses from its start. Where each field is
 * goes into its value's slot; field_kernel then parses them, a warp's
 * lanes one column's fields of neighbouring records. Parsing each field
 * where its record's walk ended it ran the number parser once per lane,
 * not once per field (the lanes' records differ in their fields' lengths):
 * 0.42 ms of a 16 MiB segment, against 0.11 ms for the two kernels now
 * (H100, ncu; bench/RESULTS.md, issue 25). */
#include "raw.cuh"

#include <cub/cub.cuh>
#include <math.h>

#include "io/csv/csv_grammar.h"
/* every field lies in a segment's buffer, padded past its text */
#define NUM_PADDED_TEXT 1
#include "parse_field.cuh"

namespace
{

constexpr int THREADS = 256;
constexpr int SEG = 64;     /* bytes a segment summary covers */
constexpr int SH_COLS = 64; /* columns counted in shared memory */
constexpr ull PARITY = 1ull << 63;

/* Summary of a segment: bit 63 its quote parity; bits 0-31 the LFs seen
 * at even local parity, bits 32-62 those at odd. */
struct seg_op {
    __device__ __forceinline__ ull operator()(ull a, ull b) const
    {
        ull even = b & 0xffffffffull, odd = (b >> 32) & 0x7fffffffull;
        if (a & PARITY) {
            ull t = even;
            even = odd;
            odd = t;
        }
        return ((a ^ b) & PARITY) + (a & ~PARITY) + (odd << 32) + even;
    }
};

__device__ __forceinline__ void stop_here(raw_state *st, int why)
{
    atomicCAS(&st->stop_now, 0, why);
}

/* Copies the carried record in front of the new bytes; resets the segment's
 * fields of the state. */
__global__ void stitch_kernel(csv_args a)
{
    raw_state *st = a.st;
    if (st->stop)
        return;
    unsigned len = st->carry_len;
    char *dst = a.buf + a.carry - len;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < len;
         i += gridDim.x * blockDim.x)
        dst[i] = a.carry_buf[i];
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        st->text_start = a.carry - len;
        st->text_len = len + a.n;
        st->nrec = 0;
        st->end_off = 0;
        st->first_blank = ~0u;
        st->nonblank_end = 0;
        st->stop_now = 0;
        st->hard_at = st->hard_n;
        st->repeats_segment = 0;
        st->repeat_line_segment = ~0ull;
    }
}

/* 0x80 in each byte of v equal to the byte in c8 (all eight the same),
 * exact: no carry crosses a byte. */
__device__ __forceinline__ ull bytes_equal(ull v, ull c8)
{
    ull x = v ^ c8;
    ull y = (x & 0x7f7f7f7f7f7f7f7full) + 0x7f7f7f7f7f7f7f7full;
    return ~(y | x | 0x7f7f7f7f7f7f7f7full);
}

constexpr ull ONES = 0x0101010101010101ull;
constexpr ull HIGHS = 0x8080808080808080ull;

/* The bytes of segment s: 64 bytes from a 64-byte aligned offset, as
 * eight words, the first byte in the low bits. */
__device__ __forceinline__ void load_seg(const char *buf, unsigned at,
                                         ull w[SEG / 8])
{
    const uint4 *p = reinterpret_cast<const uint4 *>(buf + at);
#pragma unroll
    for (int k = 0; k < SEG / 16; k++) {
        uint4 v = p[k];
        w[2 * k] = v.x | (ull)v.y << 32;
        w[2 * k + 1] = v.z | (ull)v.w << 32;
    }
}

/* Word k's bytes that lie in the text [lo, hi) (the word at offset
 * off): their high bits. */
__device__ __forceinline__ ull in_text(unsigned off, unsigned lo, unsigned hi)
{
    ull m = HIGHS;
    if (off < lo)
        m = lo - off >= 8 ? 0 : m << 8 * (lo - off);
    if (hi - off < 8 || off >= hi)
        m &= off >= hi ? 0 : (1ull << 8 * (hi - off)) - 1;
    return m;
}

/* Quote parity after each byte of a word, inside quotes or not (the high
 * bit of each byte; a prefix XOR of the quotes' bits), from the parity
 * before it. */
__device__ __forceinline__ ull quoted_after(ull q, unsigned p)
{
    q ^= q << 8;
    q ^= q << 16;
    q ^= q << 32;
    return p ? q ^ HIGHS : q;
}

__global__ void seg_kernel(csv_args a, unsigned nseg)
{
    unsigned s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nseg)
        return;
    const raw_state *st = a.st;
    ull sum = 0;
    if (!st->stop) {
        unsigned lo = st->text_start, hi = lo + st->text_len;
        unsigned at = (lo & ~(unsigned)(SEG - 1)) + s * SEG;
        if (at < hi) {
            ull w[SEG / 8];
            load_seg(a.buf, at, w);
            unsigned p = 0, even = 0, odd = 0;
#pragma unroll
            for (int k = 0; k < SEG / 8; k++) {
                ull in = in_text(at + 8 * k, lo, hi);
                ull q = bytes_equal(w[k], ONES * CSV_G_QUOTE) & in;
                ull lf = bytes_equal(w[k], ONES * CSV_G_LF) & in;
                ull par = quoted_after(q, p);
                even += __popcll(lf & ~par);
                odd += __popcll(lf & par);
                p ^= __popcll(q) & 1;
            }
            sum = ((ull)p << 63) + ((ull)odd << 32) + even;
        }
    }
    a.seg[s] = sum;
}

/* Writes where each record ends, and the quoted LFs before it. */
__global__ void split_kernel(csv_args a, unsigned nseg)
{
    unsigned s = blockIdx.x * blockDim.x + threadIdx.x;
    raw_state *st = a.st;
    if (s >= nseg || st->stop)
        return;
    unsigned lo = st->text_start, hi = lo + st->text_len;
    unsigned at = (lo & ~(unsigned)(SEG - 1)) + s * SEG;
    if (at >= hi)
        return;
    ull pre = a.pre[s];
    unsigned p = (unsigned)(pre >> 63);
    unsigned rec = (unsigned)(pre & 0xffffffffull);
    unsigned inlf = (unsigned)((pre >> 32) & 0x7fffffffull);
    ull w[SEG / 8];
    load_seg(a.buf, at, w);
    unsigned last = 0;
#pragma unroll
    for (int k = 0; k < SEG / 8; k++) {
        unsigned off = at + 8 * k;
        ull in = in_text(off, lo, hi);
        ull q = bytes_equal(w[k], ONES * CSV_G_QUOTE) & in;
        ull lf_all = bytes_equal(w[k], ONES * CSV_G_LF);
        ull lf = lf_all & in;
        ull par = quoted_after(q, p);
        p ^= __popcll(q) & 1;
        for (; lf; lf &= lf - 1) {
            ull bit = lf & (0 - lf);
            if (par & bit) {
                inlf++;
            } else {
                unsigned at_lf =
                    off + ((unsigned)(__ffsll((long long)bit) - 1) >> 3);
                a.rec_end[rec] = at_lf - lo;
                a.rec_inlf[rec] = inlf;
                rec++;
                last = at_lf - lo + 1;
            }
        }
        /* a CR outside quotes not followed by an LF; the next byte is in
           this word but for the last */
        ull cr = bytes_equal(w[k], ONES * CSV_G_CR) & in & ~par;
        for (cr &= ~(lf_all >> 8); cr; cr &= cr - 1) {
            unsigned o = off + ((unsigned)(__ffsll((long long)cr) - 1) >> 3);
            if (o + 1 < hi && a.buf[o + 1] != CSV_G_LF)
                stop_here(st, RAW_BARE_CR);
        }
    }
    if (last) {
        atomicMax(&st->nrec, rec);
        atomicMax(&st->end_off, last);
    }
}

/* Lists field [s, e) of column c, record rec, for the host to round. */
__device__ void list_hard(const csv_args &a, int c, const char *s,
                          const char *e, unsigned rec)
{
    unsigned len = (unsigned)(e - s);
    unsigned i = atomicAdd(&a.st->hard_n, 1u);
    if (len > HARD_TEXT || i >= HARD_CAP) {
        stop_here(a.st, RAW_HARD_NUMBER);
        return;
    }
    hard_entry *h = &a.hard[i];
    h->row = rec;
    h->col = (unsigned)c;
    h->len = len;
    for (unsigned k = 0; k < len; k++)
        h->text[k] = s[k];
}

struct counters {
    ull *sh; /* [SH_COLS][CNT_N] in shared memory */
    ull *g;  /* [ncols][CNT_N] global, this row_batch */
};

__device__ __forceinline__ ull *counter(const counters &k, int c, int what)
{
    return c < SH_COLS ? &k.sh[c * CNT_N + what] : &k.g[c * CNT_N + what];
}

/* Where a field is, from the record kernel to the field kernel, in the
 * field's own slot of the value buffer (a.col, read as bits): its offset
 * in the segment's text (bits 0-31), its length (bits 32-62), whether a
 * doubled quote is in it (bit 63); FIELD_ABSENT when the record has no
 * such field. The field kernel overwrites it with the value. */
constexpr ull FIELD_ESCAPED = 1ull << 63;
constexpr ull FIELD_ABSENT = ~0ull;
constexpr unsigned FIELD_LEN_MAX = 0x7ffffffeu;

/* Column c's field [s, e) of record rec parsed into its value (and
 * correction); what did not enter counted. line0: the segment's first
 * line, for the line of an invalid field. */
__device__ void field_done(const csv_args &a, const counters &k, int c,
                           const char *s, const char *e, bool escaped,
                           bool plain, unsigned rec, ull line0)
{
    double v = NAN;
    int r = 0;
    /* a doubled quote leaves a quote in the text: never a number, nor a
       null spelling (those hold no quote); plain: num_short8 may read the
       format's numbers */
    int kind = escaped ? NUM_INVALID
               : a.kinds && a.kinds[c]
                   ? dev_parse_kind(s, e, a.num, a.kinds[c], &v, &r)
               : plain && dev_short8(s, e, a.num->decimal,
                                     num_short8_exp_plain(a.num->thousands), &v)
                   ? NUM_OK
                   : dev_parse_number_corr(s, e, a.num, &v, &r);
    if (kind == DEV_NUM_HARD && a.nkeys) { /* no group for the host's */
        stop_here(a.st, RAW_HARD_NUMBER);
        return;
    }
    if (kind != NUM_OK)
        v = a.nkeys ? raw_nan(kind) : NAN;
    a.col[(size_t)c * a.ld + rec] = v;
    if (r) { /* rare: the buffer is zero elsewhere */
        a.corr[(size_t)c * a.ld + rec] = r;
        a.corr_on[c] = 1;
    }
    if (kind == NUM_OK)
        return;
    if (kind == DEV_NUM_HARD) {
        list_hard(a, c, s, e, rec);
    } else if (kind == NUM_MISSING) {
        atomicAdd(counter(k, c, CNT_MISSING), 1ull);
    } else if (kind == NUM_NAN) {
        atomicAdd(counter(k, c, CNT_NAN), 1ull);
    } else {
        ull line = line0 + rec + (rec ? a.rec_inlf[rec - 1] : 0);
        atomicAdd(counter(k, c, CNT_INVALID), 1ull);
        atomicMin(counter(k, c, CNT_FIRST_LINE), line);
        /* where it is, for the warning that shows it: blanks around it
           left out, as io/csv/csv_reader.c's csv_show_field does */
        while (s < e && (*s == ' ' || *s == '\t'))
            s++;
        while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        ull off = (ull)(s - (a.buf + a.st->text_start));
        ull len = (ull)(e - s) < 65535 ? (ull)(e - s) : 65535;
        atomicMin(counter(k, c, CNT_FIRST_KEY),
                  off << 17 | (ull)escaped << 16 | len);
        if (c < a.strict)
            stop_here(a.st, RAW_STRICT);
    }
}

/* Field f of record rec (at offset at in the text), [b, e) from the
 * record's start: where its text is, into its column's slot (FIELD_*),
 * and where a key's is. */
__device__ __forceinline__ void put_field(const csv_args &a, int f, unsigned b,
                                          unsigned e, bool quoted, bool escaped,
                                          unsigned at, unsigned rec)
{
    if (a.nkeys && f < a.nkmap && a.kmap[f] >= 0) {
        size_t i = (size_t)rec * (size_t)a.nkeys + (size_t)a.kmap[f];
        a.key_at[i] = at + b;
        a.key_len[i] =
            (e - b) | (quoted ? KEY_QUOTED : 0u) | (escaped ? KEY_ESCAPED : 0u);
    }
    if (f >= a.nmap || a.map[f] < 0 || rec >= a.ld)
        return;
    if (e - b > FIELD_LEN_MAX) { /* no slot holds it: the host's */
        stop_here(a.st, RAW_HARD_NUMBER);
        return;
    }
    reinterpret_cast<ull *>(a.col)[(size_t)a.map[f] * a.ld + rec] =
        (ull)(at + b) | (ull)(e - b) << 32 | (escaped ? FIELD_ESCAPED : 0);
}

/* The field that ends at offset p in grammar state st. */
__device__ __forceinline__ void end_field(const csv_args &a, int f, unsigned st,
                                          unsigned fs, unsigned qe, unsigned p,
                                          unsigned at, bool escaped,
                                          unsigned rec)
{
    bool quoted = st == CSV_G_MHE || st == CSV_G_MHS;
    /* else nothing since the delimiter, or the record's start */
    unsigned b = st == CSV_G_UNQ || quoted ? fs : p;
    unsigned e = quoted ? qe : p;
    put_field(a, f, b, e, quoted, quoted && escaped, at, rec);
}

/* The fields past the record's last: absent. */
__device__ __forceinline__ void absent_fields(const csv_args &a, int f,
                                              unsigned rec)
{
    if (rec < a.ld)
        for (; f < a.nmap; f++)
            if (a.map[f] >= 0)
                reinterpret_cast<ull *>(a.col)[(size_t)a.map[f] * a.ld + rec] =
                    FIELD_ABSENT;
}

/* Record rec's keys absent until its fields say otherwise: once, before
 * split_plain and, where it gives up, parse_record. */
__device__ void absent_keys(const csv_args &a, unsigned rec)
{
    for (int i = 0; i < a.nkeys; i++)
        a.key_len[(size_t)rec * (size_t)a.nkeys + (size_t)i] = KEY_ABSENT;
}

/* Record rec, [s, e) at offset at of the text, when no byte of it is a
 * quote, a blank or a CR: the grammar then only cuts it at delimiters,
 * and no blank is left out, so the delimiters found eight bytes at a
 * time (exact byte masks) are its fields. Returns 1, or -2 when a byte
 * of those is in it (the grammar's walk must read it). delim8: the
 * delimiter in each byte; the delimiter is none of those bytes. */
__device__ int split_plain(const csv_args &a, const char *s, const char *e,
                           unsigned at, unsigned rec, ull delim8)
{
    if (s == e)
        return -2; /* blank: the walk says so */
    int f = 0;
    unsigned fs = 0;
    const char *w = reinterpret_cast<const char *>((size_t)s & ~(size_t)7);
    for (; w < e; w += 8) {
        ull v = *reinterpret_cast<const ull *>(w); /* the padding holds it */
        ull in = ~0ull;
        if (w < s)
            in <<= 8 * (unsigned)(s - w);
        if (e - w < 8)
            in &= (1ull << (8 * (unsigned)(e - w))) - 1;
        in &= HIGHS;
        ull odd = bytes_equal(v, ONES * CSV_G_QUOTE) |
                  bytes_equal(v, ONES * CSV_G_CR) | bytes_equal(v, ONES * ' ') |
                  bytes_equal(v, ONES * '\t');
        if (odd & in)
            return -2;
        for (ull d = bytes_equal(v, delim8) & in; d; d &= d - 1) {
            unsigned p = (unsigned)(w - s) +
                         ((unsigned)(__ffsll((long long)d) - 1) >> 3);
            put_field(a, f++, fs, p, false, false, at, rec);
            fs = p + 1;
        }
    }
    put_field(a, f++, fs, (unsigned)(e - s), false, false, at, rec);
    absent_fields(a, f, rec);
    return 1;
}

/* A record's bytes read 16 at a time: aligned loads, which the buffer's
 * padding keeps inside it, one for every 16 bytes, not one a byte. */
struct bytes16 {
    const char *at;
    uint4 w;
};

__device__ __forceinline__ unsigned byte_at(bytes16 &c, const char *p)
{
    const char *blk = reinterpret_cast<const char *>((size_t)p & ~(size_t)15);
    if (blk != c.at) {
        c.at = blk;
        c.w = *reinterpret_cast<const uint4 *>(blk);
    }
    unsigned k = (unsigned)(p - blk);
    unsigned w = k < 8 ? (k < 4 ? c.w.x : c.w.y) : (k < 12 ? c.w.z : c.w.w);
    return (w >> (8 * (k & 3))) & 0xffu;
}

/* Finds the fields of record rec, [s, e) at offset at of the text with
 * its LF (and a CR before it) left out, stepping the grammar
 * (io/csv/csv_grammar.h) through gram, every byte's column of its table.
 * Returns 0 for a blank record, 1 for a row, -1 when the quotes or a CR
 * break the rules parity relies on: a lax step, a line end inside the
 * record, or a quoted field open at its end. Field starts and quotes are
 * offsets from s: fewer registers than pointers. The numbers are parsed
 * after, by field_kernel (why: the top of this file). */
__device__ int parse_record(const csv_args &a, const ull *gram, const char *s,
                            const char *e, unsigned at, unsigned rec)
{
    unsigned st = CSV_G_ROW;
    int f = 0;
    bool escaped = false;
    unsigned fs = 0, qe = 0;
    bytes16 in{nullptr, make_uint4(0, 0, 0, 0)};
    for (const char *p = s;; p++) {
        unsigned x;
        if (p < e)
            x = csv_g_take(gram[byte_at(in, p)], st);
        else if (st == CSV_G_ROW || st == CSV_G_QUO)
            return st == CSV_G_ROW ? 0 : -1;
        else
            x = CSV_GA_FIELD << 3; /* the record's end ends its last field */
        unsigned acts = csv_g_acts(x);
        if (acts & (CSV_GA_LAX | CSV_GA_END))
            return -1;
        if (acts & CSV_GA_START) {
            fs = (unsigned)(p - s) + ((acts & CSV_GA_OPEN) != 0);
            escaped = false;
        }
        if (acts & CSV_GA_QUOTE)
            qe = (unsigned)(p - s);
        escaped |= (acts & CSV_GA_LITERAL) != 0;
        if (acts & CSV_GA_FIELD)
            end_field(a, f++, st, fs, qe, (unsigned)(p - s), at, escaped, rec);
        if (p == e)
            break;
        st = csv_g_next(x);
    }
    absent_fields(a, f, rec);
    return 1;
}

/* Whether record [s, e) (its CR and LF left out) repeats the header, as
 * io/csv/csv_cut.c's csv_repeat_at decides on the host. */
__device__ bool repeats_header(const csv_args &a, const char *s, const char *e)
{
    unsigned n = (unsigned)(e - s);
    if (n == a.repeat_len + 3 && (unsigned char)s[0] == 0xEF &&
        (unsigned char)s[1] == 0xBB && (unsigned char)s[2] == 0xBF) {
        s += 3;
        n -= 3;
    }
    if (n != a.repeat_len)
        return false;
    for (unsigned i = 0; i < n; i++)
        if (s[i] != a.repeat[i])
            return false;
    return true;
}

__global__ void __launch_bounds__(THREADS) record_kernel(csv_args a)
{
    /* the grammar's step for each byte in one shared load, no compares and
       no 64-bit constants held in registers */
    __shared__ ull gram[256];
    raw_state *st = a.st;
    if (st->stop)
        return;
    for (int i = threadIdx.x; i < 256; i += THREADS)
        gram[i] = csv_g_column(
            csv_g_class((unsigned char)i, (unsigned char)a.delim, 1));
    __syncthreads();
    const char *text = a.buf + st->text_start;
    unsigned nrec = st->nrec;
    ull line0 = st->line_base;
    unsigned char d = (unsigned char)a.delim;
    bool plain = d != CSV_G_QUOTE && d != CSV_G_CR && d != CSV_G_LF &&
                 d != ' ' && d != '\t';
    /* every lane of a warp takes the same turns: one atomic a warp */
    for (unsigned base = blockIdx.x * THREADS; base < nrec;
         base += gridDim.x * THREADS) {
        unsigned r = base + threadIdx.x, end = 0;
        if (r < nrec) {
            unsigned b = r ? a.rec_end[r - 1] + 1 : 0, e = a.rec_end[r];
            if (e > b && text[e - 1] == CSV_G_CR)
                e--;
            int got = -2;
            absent_keys(a, r);
            if (a.repeat && repeats_header(a, text + b, text + e)) {
                got = 0; /* no row: the rows after it move up, as after a
                            blank */
                atomicAdd(&st->repeats_segment, 1u);
                atomicMin(&st->repeat_line_segment,
                          line0 + r + (r ? a.rec_inlf[r - 1] : 0));
            } else if (plain) {
                got = split_plain(a, text + b, text + e, b, r, ONES * d);
            }
            if (got == -2)
                got = parse_record(a, gram, text + b, text + e, b, r);
            a.row_flag[r] = got > 0;
            if (got < 0)
                stop_here(st, RAW_STRAY_QUOTE);
            else if (got == 0)
                atomicMin(&st->first_blank, r);
            else
                end = r + 1;
        }
        end = __reduce_max_sync(0xffffffffu, end);
        if ((threadIdx.x & 31) == 0 && end)
            atomicMax(&st->nonblank_end, end);
    }
}

/* Each row's fields, column by column: a warp's lanes parse one column's
 * fields of neighbouring records together. Three blocks a multiprocessor
 * (at most 85 registers, a few spilled): 83 us a 16 MiB segment against
 * 97 us with two (H100, ncu). */
__global__ void __launch_bounds__(THREADS, 3) field_kernel(csv_args a)
{
    __shared__ ull sh[SH_COLS * CNT_N];
    __shared__ int going;
    raw_state *st = a.st;
    if (threadIdx.x == 0) /* one answer for the block's barriers */
        going = !st->stop && !st->stop_now;
    int nsh = a.ncols < SH_COLS ? a.ncols : SH_COLS;
    for (int i = threadIdx.x; i < nsh * CNT_N; i += THREADS)
        sh[i] = cnt_takes_min(i) ? ~0ull : 0;
    __syncthreads();
    if (!going)
        return;
    counters k{sh, a.cnt_segment};
    const char *text = a.buf + st->text_start;
    unsigned nrec = st->nrec < a.ld ? st->nrec : (unsigned)a.ld;
    ull line0 = st->line_base;
    const ull *slot = reinterpret_cast<const ull *>(a.col);
    const bool plain =
        num_short8_plain(a.num->decimal, a.num->thousands, a.num->nnull);
    for (int c = blockIdx.y; c < a.ncols; c += gridDim.y)
        for (unsigned r = blockIdx.x * THREADS + threadIdx.x; r < nrec;
             r += gridDim.x * THREADS) {
            if (!a.row_flag[r])
                continue;
            ull bits = slot[(size_t)c * a.ld + r];
            if (bits == FIELD_ABSENT) {
                a.col[(size_t)c * a.ld + r] =
                    a.nkeys ? raw_nan(NUM_MISSING) : NAN;
                atomicAdd(counter(k, c, CNT_MISSING), 1ull);
                continue;
            }
            const char *s = text + (unsigned)bits;
            unsigned len = (unsigned)(bits >> 32) & 0x7fffffffu;
            field_done(a, k, c, s, s + len, (bits & FIELD_ESCAPED) != 0, plain,
                       r, line0);
        }
    __syncthreads();
    for (int i = threadIdx.x; i < nsh * CNT_N; i += THREADS) {
        ull v = sh[i];
        if (cnt_takes_min(i)) {
            if (v != ~0ull)
                atomicMin(&a.cnt_segment[i], v);
        } else if (v) {
            atomicAdd(&a.cnt_segment[i], v);
        }
    }
}

/* Blank lines between records: they are no rows, so the rows after them
 * move up. Whether that is needed is known only on the device; the three
 * kernels below do nothing otherwise. */
__device__ __forceinline__ bool compacting(const csv_args &a)
{
    const raw_state *st = a.st;
    return !st->stop && !st->stop_now && st->first_blank < st->nonblank_end &&
           st->nonblank_end <= a.ld; /* else the segment stops */
}

constexpr int SCAN_THREADS = 1024;

/* One block: the row of every record, a running exclusive sum of the
 * flags, a tile at a time. */
__global__ void __launch_bounds__(SCAN_THREADS) row_scan_kernel(csv_args a)
{
    typedef cub::BlockScan<unsigned, SCAN_THREADS> scan;
    __shared__ typename scan::TempStorage tmp;
    __shared__ unsigned base;
    raw_state *st = a.st;
    if (!compacting(a))
        return;
    unsigned n = st->nonblank_end;
    if (threadIdx.x == 0)
        base = 0;
    __syncthreads();
    for (unsigned t = 0; t < n; t += SCAN_THREADS) {
        unsigned r = t + threadIdx.x;
        unsigned f = r < n ? a.row_flag[r] : 0, before, total;
        scan(tmp).ExclusiveSum(f, before, total);
        if (r < n)
            a.row_of[r] = base + before;
        __syncthreads();
        if (threadIdx.x == 0)
            base += total;
        __syncthreads();
    }
    if (threadIdx.x == 0)
        st->rows = base;
}

/* Values (and corrections, in the columns that have any) of row records
 * to their rows, through second buffers (the moves overlap). */
__global__ void move_kernel(csv_args a)
{
    const raw_state *st = a.st;
    if (!compacting(a))
        return;
    unsigned n = st->nonblank_end;
    for (unsigned r = blockIdx.x * blockDim.x + threadIdx.x; r < n;
         r += gridDim.x * blockDim.x)
        if (a.row_flag[r])
            for (int c = 0; c < a.ncols; c++) {
                size_t to = (size_t)c * a.ld + a.row_of[r];
                size_t from = (size_t)c * a.ld + r;
                a.moved[to] = a.col[from];
                if (a.corr_on[c])
                    a.moved_corr[to] = a.corr[from];
            }
}

/* The rows back; the corrections of the records past them (moved up) back
 * to zero. */
__global__ void move_back_kernel(csv_args a)
{
    const raw_state *st = a.st;
    if (!compacting(a))
        return;
    unsigned rows = st->rows, n = st->nonblank_end;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += gridDim.x * blockDim.x)
        for (int c = 0; c < a.ncols; c++) {
            size_t at = (size_t)c * a.ld + i;
            if (i < rows)
                a.col[at] = a.moved[at];
            if (a.corr_on[c])
                a.corr[at] = i < rows ? a.moved_corr[at] : 0;
        }
}

/* One thread: judges the segment, then either stops the device here or
 * advances rows, lines and bytes past its last whole record. */
__global__ void end_kernel(csv_args a)
{
    raw_state *st = a.st;
    if (st->stop) {
        st->n_row0[0] = 0;
        return;
    }
    ull rows;
    int why = raw_judge(a, &rows);
    unsigned nrec = st->nrec, end = st->end_off, len = st->text_len;
    bool moved = st->first_blank < st->nonblank_end;
    if (why) {
        st->hard_n = st->hard_at; /* the host parses this segment again */
        st->stop = why;
        st->stop_segment = st->segment;
        st->n_row0[0] = 0;
        a.status->stop_segment = st->segment;
        a.status->stop = why;
        st->segment++;
        return;
    }
    st->n_row0[0] = rows;
    st->n_row0[1] = st->row_base;
    for (unsigned i = st->hard_at; i < st->hard_n; i++) {
        ull rec = a.hard[i].row;
        a.hard[i].row = st->row_base + (moved ? a.row_of[rec] : rec);
    }
    st->row_base += rows;
    if (st->repeats_segment && !st->repeats)
        st->repeat_line = st->repeat_line_segment;
    st->repeats += st->repeats_segment;
    st->keep_at = st->arena_used;
    st->arena_used += a.keep ? rows : 0;
    st->consumed += end;
    st->line_base += nrec + (nrec ? a.rec_inlf[nrec - 1] : 0);
    st->carry_len = len - end;
    st->segment++;
    a.status->arena_used = st->arena_used;
    a.status->consumed = st->consumed;
    if (rows > st->segment_rows_max)
        st->segment_rows_max = rows;
    a.status->segment_rows_max = st->segment_rows_max;
    __threadfence_system(); /* the host reads segments_done first */
    a.status->segments_done = st->segment;
}

/* Keeps the new carry and adds the segment's counters to the totals, unless
 * the device stopped at this segment. */
__global__ void commit_kernel(csv_args a)
{
    raw_state *st = a.st;
    if (st->stop)
        return;
    const char *from = a.buf + st->text_start + st->end_off;
    unsigned len = st->carry_len;
    unsigned id = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned stride = gridDim.x * blockDim.x;
    for (unsigned i = id; i < len; i += stride)
        a.carry_buf[i] = from[i];
    for (unsigned i = id; i < (unsigned)a.ncols * CNT_N; i += stride) {
        ull v = a.cnt_segment[i];
        if (i % CNT_N == CNT_FIRST_LINE && v < a.cnt[i]) {
            a.cnt[i] = v; /* the column's first invalid field: value_store */
            unsigned c = i / CNT_N;
            ull key = a.cnt_segment[i + 1];
            const char *f = a.buf + st->text_start + (key >> 17);
            unsigned n = (unsigned)(key & 0xffff);
            for (unsigned b = 0; b < n && b < RAW_FIELD_BYTES; b++)
                a.inv_text[(size_t)c * RAW_FIELD_BYTES + b] = f[b];
            a.inv_len[c] = n | (unsigned)((key >> 16) & 1) << 31;
        } else if (!cnt_takes_min((int)i)) {
            a.cnt[i] += v;
        }
    }
}

/* The corrections are zero where none was written (the reductions leave
 * them so), so each column's copy is whole. */
__global__ void keep_kernel(csv_args a)
{
    const raw_state *st = a.st;
    ull rows = st->n_row0[0], at = st->keep_at;
    const double *src = a.col + (size_t)blockIdx.y * a.ld;
    double *dst = a.arena + (size_t)blockIdx.y * a.arena_ld + at;
    const int *csrc = a.corr + (size_t)blockIdx.y * a.ld;
    int *cdst = a.corr_arena
                    ? a.corr_arena + (size_t)blockIdx.y * a.arena_ld + at
                    : nullptr;
    for (ull i = blockIdx.x * blockDim.x + threadIdx.x; i < rows;
         i += (ull)gridDim.x * blockDim.x) {
        dst[i] = src[i];
        if (cdst)
            cdst[i] = csrc[i];
    }
}

/* This segment's counters: zero, and no first line yet. */
__global__ void reset_kernel(ull *cnt, int ncols)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < ncols * CNT_N;
         i += gridDim.x * blockDim.x)
        cnt[i] = cnt_takes_min(i) ? ~0ull : 0;
}

unsigned seg_count(const csv_args *a)
{
    return (a->carry + a->n + SEG - 1) / SEG + 1;
}

unsigned blocks_for(size_t n)
{
    size_t b = (n + THREADS - 1) / THREADS;
    return b ? (unsigned)(b < 65535 ? b : 65535) : 1;
}

} // namespace

size_t csv_scratch(csv_args *a, void *base)
{
    unsigned nseg = seg_count(a);
    size_t maxrec = (size_t)a->carry + a->n + 1;
    size_t scan = 0;
    cub::DeviceScan::ExclusiveScan(nullptr, scan, (const ull *)nullptr,
                                   (ull *)nullptr, seg_op(), 0ull, (int)nseg);
    size_t at = 0;
    auto take = [&](size_t bytes) {
        size_t here = at;
        at += (bytes + 255) & ~(size_t)255;
        return base ? static_cast<char *>(base) + here : nullptr;
    };
    a->seg = reinterpret_cast<ull *>(take(nseg * sizeof(ull)));
    a->pre = reinterpret_cast<ull *>(take(nseg * sizeof(ull)));
    a->rec_end = reinterpret_cast<unsigned *>(take(maxrec * sizeof(unsigned)));
    a->rec_inlf = reinterpret_cast<unsigned *>(take(maxrec * sizeof(unsigned)));
    a->row_flag = reinterpret_cast<unsigned char *>(take(maxrec));
    a->row_of = reinterpret_cast<unsigned *>(take(maxrec * sizeof(unsigned)));
    a->scan_tmp = take(scan);
    a->scan_bytes = scan;
    return at;
}

cudaError_t csv_parse_launch(const csv_args *a, cudaStream_t s)
{
    unsigned nseg = seg_count(a);
    /* the small per-segment kernels loop over what they find: a grid that
       fills the device once, not one sized for the largest carry */
    unsigned spread = (unsigned)a->nsm * 2;
    reset_kernel<<<spread, THREADS, 0, s>>>(a->cnt_segment, a->ncols);
    stitch_kernel<<<spread, THREADS, 0, s>>>(*a);
    seg_kernel<<<blocks_for(nseg), THREADS, 0, s>>>(*a, nseg);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return e;
    size_t bytes = a->scan_bytes;
    e = cub::DeviceScan::ExclusiveScan(a->scan_tmp, bytes, a->seg, a->pre,
                                       seg_op(), 0ull, (int)nseg, s);
    if (e != cudaSuccess)
        return e;
    split_kernel<<<blocks_for(nseg), THREADS, 0, s>>>(*a, nseg);
    /* records are unknown to the host: enough blocks to fill the device */
    record_kernel<<<spread * 4, THREADS, 0, s>>>(*a);
    /* one column a grid row; enough blocks in all to fill the device */
    unsigned ny = a->ncols < 65535 ? (unsigned)a->ncols : 65535u;
    unsigned nx = spread * 8 / (ny ? ny : 1);
    field_kernel<<<dim3(nx ? nx : 1, ny ? ny : 1), THREADS, 0, s>>>(*a);
    row_scan_kernel<<<1, SCAN_THREADS, 0, s>>>(*a);
    move_kernel<<<spread * 2, THREADS, 0, s>>>(*a);
    move_back_kernel<<<spread * 2, THREADS, 0, s>>>(*a);
    return cudaGetLastError();
}

cudaError_t csv_end_launch(const csv_args *a, cudaStream_t s)
{
    end_kernel<<<1, 1, 0, s>>>(*a);
    commit_kernel<<<(unsigned)a->nsm * 2, THREADS, 0, s>>>(*a);
    return cudaGetLastError();
}

cudaError_t raw_keep_launch(const csv_args *a, cudaStream_t s)
{
    if (!a->keep || !a->arena)
        return cudaSuccess;
    dim3 grid((unsigned)a->nsm * 2, (unsigned)a->ncols);
    keep_kernel<<<grid, THREADS, 0, s>>>(*a);
    return cudaGetLastError();
}
