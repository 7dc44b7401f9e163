/* The device's number parser (gpu_parse_fields, gpu/parse_field.cuh)
 * against the host's parse_number_corr: the same kind for every field, the
 * same bits and integer correction for every number; "hard" (4) only where
 * the host's own core
 * (io/num/number_core.h) also needs strtod, and rarely. Fields of every form
 * are drawn fresh from a logged seed (COLSTAT_SEED replays, with
 * COLSTAT_TEST_QUICK smaller). They are packed unaligned with number bytes
 * between them, so a device that reads outside a field gets another value.
 * Skips (77) when no device is usable. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef COLSTAT_HAVE_GPU
#include "gpu/gpu.h"
#include "io/num/number_core.h"
#include "io/num/parse_number.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>

#include "tests/testlib.h"

#include "tests/io/num/hard_numbers.h"

static uint64_t seed;
static int quick;

enum cat {
    C_FIXED,      /* hand-picked edges */
    C_INT,        /* up to 19 digits, signs, leading zeros */
    C_DEC,        /* short decimals, ".5" and "5." */
    C_EXP,        /* short mantissas, any exponent, overflowing ones */
    C_SHORT,      /* random doubles in at most 17 digits */
    C_LONG,       /* 17 to 800 significant digits */
    C_HALF_SHORT, /* halfway points cut to at most 19 digits, +-1 */
    C_HALF_LONG,  /* exact halfway points, +-1 in the last digit */
    C_SUB,        /* subnormals and the ends of the range */
    C_ZERO,       /* zeros, signed, with exponents */
    C_SPECIAL,    /* inf, infinity, nan in any case, and near misses */
    C_BLANK,      /* empty or blanks only */
    C_GARBAGE,    /* not numbers, NUL bytes included */
    C_MUTANT,     /* numbers with random edits */
    C_BIGINT,     /* integers past 2^53 to 2^64 and just past, spelled with
                     points, zeros and exponents; near-integers */
    C_GROUPED,    /* numbers of the categories above written with a random
                     num_format: thousands and decimal separators */
    C_NULLS,      /* null spellings, blanks around, near misses, numbers */
    C_FMT_MUTANT, /* grouped numbers with random edits */
    NCATS
};

/* Per category: how many fields, the most "hard" answers allowed (per
 * mille, -1: any; every field past 19 digits can need strtod), and the
 * kind most fields must have, as a check on the generator. */
static const struct {
    const char *name;
    long n;
    int max_hard_permille;
    int kind, min_pct;
} cats[NCATS] = {
    [C_FIXED] = {"fixed", 0, -1, NUM_OK, 0},
    [C_INT] = {"integers", 200000, 0, NUM_OK, 80},
    [C_DEC] = {"decimals", 200000, 0, NUM_OK, 80},
    [C_EXP] = {"exponents", 200000, 0, NUM_OK, 80},
    [C_SHORT] = {"short doubles", 200000, 0, NUM_OK, 80},
    [C_LONG] = {"long digits", 100000, 10, NUM_OK, 80},
    [C_HALF_SHORT] = {"halfway, short", 40000, 10, NUM_OK, 80},
    [C_HALF_LONG] = {"halfway, exact", 20000, -1, NUM_OK, 80},
    [C_SUB] = {"subnormals", 100000, -1, NUM_OK, 80},
    [C_ZERO] = {"zeros", 50000, 0, NUM_OK, 80},
    [C_SPECIAL] = {"specials", 50000, 0, NUM_OK, 40},
    [C_BLANK] = {"blanks", 10000, 0, NUM_MISSING, 100},
    [C_GARBAGE] = {"garbage", 100000, 0, NUM_INVALID, 80},
    [C_MUTANT] = {"mutants", 200000, -1, NUM_INVALID, 20},
    [C_BIGINT] = {"big integers", 200000, 30, NUM_OK, 95},
    [C_GROUPED] = {"grouped", 200000, 10, NUM_OK, 80},
    [C_NULLS] = {"nulls", 100000, 10, NUM_MISSING, 40},
    [C_FMT_MUTANT] = {"format mutants", 200000, -1, NUM_INVALID, 20},
};

/* Fields laid end to end in one text, as the CSV kernel sees them. */
typedef struct fields {
    char *text;
    size_t len, cap;
    size_t *off, *flen;
    size_t n, capn;
} fields;

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : 1024;
    while (c < need)
        c *= 2;
    void *q = realloc(p, c * size);
    EXPECT(q != NULL, "out of memory");
    *cap = c;
    return q;
}

