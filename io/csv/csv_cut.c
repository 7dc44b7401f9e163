/* Record boundaries in CSV text without tokenizing it: cutting a stream
 * into blocks, and finding the line a record starts on. The rules are
 * io/csv/csv_grammar.h's, libcsv's, so a boundary found here is one libcsv
 * sees too. */
#include "io/csv/csv_reader.h"

#include <stdio.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "io/csv/csv_grammar.h"
#include "io/csv/csv_simd.h"

/* The grammar's states under the names this file uses. */
enum scan_state {
    S_ROW = CSV_G_ROW,
    S_FNB = CSV_G_FNB,
    S_UNQ = CSV_G_UNQ,
    S_QUO = CSV_G_QUO,
    S_MHE = CSV_G_MHE,
    S_MHS = CSV_G_MHS
};

_Static_assert(CSV_NSTATES == CSV_G_NSTATES, "a summary holds every state");

typedef csv_g_bytes scanner;

static void scanner_init(scanner *s, char delim)
{
    csv_g_bytes_init(s, (unsigned char)(delim ? delim : ','), 1);
}

/* The step from state s on byte ch. */
static unsigned step_of(const scanner *sc, unsigned char ch, int s)
{
    return csv_g_take(sc->col[ch], (unsigned)s);
}

static int next_of(const scanner *sc, unsigned char ch, int s)
{
    return (int)csv_g_next(step_of(sc, ch, s));
}

/* LFs in at most 255 * 16 bytes: byte-wide counters that cannot wrap, which
 * the compiler turns into vector compares. */
static uint64_t count_block(const char *buf, size_t m)
{
    unsigned char acc[16] = {0};
    uint64_t k = 0;
    size_t j = 0;
    for (; j + 16 <= m; j += 16)
        for (int l = 0; l < 16; l++)
            acc[l] += buf[j + l] == '\n';
    for (int l = 0; l < 16; l++)
        k += acc[l];
    for (; j < m; j++)
        k += buf[j] == '\n';
    return k;
}

static uint64_t count_newlines(const char *buf, size_t n)
{
    uint64_t k = 0;
    for (size_t i = 0; i < n; i += 255 * 16)
        k += count_block(buf + i, n - i < 255 * 16 ? n - i : 255 * 16);
    return k;
}

/* Whether buf[0, n) holds no quote, and then its LFs in *k: the one pass
 * of the reading thread over a quote-free block, where memchr and
 * count_newlines made two (the cut was a third of that thread's time over
 * 16 GB, and that thread bounds the CPU backend there). SSE2, which every
 * x86-64 has: byte counters that cannot wrap in 255 steps. */
static int unquoted_newlines(const char *buf, size_t n, uint64_t *k)
{
    *k = 0;
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i lf = _mm_set1_epi8('\n'), qt = _mm_set1_epi8('"');
    while (n - i >= 16) {
        size_t steps = (n - i) / 16 < 255 ? (n - i) / 16 : 255;
        __m128i acc = _mm_setzero_si128(), quote = _mm_setzero_si128();
        for (size_t t = 0; t < steps; t++, i += 16) {
            __m128i v =
                _mm_loadu_si128((const __m128i *)(const void *)(buf + i));
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, lf));
            quote = _mm_or_si128(quote, _mm_cmpeq_epi8(v, qt));
        }
        if (_mm_movemask_epi8(quote))
            return 0;
        __m128i sums = _mm_sad_epu8(acc, _mm_setzero_si128());
        *k += (uint64_t)_mm_cvtsi128_si64(sums) +
              (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums));
    }
#endif
    for (; i < n; i++) {
        if (buf[i] == '"')
            return 0;
        *k += buf[i] == '\n';
    }
    return 1;
}

static int cutter_state(const csv_cutter *c)
{
    if (c->in_quotes)
        return S_QUO;
    if (c->quote_pending)
        return c->quote_pending == 2 ? S_MHS : S_MHE;
    return c->at_field_start ? S_FNB : S_UNQ;
}

static void set_cutter_state(csv_cutter *c, int s)
{
    c->in_quotes = s == S_QUO;
    c->at_field_start = s == S_ROW || s == S_FNB;
    c->quote_pending = s == S_MHE ? 1 : s == S_MHS ? 2 : 0;
}

