/* The structural index (io/csv/csv_simd.c) against libcsv, the reference
 * tokenizer: random strings of random dialects (delimiter , ; | TAB or
 * space; LF or CRLF; quoted fields with delimiters, line ends and doubled
 * quotes; blank lines; stray quotes, blanks and CRs where the grammar reads
 * laxly). Where the index takes a string, the fields and records read from
 * it (an unquoted field without its blanks, a quoted one between its
 * quotes, doubled quotes halved, blank lines no record) must be libcsv's
 * byte for byte; it must take exactly the strings that the grammar
 * (csv_grammar.h) reads without a lax step, a blank next to a quote, a CR
 * alone or an open quote at the end; and every kernel (AVX2, SSE2, the
 * byte loop) must give the same index. Seed logged; COLSTAT_SEED replays
 * it. */
#include <check.h>
#include <csv.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv/csv_grammar.h"
#include "io/csv/csv_simd.h"
#include "tests/testlib.h"

static uint64_t g_seed;

#define MAXLEN 2048
#define LOGCAP 65536

typedef struct trace {
    char s[LOGCAP];
    size_t n;
} trace;

static void put(trace *t, char kind, const char *text, size_t len)
{
    ck_assert(t->n + len + 4 < LOGCAP);
    t->s[t->n++] = kind;
    memcpy(t->s + t->n, text, len);
    t->n += len;
    t->s[t->n++] = '|';
    t->s[t->n] = 0;
}

static void ref_field(void *text, size_t len, void *data)
{
    put(data, 'F', text, len);
}

static void ref_record(int c, void *data)
{
    (void)c;
    put(data, 'R', "", 0);
}

static void libcsv_trace(const char *s, size_t n, char delim, trace *t)
{
    struct csv_parser p;
    ck_assert_int_eq(csv_init(&p, 0), 0);
    csv_set_delim(&p, (unsigned char)delim);
    ck_assert_uint_eq(csv_parse(&p, s, n, ref_field, ref_record, t), n);
    csv_fini(&p, ref_field, ref_record, t);
    csv_free(&p);
}

static int blank(char c, char delim)
{
    return (c == ' ' || c == '\t') && c != delim;
}

/* The fields and records as the index gives them, read as the CSV reader
 * reads them. */
static void index_trace(const csv_simd_index *ix, const char *s, char delim,
                        trace *t)
{
    size_t at = 0, k = 0;
    int f = 0;
    while (k < ix->n) {
        size_t e = ix->end[k++];
        int last = s[e] != delim;
        size_t b = at, z = e;
        char text[MAXLEN];
        size_t len = 0;
        if (s[b] == '"') {
            for (size_t i = b + 1; i < z - 1; i++) {
                text[len++] = s[i];
                i += s[i] == '"';
            }
        } else {
            while (b < z && blank(s[b], delim))
                b++;
            while (z > b && blank(s[z - 1], delim))
                z--;
            memcpy(text, s + b, z - b);
            len = z - b;
        }
        /* a line of blanks is no record */
        int none = last && f == 0 && s[at] != '"' && b == z;
        if (!none) {
            put(t, 'F', text, len);
            f++;
        }
        if (last) {
            if (!none)
                put(t, 'R', "", 0);
            f = 0;
        }
        at = e + (last && s[e] == '\r' ? 2 : 1);
    }
}

/* Whether the grammar reads s without what the index leaves to libcsv. */
static int grammar_plain(const char *s, size_t n, char delim)
{
    unsigned st = CSV_G_ROW;
    for (size_t i = 0; i < n; i++) {
        unsigned cls =
            csv_g_class((unsigned char)s[i], (unsigned char)delim, 1);
        unsigned x = csv_g_step(st, cls);
        unsigned next = csv_g_next(x);
        if (csv_g_acts(x) & CSV_GA_LAX)
            return 0;
        if (next == CSV_G_MHS)
            return 0; /* a blank after a closing quote */
        if ((csv_g_acts(x) & CSV_GA_OPEN) && i > 0 && blank(s[i - 1], delim))
            return 0; /* a blank before an opening quote */
        if (s[i] == '\r' && st != CSV_G_QUO && (i + 1 == n || s[i + 1] != '\n'))
            return 0; /* a CR alone */
        st = next;
    }
    return st != CSV_G_QUO && st != CSV_G_MHE;
}

static char pick(test_rng *r, const char *from)
{
    return from[rng_below(r, strlen(from))];
}