/* Appends a field after 0-3 filler bytes that would extend a number. */
static void put(fields *f, test_rng *r, const char *s, size_t n)
{
    static const char filler[] = "0123456789.eE-";
    size_t pad = rng_below(r, 4);
    f->text = grow(f->text, &f->cap, f->len + pad + n, 1);
    for (size_t i = 0; i < pad; i++)
        f->text[f->len++] = filler[rng_below(r, sizeof filler - 1)];
    size_t capn = f->capn;
    f->off = grow(f->off, &capn, f->n + 1, sizeof *f->off);
    f->flen = grow(f->flen, &f->capn, f->n + 1, sizeof *f->flen);
    f->off[f->n] = f->len;
    f->flen[f->n++] = n;
    if (n)
        memcpy(f->text + f->len, s, n);
    f->len += n;
}

static void fields_free(fields *f)
{
    free(f->text);
    free(f->off);
    free(f->flen);
}

static uint64_t finite_bits(test_rng *r)
{
    uint64_t b;
    do
        b = rng_next(r);
    while (((b >> 52) & 0x7ff) == 0x7ff);
    return b;
}

/* Room for the longest field any generator writes. */
#define FIELD_MAX 2048

static size_t digits(test_rng *r, char *o, size_t n)
{
    for (size_t i = 0; i < n; i++)
        o[i] = (char)('0' + rng_below(r, 10));
    return n;
}

static size_t sign(test_rng *r, char *o)
{
    switch (rng_below(r, 4)) {
    case 0:
        *o = '-';
        return 1;
    case 1:
        *o = '+';
        return 1;
    default:
        return 0;
    }
}

static size_t gen_int(test_rng *r, char *s)
{
    size_t n = sign(r, s);
    if (rng_below(r, 4) == 0)
        for (size_t z = 1 + rng_below(r, 3); z; z--)
            s[n++] = '0';
    return n + digits(r, s + n, 1 + rng_below(r, 19));
}

static size_t gen_dec(test_rng *r, char *s)
{
    if (rng_below(r, 2)) {
        double x = test_unif(&r->s) * pow(10, (double)rng_below(r, 10));
        return (size_t)sprintf(s, "%.*f", (int)rng_below(r, 7),
                               rng_below(r, 2) ? -x : x);
    }
    /* "5.", ".5", "12.034" */
    size_t n = sign(r, s), ni = rng_below(r, 8), nf = rng_below(r, 8);
    if (ni + nf == 0)
        nf = 1;
    n += digits(r, s + n, ni);
    s[n++] = '.';
    return n + digits(r, s + n, nf);
}

static size_t gen_exp(test_rng *r, char *s)
{
    size_t n = sign(r, s), nd = 1 + rng_below(r, 10),
           point = rng_below(r, nd + 2);
    for (size_t i = 0; i < nd; i++) {
        if (i == point)
            s[n++] = '.';
        s[n++] = (char)('0' + rng_below(r, 10));
    }
    if (point == nd)
        s[n++] = '.';
    s[n++] = rng_below(r, 2) ? 'e' : 'E';
    n += sign(r, s + n);
    switch (rng_below(r, 5)) {
    case 0: /* around the ends of the range */
        return n +
               (size_t)sprintf(s + n, "%u", 290 + (unsigned)rng_below(r, 50));
    case 1: /* overflowing the exponent itself */
        return n + digits(r, s + n, 10 + rng_below(r, 16));
    case 2: /* leading zeros */
        return n + (size_t)sprintf(s + n, "000%u", (unsigned)rng_below(r, 30));
    default:
        return n + (size_t)sprintf(s + n, "%u", (unsigned)rng_below(r, 400));
    }
}

static size_t gen_short(test_rng *r, char *s)
{
    double x = from_bits(finite_bits(r));
    switch (rng_below(r, 3)) {
    case 0:
        return (size_t)sprintf(s, "%.17g", x);
    case 1:
        return (size_t)sprintf(s, "%.*g", 1 + (int)rng_below(r, 17), x);
    default:
        return (size_t)sprintf(s, "%.*e", (int)rng_below(r, 17), x);
    }
}

/* 17 to 40 significant digits, now and then up to 800; random point,
 * leading and trailing zeros, exponent. */