void csv_cutter_init(csv_cutter *c, const csv_dialect *d, uint64_t first_line)
{
    memset(c, 0, sizeof *c);
    c->delim = d->delim ? d->delim : ',';
    c->plain = d->whitespace;
    c->at_field_start = 1;
    c->line = first_line;
    c->max_record = csv_max_record(d);
}

size_t csv_max_record(const csv_dialect *d)
{
    return d->max_record ? d->max_record : CSV_MAX_RECORD;
}

void csv_size_text(size_t n, char *buf, size_t cap)
{
    if (n % ((size_t)1 << 20) == 0)
        snprintf(buf, cap, "%zu MiB", n >> 20);
    else
        snprintf(buf, cap, "%zu bytes", n);
}

/* The bytes after the last cut are the start of a record the feed must
 * hold whole: more of them than the limit is a record too long. */
static size_t too_long(const csv_cutter *c, const char *file, cs_error *e)
{
    char lim[32];
    csv_size_text(c->max_record, lim, sizeof lim);
    cs_fail(e, CS_EDATA, file, c->line,
            "a record longer than %s (the longest record colstat reads)", lim);
    return (size_t)-1;
}

/* Scans buf[from, n) from state *st. Returns the offset just after the last
 * LF outside quotes (0 when none; *last_cr: the same for CR); *st is the
 * state at n and *open_at the offset of the quote that opened the current
 * quoted field. */
static size_t scan(const scanner *sc, const char *buf, size_t from, size_t n,
                   int *st, size_t *open_at, size_t *last_cr)
{
    size_t last = 0;
    int s = *st;
    for (size_t i = from; i < n; i++) {
        if (s == S_QUO) {
            /* Inside quotes only a quote matters: skip to it. */
            const char *q = memchr(buf + i, '"', n - i);
            if (!q)
                break;
            i = (size_t)(q - buf);
        }
        unsigned char ch = (unsigned char)buf[i];
        unsigned x = step_of(sc, ch, s);
        unsigned acts = csv_g_acts(x);
        if (acts & CSV_GA_OPEN)
            *open_at = i;
        else if (ch == CSV_G_LF && (acts & CSV_GA_END))
            last = i + 1;
        else if (ch == CSV_G_CR && (acts & CSV_GA_END))
            *last_cr = i + 1;
        s = (int)csv_g_next(x);
    }
    *st = s;
    return last;
}

static int open_quote_error(const csv_cutter *c, const char *buf,
                            size_t open_at, const char *file, cs_error *e)
{
    uint64_t line = c->line + count_newlines(buf, open_at);
    return cs_fail(e, CS_EDATA, file, line,
                   "unterminated quoted field (the quote opens here)");
}

/* Whitespace text: every LF ends a record (a CR is a blank there). */
static size_t plain_cut(csv_cutter *c, const char *buf, size_t n, int at_eof)
{
    const char *nl = memrchr(buf, '\n', n);
    size_t cut = at_eof ? n : nl ? (size_t)(nl - buf) + 1 : 0;
    c->line += count_newlines(buf, cut);
    return cut;
}

/* The quoted case 64 bytes at a time (csv_simd_cut), where the parity of
 * quotes reads the bytes as the grammar does. Not at the end: the cut
 * after the last LF outside quotes (*cut), the cutter moved on. At the end:
 * the grammar steps only the bytes after that LF (*from, *s), for the
 * state there and an open quote's place. Returns 1 when *cut is the
 * answer, 2 when the grammar must step from *cut in state *s, 0 when it
 * must step it all. */
static int simd_cut(csv_cutter *c, const char *buf, size_t n, int at_eof,
                    int *s, size_t *cut)
{
    size_t last;
    int inside;
    int start = *s == S_QUO                  ? CSV_SIMD_QUOTED
                : *s == S_UNQ                ? CSV_SIMD_UNQUOTED
                : *s == S_ROW || *s == S_FNB ? CSV_SIMD_FIELD
                                             : -1;
    if (start < 0 ||
        !csv_simd_cut(buf, n, (unsigned char)c->delim, start, &last, &inside))
        return 0;
    if (at_eof) {
        if (last)
            *s = S_ROW;
        *cut = last;
        return 2;
    }
    if (last) {
        c->line += count_newlines(buf, last);
        set_cutter_state(c, S_ROW);
    }
    *cut = last;
    return 1;
}