/* A random string: a well-formed file with some damage, or noise. */
static size_t random_text(test_rng *r, char delim, char *s)
{
    size_t n = 0;
    char noise[] = "\"\"\"x\r\n\n  \t1a.-,;|";
    int damage = (int)rng_below(r, 4) == 0 ? 1 + (int)rng_below(r, 3) : 0;
    if (rng_below(r, 8) == 0) {
        size_t len = rng_below(r, 300);
        for (size_t i = 0; i < len; i++)
            s[n++] = rng_below(r, 6) == 0 ? delim : pick(r, noise);
    } else {
        size_t nrec = rng_below(r, 12);
        const char *crlf = rng_below(r, 3) == 0 ? "\r\n" : "\n";
        for (size_t rec = 0; rec < nrec && n < MAXLEN - 400; rec++) {
            size_t nf = 1 + rng_below(r, 6);
            if (rng_below(r, 10) == 0)
                nf = 0; /* a blank line, maybe with blanks */
            for (size_t b = nf ? 0 : rng_below(r, 3); b > 0; b--)
                s[n++] = ' ';
            for (size_t f = 0; f < nf; f++) {
                if (f)
                    s[n++] = delim;
                size_t len = rng_below(r, 12);
                if (rng_below(r, 3) == 0) {
                    s[n++] = '"';
                    for (size_t i = 0; i < len; i++) {
                        char c = pick(r, "ab1 \t\"\r\n,;|");
                        if (c == '"')
                            s[n++] = '"';
                        s[n++] = rng_below(r, 5) == 0 ? delim : c;
                    }
                    s[n++] = '"';
                } else {
                    for (size_t i = 0; i < len; i++) {
                        char c = pick(r, "1234567890.e- \tab");
                        if (c != delim)
                            s[n++] = c;
                    }
                }
            }
            for (const char *c = crlf; *c; c++)
                s[n++] = *c;
        }
    }
    for (int d = 0; d < damage && n; d++)
        s[rng_below(r, n)] = pick(r, noise);
    if (!n || s[n - 1] != '\n')
        s[n++] = '\n';
    return n;
}

START_TEST(differential)
{
    static const char delims[] = {',', ';', '|', '\t', ' '};
    test_rng r = rng_for(g_seed, 1);
    int iters = test_quick() ? 20000 : 150000, taken = 0, lax = 0;
    static char s[MAXLEN + 64];
    static trace want, got;
    csv_simd_index ix, other;
    ck_assert_int_eq(csv_simd_init(&ix, MAXLEN), 0);
    ck_assert_int_eq(csv_simd_init(&other, MAXLEN), 0);
    for (int it = 0; it < iters; it++) {
        char delim = delims[rng_below(&r, sizeof delims)];
        size_t n = random_text(&r, delim, s);
        csv_simd_force(0);
        int ok = csv_simd_scan(&ix, s, n, (unsigned char)delim);
        int plain = grammar_plain(s, n, delim);
        EXPECT(ok == plain,
               "index %s what the grammar reads %s: '%.*s' "
               "delim '%c' (seed %llu)",
               ok ? "takes" : "refuses", plain ? "plainly" : "laxly", (int)n, s,
               delim, (unsigned long long)g_seed);
        for (int k = 1; k <= 2; k++) {
            csv_simd_force(k);
            int ok2 = csv_simd_scan(&other, s, n, (unsigned char)delim);
            EXPECT(ok2 == ok && (!ok || (other.n == ix.n &&
                                         !memcmp(other.end, ix.end,
                                                 ix.n * sizeof *ix.end))),
                   "kernel %d differs on '%.*s' (seed %llu)", k, (int)n, s,
                   (unsigned long long)g_seed);
        }
        csv_simd_force(-1);
        if (!ok) {
            lax++;
            continue;
        }
        taken++;
        want.n = got.n = 0;
        libcsv_trace(s, n, delim, &want);
        index_trace(&ix, s, delim, &got);
        EXPECT(want.n == got.n && !memcmp(want.s, got.s, want.n),
               "on '%.*s' (delim '%c'): libcsv %s, index %s (seed %llu)",
               (int)n, s, delim, want.s, got.s, (unsigned long long)g_seed);
    }
    /* both sides drawn often enough to mean something */
    ck_assert_int_gt(taken, iters / 3);
    ck_assert_int_gt(lax, iters / 20);
    csv_simd_free(&ix);
    csv_simd_free(&other);
}
END_TEST

/* The grammar from state st over s[0, n): the offset after the last LF
 * that ends a record or a blank line, and the state at n. */
static size_t grammar_cut(const char *s, size_t n, char delim, unsigned *st)
{
    size_t last = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned x = csv_g_step(
            *st, csv_g_class((unsigned char)s[i], (unsigned char)delim, 1));
        if (s[i] == '\n' && (csv_g_acts(x) & CSV_GA_END))
            last = i + 1;
        *st = csv_g_next(x);
    }
    return last;
}