static size_t gen_long(test_rng *r, char *s)
{
    size_t n = sign(r, s);
    size_t lead = rng_below(r, 4) == 0 ? rng_below(r, 20) : 0;
    size_t nd =
        rng_below(r, 20) ? 17 + rng_below(r, 24) : 41 + rng_below(r, 760);
    size_t trail = rng_below(r, 4) == 0 ? rng_below(r, 20) : 0;
    size_t total = lead + nd + trail, point = rng_below(r, total + 2);
    for (size_t i = 0; i < total; i++) {
        if (i == point)
            s[n++] = '.';
        bool sig = i >= lead && i < lead + nd;
        s[n++] = (char)('0' + (sig ? (i == lead ? 1 + rng_below(r, 9)
                                                : rng_below(r, 10))
                                   : 0));
    }
    if (point == total)
        s[n++] = '.';
    if (rng_below(r, 2))
        n += (size_t)sprintf(s + n, "e%d", (int)rng_below(r, 701) - 350);
    return n;
}

/* The exact decimal midpoint of x and its successor, "d.ddd...e+XX",
 * trailing zeros dropped; 0 when long double cannot hold it. */
static size_t midpoint(double x, char *s, char *exp)
{
#if LDBL_MANT_DIG >= 54
    long double lo = x, hi = nextafter(x, HUGE_VAL);
    if (isinf(nextafter(x, HUGE_VAL)))
        hi = (long double)x + ldexpl(1, 1023 - 52); /* 2^1024 */
    int len = snprintf(s, FIELD_MAX, "%.780Le", (lo + hi) / 2);
    EXPECT(len > 0 && len < FIELD_MAX - 40, "expansion too long");
    char *e = strchr(s, 'e');
    strcpy(exp, e);
    while (e[-1] == '0')
        e--;
    if (e[-1] == '.')
        e--;
    *e = '\0';
    return (size_t)(e - s);
#else
    (void)x;
    (void)s;
    (void)exp;
    return 0;
#endif
}

static double halfway_double(test_rng *r)
{
    uint64_t b = finite_bits(r) & ~(UINT64_C(1) << 63);
    switch (rng_below(r, 8)) {
    case 0: /* subnormal or near the subnormal boundary */
        b = (b & ((UINT64_C(1) << 52) - 1)) | ((uint64_t)rng_below(r, 3) << 52);
        break;
    case 1: /* short significand: halfway points in few digits */
        b &= ~((UINT64_C(1) << (30 + rng_below(r, 22))) - 1);
        break;
    case 2: /* the largest doubles */
        b = (b & ((UINT64_C(1) << 52) - 1)) | UINT64_C(0x7fe) << 52;
        break;
    default:
        break;
    }
    return from_bits(b);
}

/* The last digit of s[0..n) moved by -1, 0 or +1 where no carry follows. */
static void nudge(test_rng *r, char *s, size_t n)
{
    char *d = &s[n - 1];
    int v = *d - '0' + (int)rng_below(r, 3) - 1;
    if (*d >= '0' && *d <= '9' && v >= 0 && v <= 9)
        *d = (char)('0' + v);
}

/* A halfway point cut to 1..19 significant digits (short) or exact and
 * longer (long), last digit nudged, sign and zero tail random. */
static size_t gen_half(test_rng *r, char *s, bool shorten)
{
    char mid[FIELD_MAX], exp[16];
    size_t m = midpoint(halfway_double(r), mid, exp);
    if (m == 0)
        return (size_t)sprintf(s, "0.5");
    size_t ndig = m > 1 ? m - 1 : 1; /* the '.' is no digit */
    size_t keep = ndig;
    if (shorten && keep > 19)
        keep = 17 + rng_below(r, 3);
    else if (shorten && rng_below(r, 2))
        keep = 1 + rng_below(r, keep);
    size_t cut = keep > 1 ? keep + 1 : 1, n = sign(r, s);
    memcpy(s + n, mid, cut);
    n += cut;
    if (rng_below(r, 2))
        nudge(r, s, n);
    if (!shorten && rng_below(r, 3) == 0)
        n += (size_t)sprintf(s + n, "%s", rng_below(r, 2) ? "000" : "0001");
    return n + (size_t)sprintf(s + n, "%s", exp);
}