static size_t cut_any(csv_cutter *c, const char *buf, size_t n, int at_eof,
                      const char *file, cs_error *e)
{
    if (c->plain)
        return plain_cut(c, buf, n, at_eof);
    int s = cutter_state(c);
    size_t open_at = 0, last_cr = 0, cut;
    uint64_t lfs;
    if (s != S_QUO && s != S_MHE && s != S_MHS &&
        unquoted_newlines(buf, n, &lfs)) {
        /* No quote: every LF or CR ends a record; the LFs before the cut
           are all of them (none follows the last, which the cut follows) */
        const char *nl = memrchr(buf, '\n', n);
        size_t lf = nl ? (size_t)(nl - buf) + 1 : 0;
        const char *cr = memrchr(buf + lf, '\r', n - lf);
        cut = at_eof ? n : cr ? (size_t)(cr - buf) + 1 : lf;
        if (cut) {
            c->line += lfs;
            set_cutter_state(c, S_ROW);
        }
        return cut;
    }
    const char *q = memchr(buf, '"', n);
    scanner sc;
    scanner_init(&sc, c->delim);
    size_t from = 0;
    int simd = simd_cut(c, buf, n, at_eof, &s, &from);
    if (simd == 1)
        return from;
    if (simd == 0 && (s == S_ROW || s == S_FNB || s == S_UNQ)) {
        /* Before the first quote the state only resets at LFs. */
        const char *nl = memrchr(buf, '\n', (size_t)(q - buf));
        from = nl ? (size_t)(nl - buf) + 1 : 0;
        if (nl)
            s = S_ROW;
    }
    cut = scan(&sc, buf, from, n, &s, &open_at, &last_cr);
    if (at_eof) {
        if (s == S_QUO) {
            open_quote_error(c, buf, open_at, file, e);
            return (size_t)-1;
        }
        c->line += count_newlines(buf, n);
        set_cutter_state(c, s);
        return n;
    }
    if (from > cut)
        cut = from;
    if (last_cr > cut)
        cut = last_cr;
    if (cut) {
        c->line += count_newlines(buf, cut);
        set_cutter_state(c, S_ROW);
    }
    return cut;
}

size_t csv_cut(csv_cutter *c, const char *buf, size_t n, int at_eof,
               const char *file, cs_error *e)
{
    size_t cut = cut_any(c, buf, n, at_eof, file, e);
    if (cut != (size_t)-1 && !at_eof && n - cut > c->max_record)
        return too_long(c, file, e);
    return cut;
}

size_t csv_repeat_at(const csv_dialect *d, const char *s, size_t n)
{
    if (!d->repeat)
        return 0;
    const char *nl = memchr(s, '\n', n);
    const char *e = nl ? nl : s + n;
    size_t len = (size_t)(e - s) - (e > s && e[-1] == '\r');
    const char *t = s;
    if (len >= 3 && memcmp(t, "\xEF\xBB\xBF", 3) == 0) {
        t += 3;
        len -= 3;
    }
    if (len != d->repeat_len || memcmp(t, d->repeat, len) != 0)
        return 0;
    return (size_t)(e - s) + (nl != NULL);
}

/* Whitespace text: the row-th line that is neither blank nor a repeated
 * header. */
static uint64_t plain_line_of_row(const csv_dialect *d, const char *buf,
                                  size_t n, uint64_t first_line, uint64_t row)
{
    uint64_t line = first_line, seen = 0;
    int blank = 1;
    for (size_t i = 0; i < n; i++) {
        char ch = buf[i];
        if (blank && (i == 0 || buf[i - 1] == '\n')) {
            size_t skip = csv_repeat_at(d, buf + i, n - i);
            if (skip) {
                line += buf[i + skip - 1] == '\n';
                i += skip - 1;
                continue;
            }
        }
        if (ch == '\n') {
            line++;
            blank = 1;
        } else if (blank && ch != ' ' && ch != '\t' && ch != '\r') {
            blank = 0;
            if (++seen == row)
                return line;
        }
    }
    return 0;
}

