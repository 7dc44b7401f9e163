/* io/binary/binary_reader: spec parsing (good and bad, sizes and offsets) and
 * decoding of random little-endian records of mixed types. The expected
 * doubles are computed independently of the decoder: bytes are written
 * with shifts (no memcpy, no host byte order), integers are rounded through
 * strtod of their decimal text, floats are rebuilt from sign, exponent and
 * mantissa with ldexp. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/binary/binary_reader.h"

#include "tests/testlib.h"

static uint64_t g_seed;
static int g_quick;

/* splitmix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number
 * generators", OOPSLA 2014). */
static int iters(int n)
{
    return g_quick ? (n + 3) / 4 : n;
}

/* The test's own view of the types: name, size, kind. */
enum kind { SIGNED, UNSIGNED, FLOAT };
static const struct {
    const char *name;
    int size;
    enum kind kind;
} T[] = {
    {"i8", 1, SIGNED},    {"u8", 1, UNSIGNED},  {"i16", 2, SIGNED},
    {"u16", 2, UNSIGNED}, {"i32", 4, SIGNED},   {"u32", 4, UNSIGNED},
    {"i64", 8, SIGNED},   {"u64", 8, UNSIGNED}, {"f32", 4, FLOAT},
    {"f64", 8, FLOAT},
};
#define NT ((int)(sizeof T / sizeof T[0]))

/* A spec as the test built it: per field, an index into T. */
typedef struct layout {
    int n;
    int t[BINARY_MAX_FIELDS];
    char text[8192];
} layout;

static void add_part(layout *l, int t, int count, int with_x)
{
    size_t at = strlen(l->text);
    snprintf(l->text + at, sizeof l->text - at, "%s%s", at ? "," : "",
             T[t].name);
    if (with_x) {
        at = strlen(l->text);
        snprintf(l->text + at, sizeof l->text - at, "x%d", count);
    }
    for (int i = 0; i < count && l->n < BINARY_MAX_FIELDS; i++)
        l->t[l->n++] = t;
}

static void rand_layout(test_rng *r, layout *l, int max_fields)
{
    memset(l, 0, sizeof *l);
    int parts = 1 + (int)rng_below(r, 6);
    for (int p = 0; p < parts && l->n < max_fields; p++) {
        int count = 1 + (int)rng_below(r, rng_below(r, 4) ? 4 : 40);
        if (count > max_fields - l->n)
            count = max_fields - l->n;
        add_part(l, (int)rng_below(r, NT), count, count > 1 || rng_below(r, 2));
    }
}

static void assert_layout(const layout *l, const binary_spec *s)
{
    ck_assert_int_eq(s->nfields, l->n);
    size_t off = 0;
    for (int f = 0; f < l->n; f++) {
        ck_assert_uint_eq(s->offset[f], off);
        off += (size_t)T[l->t[f]].size;
    }
    ck_assert_uint_eq(s->record_size, off);
}

START_TEST(spec_examples)
{
    static const struct {
        const char *text;
        int nfields;
        size_t size;
        unsigned short off[4];
    } ok[] = {
        {"f64", 1, 8, {0}},
        {"f64x3", 3, 24, {0, 8, 16}},
        {"i32,u8,f64", 3, 13, {0, 4, 5}},
        {"u16x2,f32", 3, 8, {0, 2, 4}},
        {"i8x1,u64", 2, 9, {0, 1}},
        {"f32,i16x01", 2, 6, {0, 4}},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        binary_spec s;
        cs_error e;
        memset(&e, 0, sizeof e);
        ck_assert_int_eq(binary_spec_parse(ok[i].text, &s, &e), CS_OK);
        ck_assert_int_eq(e.status, CS_OK);
        ck_assert_int_eq(s.nfields, ok[i].nfields);
        ck_assert_uint_eq(s.record_size, ok[i].size);
        for (int f = 0; f < ok[i].nfields && f < 4; f++)
            ck_assert_uint_eq(s.offset[f], ok[i].off[f]);
    }
    binary_spec s;
    cs_error e;
    memset(&e, 0, sizeof e);
    ck_assert_int_eq(binary_spec_parse("u8x1024", &s, &e), CS_OK);
    ck_assert_int_eq(s.nfields, BINARY_MAX_FIELDS);
    ck_assert_uint_eq(s.record_size, BINARY_MAX_FIELDS);
    ck_assert_int_eq(binary_spec_parse("f64x1023,i8", &s, &e), CS_OK);
    ck_assert_uint_eq(s.offset[1023], 8 * 1023);
}
END_TEST