static size_t gen_sub(test_rng *r, char *s)
{
    if (rng_below(r, 20) == 0) /* the range's edges among them */
        return (size_t)sprintf(s, "%s",
                               hard_numbers[rng_below(r, HARD_NUMBERS)]);
    uint64_t b = (rng_next(r) >> rng_below(r, 64)) & ((UINT64_C(1) << 52) - 1);
    double x = from_bits(b | ((uint64_t)rng_below(r, 2) << 52));
    return (size_t)sprintf(s, "%.*g", 1 + (int)rng_below(r, 25),
                           rng_below(r, 2) ? -x : x);
}

static size_t gen_zero(test_rng *r, char *s)
{
    size_t n = sign(r, s), ni = rng_below(r, 4),
           nf = rng_below(r, 3) ? 0 : rng_below(r, 50);
    for (size_t i = 0; i < ni; i++)
        s[n++] = '0';
    if (nf || ni == 0 || rng_below(r, 2)) {
        s[n++] = '.';
        for (size_t i = 0; i < nf || (i == 0 && ni == 0); i++)
            s[n++] = '0';
    }
    switch (rng_below(r, 4)) {
    case 0:
        return n + (size_t)sprintf(s + n, "e%d", (int)rng_below(r, 801) - 400);
    case 1:
        return n + (size_t)sprintf(s + n, "E+99999999999999999999");
    default:
        return n;
    }
}

static size_t gen_special(test_rng *r, char *s)
{
    static const char *words[] = {"nan", "inf", "infinity"};
    static const char *misses[] = {"infinit", "nana",  "in",   "n",
                                   "nan(1)",  "i nf",  "inF1", "infinityy",
                                   "na",      "-inf-", "info", "nan."};
    size_t n = sign(r, s);
    const char *w =
        rng_below(r, 4) ? words[rng_below(r, 3)] : misses[rng_below(r, 12)];
    for (; *w; w++)
        s[n++] =
            *w >= 'a' && *w <= 'z' && rng_below(r, 2) ? (char)(*w - 32) : *w;
    return n;
}

static size_t gen_blank(test_rng *r, char *s)
{
    size_t n = rng_below(r, 6);
    for (size_t i = 0; i < n; i++)
        s[i] = rng_below(r, 2) ? ' ' : '\t';
    return n;
}

#define LIT(s)                                                                 \
    {                                                                          \
        s, sizeof s - 1                                                        \
    }
static const struct {
    const char *s;
    size_t n;
} garbage[] = {
    LIT("1e"),     LIT("e5"),    LIT("--1"),      LIT("1..2"),   LIT("0x10"),
    LIT("1,000"),  LIT("\"1\""), LIT("1e+"),      LIT("1e-"),    LIT("."),
    LIT("-"),      LIT("+"),     LIT("+-1"),      LIT("1 2"),    LIT("- 1"),
    LIT("1\0002"), LIT("\0"),    LIT("1\0"),      LIT("\0001"),  LIT("1.5x"),
    LIT("0x1p3"),  LIT("1e5.5"), LIT(".e5"),      LIT("\n1"),    LIT("1\r"),
    LIT("abc"),    LIT("1_000"), LIT("\xc2\xb9"), LIT("12\xff"), LIT("1e5e5"),
};
#define NGARBAGE (sizeof garbage / sizeof garbage[0])

static size_t gen_garbage(test_rng *r, char *s)
{
    size_t k = rng_below(r, NGARBAGE);
    memcpy(s, garbage[k].s, garbage[k].n);
    return garbage[k].n;
}

/* A number with 1 to 4 random insertions, deletions or replacements. */
static size_t gen_mutant(test_rng *r, char *s)
{
    static const char alphabet[] = "0123456789.eE+- \tiInNfFaAxX,\"\r\n\0\x80";
    size_t n = rng_below(r, 2) ? gen_short(r, s) : gen_dec(r, s);
    for (size_t k = 1 + rng_below(r, 4); k; k--) {
        size_t at = rng_below(r, n + 1);
        char c = alphabet[rng_below(r, sizeof alphabet - 1)];
        switch (rng_below(r, 3)) {
        case 0:
            memmove(s + at + 1, s + at, n - at);
            s[at] = c;
            n++;
            break;
        case 1:
            if (at < n) {
                memmove(s + at, s + at + 1, n - at - 1);
                n--;
            }
            break;
        default:
            if (at < n)
                s[at] = c;
            break;
        }
    }
    return n;
}

/* An integer near 2^53, 2^63, 2^64, 10^19 or anywhere up to 2^64, as
 * digits; sometimes with a point and zeros, the point moved by an exponent,
 * or a nonzero digit far out (no integer, yet an integral double). */