uint64_t csv_line_of_row(const csv_dialect *d, const char *buf, size_t n,
                         uint64_t first_line, uint64_t row)
{
    if (d->whitespace)
        return plain_line_of_row(d, buf, n, first_line, row);
    scanner sc;
    scanner_init(&sc, d->delim);
    uint64_t line = first_line, seen = 0;
    int s = S_ROW;
    for (size_t i = 0; i < n; i++) {
        size_t skip = d->repeat && s == S_ROW && (i == 0 || buf[i - 1] == '\n')
                          ? csv_repeat_at(d, buf + i, n - i)
                          : 0;
        if (skip) {
            line += buf[i + skip - 1] == '\n';
            i += skip - 1;
            continue;
        }
        unsigned char ch = (unsigned char)buf[i];
        int t = next_of(&sc, ch, s);
        if (s == S_ROW && t != S_ROW && ++seen == row)
            return line;
        line += ch == '\n';
        s = t;
    }
    return 0;
}

int csv_start_state(void)
{
    return S_ROW;
}

/* Whitespace text has no quotes: a '"' there is an ordinary byte. */
static void dialect_scanner(scanner *sc, const csv_dialect *d)
{
    csv_g_bytes_init(sc, (unsigned char)(d->delim ? d->delim : ','),
                     !d->whitespace);
}

/* Every byte's next states, by state: a byte-wide load a lane, where the
 * packed columns would cost a 64-bit shift a lane. */
typedef struct lanes {
    unsigned char next[256][8];
} lanes;

/* The table, and each lane st[k] at its own start state k. */
static void lanes_init(lanes *l, const csv_dialect *d, unsigned char *st)
{
    scanner sc;
    dialect_scanner(&sc, d);
    for (unsigned c = 0; c < 256; c++)
        for (int k = 0; k < CSV_NSTATES; k++)
            l->next[c][k] = (unsigned char)next_of(&sc, (unsigned char)c, k);
    for (int k = 0; k < CSV_NSTATES; k++)
        st[k] = (unsigned char)k;
}

void csv_summarize(const csv_dialect *d, const char *buf, size_t n,
                   csv_summary *s)
{
    lanes l;
    unsigned char st[CSV_NSTATES];
    lanes_init(&l, d, st);
    /* six lanes at once: the table is small, the bytes are read once */
    for (size_t i = 0; i < n; i++) {
        const unsigned char *next = l.next[(unsigned char)buf[i]];
        for (int k = 0; k < CSV_NSTATES; k++)
            st[k] = next[st[k]];
    }
    memcpy(s->end, st, sizeof st);
    s->lfs = count_newlines(buf, n);
}

size_t csv_common_record(const csv_dialect *d, const char *buf, size_t n)
{
    /* without a quote the parse from inside a quoted field never leaves
       it: nothing to look for (most files, read at memchr's speed) */
    if (!memchr(buf, CSV_G_QUOTE, n))
        return (size_t)-1;
    lanes l;
    unsigned char st[CSV_NSTATES];
    lanes_init(&l, d, st);
    for (size_t i = 0; i < n; i++) {
        const unsigned char *next = l.next[(unsigned char)buf[i]];
        int met = 1;
        for (int k = 0; k < CSV_NSTATES; k++) {
            st[k] = next[st[k]];
            met &= st[k] == S_ROW;
        }
        if (met)
            return i + 1;
    }
    return (size_t)-1;
}

void csv_summary_then(csv_summary *a, const csv_summary *b)
{
    for (int k = 0; k < CSV_NSTATES; k++)
        a->end[k] = b->end[a->end[k]];
    a->lfs += b->lfs;
}

/* Between records the machine is in S_ROW (blank lines too, which hold no
 * record): the first such place is where the part begins. */
size_t csv_first_record(const csv_dialect *d, const char *buf, size_t n,
                        int state)
{
    scanner sc;
    dialect_scanner(&sc, d);
    int s = state;
    for (size_t i = 0; i < n; i++) {
        if (s == S_ROW)
            return i;
        s = next_of(&sc, (unsigned char)buf[i], s);
    }
    return s == S_ROW ? n : (size_t)-1;
}