/* The cutter's question (csv_simd_cut) on random bytes cut anywhere, from
 * each state it is asked in: where it answers, the last LF outside quotes
 * and whether the bytes end inside quotes are the grammar's; every kernel
 * answers alike. */
START_TEST(cut_differential)
{
    static const char delims[] = {',', ';', '|', '\t', ' '};
    static const unsigned states[] = {CSV_G_ROW, CSV_G_UNQ, CSV_G_QUO};
    static const int starts[] = {CSV_SIMD_FIELD, CSV_SIMD_UNQUOTED,
                                 CSV_SIMD_QUOTED};
    test_rng r = rng_for(g_seed, 2);
    int iters = test_quick() ? 20000 : 100000, answered = 0;
    static char s[MAXLEN + 64];
    for (int it = 0; it < iters; it++) {
        char delim = delims[rng_below(&r, sizeof delims)];
        size_t n = random_text(&r, delim, s);
        size_t from = rng_below(&r, n + 1),
               to = from + rng_below(&r, n + 1 - from);
        int k = (int)rng_below(&r, 3);
        unsigned st = states[k];
        size_t want = grammar_cut(s + from, to - from, delim, &st);
        size_t got = 0, other = 0;
        int inside = 0, inside2 = 0;
        csv_simd_force(0);
        int ok = csv_simd_cut(s + from, to - from, (unsigned char)delim,
                              starts[k], &got, &inside);
        for (int kern = 1; kern <= 2; kern++) {
            csv_simd_force(kern);
            int ok2 = csv_simd_cut(s + from, to - from, (unsigned char)delim,
                                   starts[k], &other, &inside2);
            EXPECT(ok2 == ok && (!ok || (other == got && inside2 == inside)),
                   "kernel %d differs (seed %llu)", kern,
                   (unsigned long long)g_seed);
        }
        csv_simd_force(-1);
        if (!ok)
            continue;
        answered++;
        EXPECT(got == want && inside == (st == CSV_G_QUO),
               "cut of '%.*s' from state %u: %zu inside %d, grammar %zu "
               "state %u (seed %llu)",
               (int)(to - from), s + from, states[k], got, inside, want, st,
               (unsigned long long)g_seed);
    }
    ck_assert_int_gt(answered, iters / 4);
}
END_TEST

/* Batches across many 64-byte steps: a quoted field's state and a CRLF
 * cut between steps at every offset. */
START_TEST(step_edges)
{
    csv_simd_index ix;
    ck_assert_int_eq(csv_simd_init(&ix, 512), 0);
    for (int k = 0; k <= 2; k++) {
        csv_simd_force(k);
        for (size_t pad = 0; pad < 130; pad++) {
            char s[512];
            size_t n = 0;
            for (size_t i = 0; i < pad; i++)
                s[n++] = 'a';
            memcpy(s + n, ",\"x,\r\n\"\"y\"\r\n", 12);
            n += 12;
            trace want = {.n = 0}, got = {.n = 0};
            ck_assert_int_eq(csv_simd_scan(&ix, s, n, ','), 1);
            libcsv_trace(s, n, ',', &want);
            index_trace(&ix, s, ',', &got);
            ck_assert_str_eq(want.s, got.s);
            s[n - 2] = 'z'; /* text after the closing quote */
            ck_assert_int_eq(csv_simd_scan(&ix, s, n, ','), 0);
            /* a lone CR (or a closing quote) as a step's last byte, the
               next step free of quotes and CRs: still refused, the carry
               read by the step that follows */
            static const char *const last[] = {"\rx,1\n", "\"\"x,1\n"};
            for (int w = 0; w < 2; w++) {
                n = 0;
                for (size_t i = 0; i < pad; i++)
                    s[n++] = 'a';
                memcpy(s + n, last[w], strlen(last[w]));
                n += strlen(last[w]);
                /* whole steps after it, the last ending the text: no
                   step but the carry's next reads the byte after it */
                while (n < 128 || (n + 1) % 64)
                    s[n++] = '1';
                s[n++] = '\n';
                ck_assert_int_eq(csv_simd_scan(&ix, s, n, ','), 0);
            }
        }
    }
    csv_simd_force(-1);
    ck_assert(strlen(csv_simd_kernel()) > 0);
    csv_simd_free(&ix);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("csv_simd");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, differential);
    tcase_add_test(tc, step_edges);
    tcase_add_test(tc, cut_differential);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    g_seed = test_seed("test_csv_simd");
    return run_suite(suite(), CK_FORK_GETENV);
}