static size_t gen_bigint(test_rng *r, char *s)
{
    static const uint64_t marks[] = {UINT64_C(1) << 53, UINT64_C(1) << 63,
                                     UINT64_C(10000000000000000000),
                                     UINT64_MAX};
    char d[32];
    uint64_t v = rng_below(r, 2) ? marks[rng_below(r, 4)] - rng_below(r, 3000)
                                 : rng_next(r) >> rng_below(r, 12);
    int n = sprintf(d, "%" PRIu64, v);
    if (rng_below(r, 8) == 0) /* 2^64 itself, or just past it */
        n = sprintf(d, "1844674407370955161%c", (char)('5' + rng_below(r, 4)));
    size_t o = sign(r, s);
    switch (rng_below(r, 5)) {
    case 0: /* d.ddd e+k */
        s[o++] = d[0];
        s[o++] = '.';
        memcpy(s + o, d + 1, (size_t)n - 1);
        o += (size_t)n - 1;
        return o + (size_t)sprintf(s + o, "e%d", n - 1);
    case 1: /* trailing zeros after a point */
        memcpy(s + o, d, (size_t)n);
        return o + (size_t)n +
               (size_t)sprintf(s + o + n, ".%0*d", 1 + (int)rng_below(r, 4), 0);
    case 2: /* nearly: a nonzero digit far out */
        memcpy(s + o, d, (size_t)n);
        return o + (size_t)n +
               (size_t)sprintf(s + o + n, ".%0*d1", (int)rng_below(r, 20), 0);
    default:
        memcpy(s + o, d, (size_t)n);
        return o + (size_t)n;
    }
}

/* Blanks around, now and then a '+' in front. */
static size_t decorate(test_rng *r, char *s, size_t n, enum cat c)
{
    char t[FIELD_MAX + 16];
    size_t m = 0;
    if (c != C_BLANK && c != C_GARBAGE && rng_below(r, 16) == 0)
        t[m++] = '+';
    if (rng_below(r, 4) == 0)
        for (size_t k = 1 + rng_below(r, 3); k; k--)
            t[m++] = rng_below(r, 2) ? ' ' : '\t';
    if (m == 0 && rng_below(r, 4))
        return n; /* mostly plain */
    memcpy(t + m, s, n);
    m += n;
    if (rng_below(r, 4) == 0)
        for (size_t k = 1 + rng_below(r, 3); k; k--)
            t[m++] = rng_below(r, 2) ? ' ' : '\t';
    memcpy(s, t, m);
    return m;
}

/* ---- numbers in other formats -------------------------------------- */

static const char *const null_words[] = {
    "NA", "N/A", "null", "NULL", "-", "\\N", "-999", "nan", "?", "--", "n.a.",
};
#define NNULL_WORDS (sizeof null_words / sizeof null_words[0])

/* A format as --null, --thousands and --decimal make them: the decimal
 * separator '.' or another, a thousands separator or none, 0-6 spellings. */
static void random_format(test_rng *r, num_format *f)
{
    static const char decimals[] = ".,'";
    static const char seps[] = ",. '_";
    num_format_init(f);
    f->decimal = decimals[rng_below(r, 3)];
    char t = rng_below(r, 4) ? seps[rng_below(r, 5)] : 0;
    f->thousands = t == f->decimal ? 0 : t;
    for (size_t k = rng_below(r, 7); k; k--) {
        const char *w = null_words[rng_below(r, NNULL_WORDS)];
        EXPECT(num_format_add_null(f, w, strlen(w)) == 0, "null too long");
    }
}

/* s[0..n), a number in the C format, rewritten for f: '.' becomes the
 * decimal separator, the integer digits get thousands separators (groups
 * of three, or now and then anywhere: any grouping is read), and now and
 * then a separator stands where none may (leading, doubled, trailing, in
 * the fraction). */