START_TEST(spec_bad)
{
    static const struct {
        const char *text, *why;
    } bad[] = {
        {"", "empty field"},
        {"f64,", "empty field"},
        {",f64", "empty field"},
        {"f64,,u8", "empty field"},
        {"f65", "unknown type 'f65' (types: i8 u8 i16 u16 i32 u32 i64 u64 "
                "f32 f64)"},
        {"F64", "unknown type 'F64'"},
        {"int32", "unknown type 'int32'"},
        {" f64", "unknown type ' f64'"},
        {"f64 ", "unknown type 'f64 '"},
        {"f64;u8", "unknown type 'f64;u8'"},
        {"i32,u9", "unknown type 'u9'"},
        {"x3", "unknown type ''"},
        {"f64x0", "bad repeat count in 'f64x0'"},
        {"f64x", "bad repeat count in 'f64x'"},
        {"f64xx3", "bad repeat count in 'f64xx3'"},
        {"f64x-1", "bad repeat count in 'f64x-1'"},
        {"f64x+1", "bad repeat count in 'f64x+1'"},
        {"f64x3 ", "bad repeat count in 'f64x3 '"},
        {"u8,f64x2y", "bad repeat count in 'f64x2y'"},
        {"i8x1025", "more than 1024 fields"},
        {"f64x1000,u8x25", "more than 1024 fields"},
        {"u8x1024,u8", "more than 1024 fields"},
        {"f64x99999999999999999999999", "more than 1024 fields"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        binary_spec s;
        cs_error e;
        memset(&e, 0, sizeof e);
        ck_assert_int_eq(binary_spec_parse(bad[i].text, &s, &e), CS_EUSAGE);
        ck_assert_int_eq(e.status, CS_EUSAGE);
        char want[600];
        snprintf(want, sizeof want, "bad binary spec '%s': %s", bad[i].text,
                 bad[i].why);
        ck_assert_msg(strncmp(e.msg, want, strlen(want)) == 0,
                      "spec '%s': got '%s', want '%s'", bad[i].text, e.msg,
                      want);
    }
}
END_TEST

START_TEST(spec_random)
{
    test_rng r = rng_for(g_seed, 1);
    for (int it = 0; it < iters(2000); it++) {
        layout l;
        /* Sometimes past the limit, built as one long text. */
        int over = rng_below(&r, 8) == 0;
        rand_layout(&r, &l, BINARY_MAX_FIELDS);
        int total = l.n;
        if (over) {
            int extra = BINARY_MAX_FIELDS - total + 1 + (int)rng_below(&r, 50);
            add_part(&l, (int)rng_below(&r, NT), extra, 1);
            total += extra;
        }
        binary_spec s;
        cs_error e;
        memset(&e, 0, sizeof e);
        int rc = binary_spec_parse(l.text, &s, &e);
        if (total > BINARY_MAX_FIELDS) {
            ck_assert_int_eq(rc, CS_EUSAGE);
            ck_assert_msg(strstr(e.msg, "more than 1024 fields") != NULL, "%s",
                          e.msg);
        } else {
            ck_assert_msg(rc == CS_OK, "'%s': %s", l.text, e.msg);
            assert_layout(&l, &s);
        }
    }
}
END_TEST

/* ---- decoding ---- */

/* Raw bits of one field value, drawn to hit edges often. */
static uint64_t rand_bits(test_rng *r, int t)
{
    int w = 8 * T[t].size;
    uint64_t mask = w == 64 ? ~0ULL : (1ULL << w) - 1;
    uint64_t v = rng_next(r);
    if (T[t].kind == FLOAT) {
        int mbits = w == 64 ? 52 : 23, ebits = w - 1 - mbits;
        uint64_t emax = (1ULL << ebits) - 1, mmask = (1ULL << mbits) - 1;
        uint64_t sign = (v >> 63) << (w - 1);
        switch (rng_below(r, 8)) {
        case 0: /* NaN, any payload, either sign */
            return sign | (emax << mbits) | (1 + rng_below(r, mmask));
        case 1: /* infinity */
            return sign | (emax << mbits);
        case 2: /* zero or subnormal */
            return sign | (rng_below(r, 2) ? 0 : v & mmask);
        case 3: /* a modest number */
            return sign | ((emax / 2 - 5 + rng_below(r, 40)) << mbits) |
                   (v & mmask);
        default:
            return v & mask;
        }
    }
    switch (rng_below(r, 6)) {
    case 0: /* around the signed extremes: max - 1, max, min, min + 1 */
        return ((mask >> 1) + rng_below(r, 4) - 1) & mask;
    case 1:
        return rng_below(r, 2) ? rng_below(r, 3) : mask - rng_below(r, 3);
    case 2: /* around 2^53, where doubles stop being exact */
        return w == 64 ? (1ULL << 53) - 2 + rng_below(r, 5) : v & mask;
    default:
        return v & mask;
    }
}

/* The double a field's bits stand for, computed without the decoder's
 * conversions. */
static double expect(int t, uint64_t bits, int *is_nan)
{
    int w = 8 * T[t].size;
    *is_nan = 0;
    char text[32];
    if (T[t].kind == UNSIGNED) {
        snprintf(text, sizeof text, "%llu", (unsigned long long)bits);
        return strtod(text, NULL);
    }
    if (T[t].kind == SIGNED) {
        int neg = (bits >> (w - 1)) & 1;
        /* Magnitude of a two's complement value, in unsigned arithmetic. */
        uint64_t mag =
            neg ? ((~bits) & (w == 64 ? ~0ULL : (1ULL << w) - 1)) + 1 : bits;
        snprintf(text, sizeof text, "%s%llu", neg ? "-" : "",
                 (unsigned long long)mag);
        return strtod(text, NULL);
    }
    int mbits = w == 64 ? 52 : 23, ebits = w - 1 - mbits;
    int bias = (1 << (ebits - 1)) - 1;
    uint64_t m = bits & ((1ULL << mbits) - 1);
    int ex = (int)((bits >> mbits) & ((1ULL << ebits) - 1));
    double sign = (bits >> (w - 1)) & 1 ? -1.0 : 1.0;
    if (ex == (1 << ebits) - 1) {
        *is_nan = m != 0;
        return m ? NAN : sign * INFINITY;
    }
    if (ex == 0)
        return sign * ldexp((double)m, 1 - bias - mbits);
    return sign * ldexp((double)(m | (1ULL << mbits)), ex - bias - mbits);
}

__extension__ typedef unsigned __int128 u128;

/* An integral double of at most 2^64 as an integer, from its parts. */
static u128 integer_of(double a)
{
    int e;
    double f = frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
    u128 m = (u128)(uint64_t)ldexp(f, 53);
    return e >= 53 ? m << (e - 53) : m >> (53 - e);
}

/* The correction of an integer field (row_batch.h): its exact value minus the
 * double expect() gives. */
static int64_t expect_corr(int t, uint64_t bits, double d)
{
    int w = 8 * T[t].size;
    if (T[t].kind == FLOAT)
        return 0;
    int neg = T[t].kind == SIGNED && ((bits >> (w - 1)) & 1);
    uint64_t mag =
        neg ? ((~bits) & (w == 64 ? ~0ULL : (1ULL << w) - 1)) + 1 : bits;
    int64_t diff = (int64_t)(uint64_t)((u128)mag - integer_of(fabs(d)));
    return neg ? -diff : diff;
}

static void put_le(unsigned char *p, uint64_t bits, int size)
{
    for (int i = 0; i < size; i++)
        p[i] = (unsigned char)(bits >> (8 * i));
}

static const uint64_t SENTINEL = 0x5a5a5a5a5a5a5a5aULL;

static int is_sentinel(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u == SENTINEL;
}

/* Encodes nrec random records of layout l, decodes them into a row batch in a
 * few calls with map, and compares every value and NaN count. */
static void check_decode(test_rng *r, const layout *l, size_t nrec,
                         const int *map, int nmap, int ncols)
{
    binary_spec s;
    cs_error e;
    memset(&e, 0, sizeof e);
    ck_assert_msg(binary_spec_parse(l->text, &s, &e) == CS_OK, "%s", e.msg);
    size_t rs = s.record_size;
    unsigned char *data = malloc(nrec * rs + 1);
    double *want = malloc((nrec + 1) * (size_t)(ncols + 1) * sizeof(double));
    int64_t *want_corr =
        malloc((nrec + 1) * (size_t)(ncols + 1) * sizeof(int64_t));
    uint64_t *want_nan = calloc((size_t)ncols + 1, sizeof(uint64_t));
    int *any_corr = calloc((size_t)ncols + 1, sizeof(int));
    ck_assert(data && want && want_corr && want_nan && any_corr);
    for (size_t i = 0; i < nrec; i++) {
        size_t off = 0;
        for (int f = 0; f < l->n; f++) {
            int t = l->t[f], nan;
            uint64_t bits = rand_bits(r, t);
            put_le(data + i * rs + off, bits, T[t].size);
            off += (size_t)T[t].size;
            double v = expect(t, bits, &nan);
            if (f < nmap && map[f] >= 0) {
                int64_t corr = expect_corr(t, bits, v);
                ck_assert(corr >= -1024 && corr <= 1024);
                want[(size_t)map[f] * nrec + i] = v;
                want_corr[(size_t)map[f] * nrec + i] = corr;
                any_corr[map[f]] |= corr != 0;
                want_nan[map[f]] += (uint64_t)nan;
            }
        }
    }
    /* Room for one row more than needed, and a column nothing maps to:
     * the decoder must write neither. */
    size_t pre = rng_below(r, 3);
    row_batch c;
    ck_assert_int_eq(row_batch_init(&c, ncols + 1, pre + nrec + 1, NULL), 0);
    for (int j = 0; j <= ncols; j++)
        for (size_t i = 0; i < c.cap; i++)
            memcpy(&c.col[j][i], &SENTINEL, sizeof SENTINEL);
    c.nrows = pre; /* rows already there from earlier records */
    for (size_t done = 0; done < nrec;) {
        size_t k =
            rng_below(r, 3) ? nrec - done : rng_below(r, nrec - done + 1);
        binary_decode(&s, data + done * rs, k, map, nmap, &c);
        done += k;
        ck_assert_uint_eq(c.nrows, pre + done);
    }
    /* Hot loops test first and assert on failure only: a passing Check
     * assertion costs a write to the parent process. */
    for (int j = 0; j <= ncols; j++) {
        for (size_t i = 0; i < pre; i++)
            if (!is_sentinel(c.col[j][i]))
                ck_abort_msg("col %d row %zu before the new rows changed", j,
                             i);
        ck_assert(is_sentinel(c.col[j][pre + nrec]));
        ck_assert_uint_eq(c.missing[j], 0);
        ck_assert_uint_eq(c.invalid[j], 0);
        ck_assert_uint_eq(c.first_invalid[j], 0);
    }
    for (int j = 0; j < ncols; j++) {
        uint64_t nan = 0;
        for (size_t i = 0; i < nrec; i++) {
            double got = c.col[j][pre + i], w = want[(size_t)j * nrec + i];
            if (isnan(w)) {
                nan++;
                if (!isnan(got))
                    ck_abort_msg("col %d row %zu: %a not NaN", j, i, got);
            } else if (memcmp(&got, &w, sizeof w) != 0) {
                ck_abort_msg("col %d row %zu: got %a want %a (spec %s)", j, i,
                             got, w, l->text);
            }
        }
        ck_assert_uint_eq(c.nan[j], want_nan[j]);
        ck_assert_uint_eq(nan, want_nan[j]);
        /* corrections kept only where some is nonzero, rows before 0 */
        ck_assert_msg(!c.has_corr[j] == !any_corr[j],
                      "col %d: has_corr %d, want %d (spec %s)", j,
                      (int)c.has_corr[j], any_corr[j], l->text);
        for (size_t i = 0; c.has_corr[j] && i < pre + nrec; i++) {
            int64_t w = i < pre ? 0 : want_corr[(size_t)j * nrec + i - pre];
            if (c.corr[j][i] != w)
                ck_abort_msg("col %d row %zu: correction %ld want %ld (spec "
                             "%s)",
                             j, i, (long)c.corr[j][i], (long)w, l->text);
        }
    }
    ck_assert_uint_eq(c.has_corr[ncols], 0);
    ck_assert_uint_eq(c.nan[ncols], 0);
    for (size_t i = pre; i < pre + nrec; i++)
        if (!is_sentinel(c.col[ncols][i]))
            ck_abort_msg("unmapped column written at row %zu", i);
    row_batch_free(&c, NULL);
    free(data);
    free(want);
    free(want_corr);
    free(want_nan);
    free(any_corr);
}

/* A random map: each field to its own column, some skipped; nmap may stop
 * short of the fields (the rest are skipped) or run past them. */
static int rand_map(test_rng *r, int nfields, int *map, int *nmap)
{
    *nmap =
        (int)rng_below(r, 4) ? nfields : (int)rng_below(r, (size_t)nfields + 3);
    int ncols = 0;
    for (int f = 0; f < *nmap; f++)
        map[f] = f < nfields && rng_below(r, 4) ? ncols++ : -1;
    /* Shuffle the columns among the mapped fields (Fisher-Yates). */
    for (int f = *nmap - 1; f > 0; f--) {
        int g = (int)rng_below(r, (size_t)f + 1);
        if (map[f] >= 0 && map[g] >= 0) {
            int t = map[f];
            map[f] = map[g];
            map[g] = t;
        }
    }
    return ncols;
}

static size_t rand_nrec(test_rng *r)
{
    switch (rng_below(r, 4)) {
    case 0:
        return rng_below(r, 5);
    case 1:
        return rng_below(r, 300);
    default:
        return rng_below(r, g_quick ? 2000 : 12000);
    }
}

START_TEST(decode_mixed)
{
    test_rng r = rng_for(g_seed, 2);
    static int map[BINARY_MAX_FIELDS + 3];
    for (int it = 0; it < iters(150); it++) {
        static layout l;
        rand_layout(&r, &l, 16);
        int nmap, ncols = rand_map(&r, l.n, map, &nmap);
        check_decode(&r, &l, rand_nrec(&r), map, nmap, ncols);
    }
}
END_TEST

/* The `-b f64` and `-b f64xK` paths, many records, NaN among them. */
START_TEST(decode_f64)
{
    test_rng r = rng_for(g_seed, 3);
    static int map[BINARY_MAX_FIELDS + 3];
    for (int it = 0; it < iters(40); it++) {
        static layout l;
        memset(&l, 0, sizeof l);
        int k = rng_below(&r, 2) ? 1 : 1 + (int)rng_below(&r, 8);
        add_part(&l, NT - 1, k, k > 1);
        int nmap = k, ncols = k;
        for (int f = 0; f < k; f++)
            map[f] = f;
        if (rng_below(&r, 3) == 0)
            ncols = rand_map(&r, k, map, &nmap);
        size_t nrec = rng_below(&r, 2)
                          ? rand_nrec(&r)
                          : rng_below(&r, g_quick ? 30000 : 200000);
        check_decode(&r, &l, nrec, map, nmap, ncols);
    }
}
END_TEST

/* Every type alone, mapped, so each conversion is covered every run. */
START_TEST(decode_each_type)
{
    test_rng r = rng_for(g_seed, 4);
    int map[1] = {0};
    for (int t = 0; t < NT; t++) {
        static layout l;
        memset(&l, 0, sizeof l);
        add_part(&l, t, 1, 0);
        check_decode(&r, &l, 1000 + rng_below(&r, 5000), map, 1, 1);
    }
}
END_TEST

/* The widest spec: 1024 fields, records of several KB. */
START_TEST(decode_wide)
{
    test_rng r = rng_for(g_seed, 5);
    static layout l;
    static int map[BINARY_MAX_FIELDS + 3];
    rand_layout(&r, &l, BINARY_MAX_FIELDS);
    while (l.n < BINARY_MAX_FIELDS)
        add_part(&l, (int)rng_below(&r, NT), BINARY_MAX_FIELDS - l.n, 1);
    int nmap, ncols = rand_map(&r, l.n, map, &nmap);
    check_decode(&r, &l, 1 + rng_below(&r, g_quick ? 50 : 300), map, nmap,
                 ncols);
}
END_TEST

static Suite *binary_suite(void)
{
    Suite *s = suite_create("binary_reader");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, spec_examples);
    tcase_add_test(tc, spec_bad);
    tcase_add_test(tc, spec_random);
    tcase_add_test(tc, decode_mixed);
    tcase_add_test(tc, decode_f64);
    tcase_add_test(tc, decode_each_type);
    tcase_add_test(tc, decode_wide);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    g_seed = test_seed("test_binary_reader");
    g_quick = getenv("COLSTAT_TEST_QUICK") != NULL;
    int rc = run_suite(binary_suite(), CK_FORK_GETENV);
    if (rc != EXIT_SUCCESS)
        fprintf(stderr, "test_binary_reader: failed with COLSTAT_SEED=%llu\n",
                (unsigned long long)g_seed);
    return rc;
}