static size_t reformat(test_rng *r, char *s, size_t n, const num_format *f)
{
    char t[FIELD_MAX + 512];
    size_t m = 0, i = 0;
    while (i < n && !(s[i] >= '0' && s[i] <= '9') && s[i] != '.')
        t[m++] = s[i++]; /* blanks, sign */
    size_t d0 = i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    size_t nd = i - d0;
    bool any = f->thousands && rng_below(r, 8) == 0;
    for (size_t k = 0; k < nd; k++) {
        size_t left = nd - k;
        bool sep = f->thousands && k > 0 &&
                   (any ? rng_below(r, 3) == 0 : left % 3 == 0);
        if (sep && m < sizeof t - 8)
            t[m++] = f->thousands;
        t[m++] = s[d0 + k];
    }
    if (f->thousands && rng_below(r, 40) == 0) /* where none may stand */
        t[m++] = f->thousands;
    for (; i < n && m < sizeof t - 4; i++)
        t[m++] = s[i] == '.' ? f->decimal : s[i];
    EXPECT(m <= FIELD_MAX + 16, "reformat overflow");
    memcpy(s, t, m);
    return m;
}

static size_t gen_plain_number(test_rng *r, char *s)
{
    switch (rng_below(r, 6)) {
    case 0:
        return gen_int(r, s);
    case 1:
        return gen_dec(r, s);
    case 2:
        return gen_short(r, s);
    case 3:
        return gen_long(r, s);
    case 4:
        return gen_bigint(r, s);
    default:
        return gen_exp(r, s);
    }
}

/* A null spelling, often padded with blanks, or one with an edit, or a
 * number. */
static size_t gen_null(test_rng *r, const num_format *f, char *s)
{
    if (rng_below(r, 5) == 0 || f->nnull == 0)
        return reformat(r, s, gen_plain_number(r, s), f);
    unsigned k = (unsigned)rng_below(r, f->nnull);
    size_t n = f->null_len[k];
    memcpy(s, f->null_text + f->null_at[k], n);
    switch (rng_below(r, 6)) {
    case 0: /* a near miss: one more byte */
        s[n++] = "aN-0 "[rng_below(r, 5)];
        break;
    case 1: /* or one less */
        n -= n > 1;
        break;
    default:
        break;
    }
    return n;
}

static size_t gen(test_rng *r, enum cat c, char *s)
{
    switch (c) {
    case C_INT:
        return gen_int(r, s);
    case C_DEC:
        return gen_dec(r, s);
    case C_EXP:
        return gen_exp(r, s);
    case C_SHORT:
        return gen_short(r, s);
    case C_LONG:
        return gen_long(r, s);
    case C_HALF_SHORT:
        return gen_half(r, s, true);
    case C_HALF_LONG:
        return gen_half(r, s, false);
    case C_SUB:
        return gen_sub(r, s);
    case C_ZERO:
        return gen_zero(r, s);
    case C_SPECIAL:
        return gen_special(r, s);
    case C_BLANK:
        return gen_blank(r, s);
    case C_GARBAGE:
        return gen_garbage(r, s);
    case C_BIGINT:
        return gen_bigint(r, s);
    default:
        return gen_mutant(r, s);
    }
}

/* s[0..n) with unprintable bytes escaped, for messages. */
static const char *show(const char *s, size_t n)
{
    static char out[256];
    size_t o = 0;
    for (size_t i = 0; i < n && o + 8 < sizeof out; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f && c != '\\')
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, sizeof out - o, "\\x%02x", c);
    }
    if (o + 8 >= sizeof out)
        o += (size_t)snprintf(out + o, sizeof out - o, "...");
    out[o] = '\0';
    return out;
}

/* Parses every field on the device and holds each answer against the host,
 * numbers written as fmt says, then the category's share of hard answers
 * against its limit. */
static void compare(const fields *f, enum cat c, const num_format *fmt)
{
    int *kind = malloc((f->n ? f->n : 1) * sizeof *kind);
    double *val = malloc((f->n ? f->n : 1) * sizeof *val);
    int32_t *corr = malloc((f->n ? f->n : 1) * sizeof *corr);
    EXPECT(kind && val && corr, "out of memory");
    cs_error why = {0};
    EXPECT(gpu_parse_fields(f->text, f->len, f->off, f->flen, f->n, fmt, kind,
                            val, corr, &why) == 0,
           "gpu_parse_fields: %s", why.msg);
    size_t hard = 0, typical = 0, corrected = 0;
    for (size_t i = 0; i < f->n; i++) {
        const char *s = f->text + f->off[i];
        size_t n = f->flen[i];
        double want = 0, core = 0;
        int32_t want_corr = 0;
        num_decimal d;
        num_kind k = parse_number_fmt(s, n, fmt, &want, &want_corr);
        int ck = num_parse_core(s, s + n, fmt, &core, &d);
        EXPECT(kind[i] == ck,
               "%s \"%s\": device kind %d, host core %d (seed %" PRIu64 ")",
               cats[c].name, show(s, n), kind[i], ck, seed);
        if (ck == NUM_HARD) {
            EXPECT(k == NUM_OK, "\"%s\": fallback gave kind %d", show(s, n), k);
            hard++;
        } else {
            EXPECT(kind[i] == (int)k,
                   "%s \"%s\": device kind %d, parse_number %d (seed %" PRIu64
                   ")",
                   cats[c].name, show(s, n), kind[i], k, seed);
            EXPECT(k != NUM_OK || bits_of(val[i]) == bits_of(want),
                   "%s \"%s\": device %a, parse_number %a (seed %" PRIu64 ")",
                   cats[c].name, show(s, n), val[i], want, seed);
            EXPECT(corr[i] == want_corr,
                   "%s \"%s\": device correction %ld, parse_number_corr %ld "
                   "(seed %" PRIu64 ")",
                   cats[c].name, show(s, n), (long)corr[i], (long)want_corr,
                   seed);
            corrected += want_corr != 0;
        }
        typical += (int)k == cats[c].kind;
    }
    fprintf(stderr,
            "test_gpu_parse: %-15s %8zu fields, %6zu hard (%.3f%%), %zu "
            "with a correction; decimal '%c', thousands '%c', %d nulls\n",
            cats[c].name, f->n, hard, f->n ? 100.0 * (double)hard / f->n : 0,
            corrected, fmt->decimal, fmt->thousands ? fmt->thousands : '-',
            fmt->nnull);
    if (c == C_BIGINT) /* the generator reaches them */
        EXPECT(corrected * 4 > f->n, "big integers: %zu corrected of %zu",
               corrected, f->n);
    if (cats[c].max_hard_permille >= 0)
        EXPECT(hard * 1000 <= (size_t)cats[c].max_hard_permille * f->n,
               "%s: %zu of %zu fields hard (seed %" PRIu64 ")", cats[c].name,
               hard, f->n, seed);
    EXPECT(typical * 100 >= (size_t)cats[c].min_pct * f->n,
           "%s: only %zu of %zu fields of kind %d: generator broken",
           cats[c].name, typical, f->n, cats[c].kind);
    free(kind);
    free(val);
    free(corr);
}

/* One field of a format category. */
static size_t gen_fmt(test_rng *r, enum cat c, const num_format *fmt, char *s)
{
    if (c == C_NULLS)
        return gen_null(r, fmt, s);
    size_t n = reformat(r, s, gen_plain_number(r, s), fmt);
    if (c == C_FMT_MUTANT) { /* edits among digits and separators */
        const char alphabet[] = {'0',
                                 '7',
                                 '.',
                                 ',',
                                 '\'',
                                 ' ',
                                 '_',
                                 'e',
                                 '-',
                                 fmt->decimal,
                                 fmt->thousands ? fmt->thousands : ','};
        for (size_t k = 1 + rng_below(r, 3); k; k--) {
            size_t at = rng_below(r, n + 1);
            char ch = alphabet[rng_below(r, sizeof alphabet)];
            if (rng_below(r, 2) || at == n) {
                memmove(s + at + 1, s + at, n - at);
                s[at] = ch;
                n++;
            } else {
                s[at] = ch;
            }
        }
    }
    return n;
}

START_TEST(test_category)
{
    enum cat c = (enum cat)(_i + 1);
    test_rng r = rng_for(seed, (uint64_t)c);
    long n = quick ? cats[c].n / 40 : cats[c].n;
    bool formatted = c >= C_GROUPED;
    /* the format categories run in batches, each with its own format */
    for (int batch = 0; batch < (formatted ? 8 : 1); batch++) {
        num_format fmt;
        num_format_init(&fmt);
        if (formatted)
            random_format(&r, &fmt);
        if (c == C_NULLS && fmt.nnull == 0)
            EXPECT(num_format_add_null(&fmt, "NA", 2) == 0, "null");
        fields f = {0};
        char s[FIELD_MAX + 600];
        for (long i = 0; i < (formatted ? n / 8 : n); i++) {
            size_t len = formatted ? gen_fmt(&r, c, &fmt, s) : gen(&r, c, s);
            EXPECT(len <= FIELD_MAX + 32, "generator overflow");
            put(&f, &r, s, decorate(&r, s, len, c));
        }
        compare(&f, c, &fmt);
        fields_free(&f);
    }
}
END_TEST

/* Edges the random draws may miss; the last field ends the text, so the
 * device meets the end of its buffer too. */
START_TEST(test_fixed)
{
    static const char *cases[] = {
        "0",
        "-0",
        "+0.000e-999",
        "-0e99999999999999999999",
        " 1.5\t",
        "\t-2.25 ",
        "1.",
        ".5",
        "-.5e1",
        "007",
        "1e400",
        "-1e400",
        "1e-400",
        "-1e-400",
        "1e99999999999999999999",
        "inf",
        "-Inf",
        " +INFINITY ",
        "nan",
        "-NaN",
        "infinit",
        "nan(1)",
        "",
        " \t ",
        "1234567812345678",
        "12345678.12345678",
        "123456781234567812345678",
        "9007199254740993",
        "-9007199254740993.000",
        "1735704000123456789",
        "18446744073709551615",
        "18446744073709551616",
        "18446744073709551617",
        "1.8446744073709551615e19",
        "3.0000000000000000001",
        "1e-400",
    };
    test_rng r = rng_for(seed, 0);
    fields f = {0};
    for (size_t k = 0; k < NGARBAGE; k++)
        put(&f, &r, garbage[k].s, garbage[k].n);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        put(&f, &r, cases[k], strlen(cases[k]));
    for (size_t k = 0; k < HARD_NUMBERS; k++)
        put(&f, &r, hard_numbers[k], strlen(hard_numbers[k]));
    num_format c_fmt;
    num_format_init(&c_fmt);
    compare(&f, C_FIXED, &c_fmt);
    fields_free(&f);
}
END_TEST

/* The examples, and separators where they may not stand, in the
 * European and the American format. */
START_TEST(test_fixed_formats)
{
    static const char *cases[] = {
        "1,234.50",
        "1.234,50",
        "1713,16",
        "1,234,567.5",
        "12,34,567",
        "1,234,567,890,123,456,789",
        "18,446,744,073,709,551,615",
        "9,007,199,254,740,993",
        "-1.234.567,891",
        ",5",
        "5,",
        ",123",
        "1,,234",
        "1,234,",
        "1.234.",
        "1,2.3,4",
        "1e1,000",
        " NA ",
        "N/A",
        "\\N",
        "-",
        "-999",
        "nan",
        "NaN",
        "null ",
        "NAN",
        "1 234,5",
        "1'234.5",
    };
    test_rng r = rng_for(seed, 1000);
    const struct {
        char decimal, thousands;
    } formats[] = {{'.', ','},  {',', '.'}, {',', ' '},
                   {'.', '\''}, {',', 0},   {'.', 0}};
    for (size_t k = 0; k < sizeof formats / sizeof formats[0]; k++) {
        num_format fmt;
        num_format_init(&fmt);
        fmt.decimal = formats[k].decimal;
        fmt.thousands = formats[k].thousands;
        const char *nulls[] = {"NA", "N/A", "\\N", "-", "-999", "nan"};
        for (size_t j = 0; j < (k % 2 ? 6 : 0); j++)
            EXPECT(num_format_add_null(&fmt, nulls[j], strlen(nulls[j])) == 0,
                   "null");
        fields f = {0};
        for (size_t j = 0; j < sizeof cases / sizeof cases[0]; j++)
            put(&f, &r, cases[j], strlen(cases[j]));
        compare(&f, C_FIXED, &fmt);
        fields_free(&f);
    }
}
END_TEST

static Suite *gpu_parse_suite(void)
{
    Suite *s = suite_create("gpu_parse");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_fixed);
    tcase_add_test(tc, test_fixed_formats);
    tcase_add_loop_test(tc, test_category, 0, NCATS - 1);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    seed = test_seed("test_gpu_parse");
    quick = test_quick();
    cs_error why = {0};
    size_t none = 0;
    int kind;
    double val;
    int32_t corr;
    num_format fmt;
    num_format_init(&fmt);
    if (gpu_parse_fields("", 0, &none, &none, 0, &fmt, &kind, &val, &corr,
                         &why) != 0) {
        fprintf(stderr, "test_gpu_parse: %s\n", why.msg);
        return strncmp(why.msg, "no usable GPU", 13) == 0 ? 77 : 1;
    }
    return run_suite(gpu_parse_suite(), CK_NOFORK);
}

#else

int main(void)
{
    fprintf(stderr, "test_gpu_parse: built without the GPU backend\n");
    return 77;
}

#endif
