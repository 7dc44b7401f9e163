/* format_double against strtod (round trip, and no shorter %.*e does
 * it); the JSON document parsed back by Python's json module and compared
 * value by value; TSV/CSV field counts and names; the table's alignment
 * and histogram bars; write failures. */
#include <check.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "src/report/report.h"
#include "src/stats/hist_bin.h"
#include "tests/testlib.h"

static unsigned seed;

static void init_seed(void)
{
    const char *env = getenv("COLSTAT_SEED");
    seed = env ? (unsigned)strtoul(env, NULL, 10)
               : (unsigned)time(NULL) ^ (unsigned)getpid();
    fprintf(stderr, "test_report: COLSTAT_SEED=%u\n", seed);
    srand(seed);
}

static int quick(void)
{
    return getenv("COLSTAT_TEST_QUICK") != NULL;
}

static uint64_t rand64(void)
{
    uint64_t r = 0;
    for (int i = 0; i < 4; i++)
        r = r << 16 ^ (uint64_t)(rand() & 0xFFFF);
    return r;
}

static double bits_double(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

/* Doubles of every kind: any bit pattern, short decimals, integers,
 * subnormals. */
static double random_double(void)
{
    switch (rand() % 5) {
    case 0:
    case 1: {
        double d;
        do
            d = bits_double(rand64());
        while (isnan(d));
        return d;
    }
    case 2: /* a short decimal */
        return (double)(rand() % 100000 - 50000) / pow(10, rand() % 12);
    case 3: /* an integer, maybe past 2^53 */
        return ldexp((double)(rand64() >> 11), rand() % 20) *
               (rand() % 2 ? 1 : -1);
    default: /* subnormal or tiny */
        return bits_double(rand64() >> (rand() % 52 + 12));
    }
}

/* JSON number grammar (RFC 8259, section 6). */
static int is_json_number(const char *s)
{
    if (*s == '-')
        s++;
    if (*s == '0')
        s++;
    else if (*s >= '1' && *s <= '9')
        while (*s >= '0' && *s <= '9')
            s++;
    else
        return 0;
    if (*s == '.') {
        if (!(*++s >= '0' && *s <= '9'))
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!(*s >= '0' && *s <= '9'))
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0';
}

/* Significant digits of a finite decimal string. */
static int sig_digits(const char *s)
{
    char d[64] = {0};
    int n = 0;
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9')
            d[n++] = *s;
    int a = 0;
    while (a < n && d[a] == '0')
        a++;
    while (n > a && d[n - 1] == '0')
        n--;
    return n > a ? n - a : 1;
}

static void check_shortest(double v)
{
    char buf[32];
    int len = format_double(buf, sizeof buf, v);
    ck_assert_int_eq(len, (int)strlen(buf));
    ck_assert_msg(len < 32, "%s too long", buf);
    ck_assert_msg(is_json_number(buf), "%a printed as %s", v, buf);
    double back = strtod(buf, NULL);
    ck_assert_msg(back == v && !signbit(back) == !signbit(v),
                  "%a printed as %s reads back as %a", v, buf, back);
    int p = sig_digits(buf);
    if (p > 1 && v != 0) {
        char tmp[40];
        snprintf(tmp, sizeof tmp, "%.*e", p - 2, v);
        ck_assert_msg(strtod(tmp, NULL) != v, "%a: %s is shorter than %s", v,
                      tmp, buf);
    }
}

START_TEST(format_double_random)
{
    int n = quick() ? 20000 : 300000;
    for (int i = 0; i < n; i++)
        check_shortest(random_double());
    static const double edge[] = {
        DBL_MAX, -DBL_MAX, DBL_MIN, 4.9e-324,           DBL_EPSILON, 1e15,
        1e16,    1e-5,     1e-6,    9007199254740993.0, 0.3,         2.0 / 3};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
        check_shortest(edge[i]);
}
END_TEST

/* The definition, tried digit by digit: the fewest p <= max_p whose
 * correctly rounded p-digit decimal reads back as v, else v rounded to
 * max_p digits; printed as format_decimal prints digits. */
static void reference_digits(double v, int max_p, char *out, size_t cap)
{
    char tmp[40], d[24];
    int p = 1;
    for (; p < max_p; p++) {
        snprintf(tmp, sizeof tmp, "%.*e", p - 1, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    snprintf(tmp, sizeof tmp, "%.*e", p - 1, v);
    const char *s = tmp + (tmp[0] == '-');
    int n = 0;
    for (; *s != 'e'; s++)
        if (*s != '.')
            d[n++] = *s;
    d[n] = '\0';
    format_decimal(out, cap, v < 0, d, atoi(s + 1));
}

/* Decimals of 1 to 17 random digits at random exponents (subnormal ones
 * too), with and without a limit on the digits, against the definition. */
START_TEST(format_double_short_decimals)
{
    int n = quick() ? 20000 : 200000;
    for (int i = 0; i < n; i++) {
        char text[64], got[40], want[40];
        int p = 1 + rand() % 17, x = rand() % 640 - 330;
        int at = snprintf(text, sizeof text, "%s%d.", rand() % 2 ? "-" : "",
                          1 + rand() % 9);
        for (int k = 1; k < p; k++)
            text[at++] = (char)('0' + rand() % 10);
        snprintf(text + at, sizeof text - (size_t)at, "e%d", x);
        double v = strtod(text, NULL);
        if (v == 0 || isinf(v))
            continue;
        int lim = rand() % 3 ? 0 : 1 + rand() % 17;
        format_double_digits(got, sizeof got, v, lim);
        reference_digits(v, lim ? lim : 17, want, sizeof want);
        ck_assert_msg(!strcmp(got, want), "%s (%a), %d digits: %s, not %s",
                      text, v, lim, got, want);
    }
}
END_TEST

START_TEST(format_double_forms)
{
    static const struct {
        double v;
        const char *s;
    } cases[] = {
        {0.1, "0.1"},
        {1e300, "1e+300"},
        {-0.0, "-0"},
        {0.0, "0"},
        {INFINITY, "inf"},
        {-INFINITY, "-inf"},
        {NAN, "nan"},
        {100, "100"},
        {1e15, "1000000000000000"},
        {1e16, "1e+16"},
        {1e-5, "0.00001"},
        {1e-6, "1e-6"},
        {4.9e-324, "5e-324"},
        {-1.5, "-1.5"},
        {123.456, "123.456"},
        {1.7976931348623157e308, "1.7976931348623157e+308"},
        {2.5e-7, "2.5e-7"},
        {0.30000000000000004, "0.30000000000000004"},
    };
    char buf[32];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        format_double(buf, sizeof buf, cases[i].v);
        ck_assert_str_eq(buf, cases[i].s);
    }
}
END_TEST

/* ---- random summaries ---- */

enum { MAXCOLS = 6, NAME = 128 };

enum { MAXQ = 4 };

typedef struct sample {
    report_col cols[MAXCOLS];
    hist hists[MAXCOLS];
    qres med[MAXCOLS], qs[MAXCOLS][MAXQ];
    qfrac qf[MAXQ];
    size_t nq;
    char names[MAXCOLS][NAME];
    char expect_utf8[MAXCOLS][NAME * 2]; /* name as JSON must carry it */
    int ncols;
    unsigned what;
    uint64_t rows;
} sample;

static const char *const pieces[] = {
    "a",
    "price",
    " ",
    "\"",
    "\\",
    "\x01",
    "\n",
    "\t",
    "\x1f",
    "\x7f",
    "\xc3\xa9",
    "\xe2\x82\xac",
    "\xf0\x9f\x98\x80",
    "\xe4\xb8\xad", /* a wide CJK character */
    "e\xcc\x81",    /* a combining accent */
    "\xff",
    "\xc3",
    "/",
    ",",
};

static void random_name(char *name, char *expect)
{
    int n = rand() % 6;
    name[0] = expect[0] = '\0';
    for (int i = 0; i < n; i++) {
        const char *p = pieces[rand() % (sizeof pieces / sizeof pieces[0])];
        strcat(name, p);
        /* Bytes that are not UTF-8 become U+FFFD. */
        strcat(expect,
               !strcmp(p, "\xff") || !strcmp(p, "\xc3") ? "\xef\xbf\xbd" : p);
    }
}

static double random_value(void)
{
    int k = rand() % 20;
    if (k == 0)
        return INFINITY;
    if (k == 1)
        return -INFINITY;
    if (k == 2)
        return NAN;
    return random_double();
}

static void random_hist(hist *h, double lo, double hi)
{
    h->nbins = 1 + rand() % (rand() % 4 ? 12 : 300);
    h->lo = lo;
    h->hi = hi;
    h->underflow = rand() % 3 ? 0 : (uint64_t)rand();
    h->overflow = rand() % 3 ? 0 : (uint64_t)rand();
    h->bins = calloc((size_t)h->nbins, sizeof *h->bins);
    ck_assert_ptr_nonnull(h->bins);
    for (int i = 0; i < h->nbins; i++)
        h->bins[i] = rand() % 4 ? (uint64_t)(rand() % 1000) : rand64() >> 20;
}

static void random_summary(col_summary *s)
{
    memset(s, 0, sizeof *s);
    static const uint64_t small[] = {0, 1, 2, 3};
    s->count = rand() % 3 ? rand64() >> 12 : small[rand() % 4];
    s->missing = rand() % 2 ? 0 : rand64() >> 16;
    s->invalid = rand() % 2 ? 0 : (uint64_t)rand();
    s->nan = rand() % 2 ? 0 : (uint64_t)rand();
    s->sum = s->count ? random_value() : 0;
    s->mean = s->count ? random_value() : NAN;
    s->std = s->count > 1 ? random_value() : NAN;
    s->min = s->count ? random_value() : NAN;
    s->max = s->count ? random_value() : NAN;
    s->min_row = s->count ? rand64() >> 14 : 0;
    s->max_row = s->count ? rand64() >> 14 : 0;
    if (rand() % 3 == 0) {
        s->is_int = 1;
        snprintf(s->sum_int, sizeof s->sum_int, "%s%llu%018llu",
                 rand() % 2 ? "-" : "", (unsigned long long)(rand64() >> 2),
                 (unsigned long long)(rand64() % 1000000000000000000ull));
        if (rand() % 2)
            snprintf(s->sum_int, sizeof s->sum_int, "%d",
                     rand() - RAND_MAX / 2);
        /* extremes of the integer view: up to 2^64 in magnitude */
        snprintf(s->min_int, sizeof s->min_int, "-%llu",
                 (unsigned long long)(rand64() >> (rand() % 64)));
        snprintf(s->max_int, sizeof s->max_int, "%llu",
                 (unsigned long long)(rand64() >> (rand() % 64)));
        if (rand() % 4 == 0)
            strcpy(s->min_int, "-18446744073709551616");
    }
}

/* A quantile: none, a double (any, NaN printing null), or in an integer
 * column sometimes an exact integer. */
static void random_qres(qres *q, const col_summary *s)
{
    memset(q, 0, sizeof *q);
    q->has_value = s->count && rand() % 5;
    q->value = random_value();
    if (s->is_int && rand() % 2) {
        int64_t v = (int64_t)(rand64() >> (2 + rand() % 60));
        v = rand() % 2 ? -v : v;
        q->is_int = 1;
        q->exact.d = (double)v;
        q->exact.r = (int32_t)(v - (int64_t)q->exact.d);
        q->value = q->exact.d;
    }
}

static void random_quantiles(sample *x, int i)
{
    report_col *c = &x->cols[i];
    random_qres(&x->med[i], &c->s);
    for (size_t k = 0; k < x->nq; k++)
        random_qres(&x->qs[i][k], &c->s);
    c->median = (x->what & STAT_MEDIAN) ? &x->med[i] : NULL;
    c->quant = x->qs[i];
    c->qf = x->qf;
    c->nquant = (x->what & STAT_QUANTILES) ? x->nq : 0;
}

static void random_sample(sample *x)
{
    memset(x, 0, sizeof *x);
    x->ncols = rand() % (MAXCOLS + 1);
    x->what = (unsigned)rand() & (STAT_ALL | STAT_QUANTILES);
    x->rows = rand64() >> 10;
    x->nq = (x->what & STAT_QUANTILES) ? 1 + (size_t)(rand() % MAXQ) : 0;
    for (size_t k = 0; k < x->nq; k++) /* distinct: 0, 0.k1, 0.k2 ... */
        x->qf[k] =
            (qfrac){k ? 10 * k + 1 + (uint64_t)(rand() % 9) : 0, k ? 2 : 0};
    for (int i = 0; i < x->ncols; i++) {
        report_col *c = &x->cols[i];
        random_name(x->names[i], x->expect_utf8[i]);
        c->name = x->names[i];
        c->index = 1 + rand() % 1000;
        random_summary(&c->s);
        random_quantiles(x, i);
        if (x->what & STAT_HIST) {
            double lo = c->s.count ? -fabs(random_double()) : NAN;
            double hi = c->s.count ? fabs(random_double()) + 1 : NAN;
            if (isinf(lo))
                lo = -1;
            random_hist(&x->hists[i], lo, hi);
            c->h = &x->hists[i];
        }
    }
}

static void free_sample(sample *x)
{
    for (int i = 0; i < x->ncols; i++)
        free(x->hists[i].bins);
}

static char *render_style(const sample *x, out_format fmt,
                          const report_style *st)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(
        report_write(f, fmt, x->what, x->rows, x->cols, x->ncols, st), 0);
    fclose(f);
    return text;
}

/* The wide table in shortest form, bars in UTF-8. */
static char *render(const sample *x, out_format fmt, int width)
{
    report_style st = {width, 0, LAYOUT_WIDE, 0, 1, 0, 0};
    return render_style(x, fmt, &st);
}

/* ---- JSON, read back by Python ---- */

/* Python prints each column as tab-separated tokens: the name's UTF-8 in
 * hex, the index, then key=value in key order; ints as i:N, floats as
 * f:BITS (their IEEE bits), strings as s:TEXT, null as null. */
static const char py_script[] =
    "import json,struct,sys\n"
    "def pairs(p):\n"
    "  k=[a for a,_ in p]\n"
    "  assert len(k)==len(set(k)),k\n"
    "  return dict(p)\n"
    "def v(x):\n"
    "  if x is None: return 'null'\n"
    "  assert not isinstance(x,bool)\n"
    "  if isinstance(x,str): return 's:'+x\n"
    "  if isinstance(x,int): return 'i:%d'%x\n"
    "  return 'f:%d'%struct.unpack('<Q',struct.pack('<d',x))[0]\n"
    "for a in sys.argv[1:]:\n"
    " d=json.load(open(a,encoding='utf-8'),object_pairs_hook=pairs)\n"
    " assert list(d)==['schema_version','rows','columns'],list(d)\n"
    " assert d['schema_version']==1\n"
    " print('rows',v(d['rows']))\n"
    " for c in d['columns']:\n"
    "  o=[c['name'].encode('utf-8').hex(),v(c['index'])]\n"
    "  for k in sorted(c):\n"
    "    x=c[k]\n"
    "    if k in('name','index'): continue\n"
    "    if k in('min','max') and x is not None:\n"
    "      assert sorted(x)==['row','value']\n"
    "      o.append('%s=%s@%s'%(k,v(x['value']),v(x['row'])))\n"
    "    elif k=='quantiles':\n"
    "      o.append('quantiles='+' '.join('%s:%s'%(q,v(y)) for q,y in "
    "x.items()))\n"
    "    elif k=='hist':\n"
    "      assert sorted(x)==['bins','hi','lo','overflow','underflow']\n"
    "      o.append('hist=%s,%s,%s,%s,%s'%(v(x['lo']),v(x['hi']),"
    "v(x['underflow']),v(x['overflow']),' '.join(v(b) for b in x['bins'])))\n"
    "    else: o.append('%s=%s'%(k,v(x)))\n"
    "  print('\\t'.join(o))\n";

typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static void put(buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (b->len + (size_t)n + 1 > b->cap) {
        b->cap = (b->len + (size_t)n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        ck_assert_ptr_nonnull(b->p);
    }
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* How Python must see double v: null, a string, an int or a float. */
static void expect_double(buf *b, double v, int exists)
{
    char text[32];
    if (!exists) {
        put(b, "null");
        return;
    }
    if (isnan(v)) {
        put(b, "s:nan");
        return;
    }
    if (isinf(v)) {
        put(b, v < 0 ? "s:-inf" : "s:inf");
        return;
    }
    format_double(text, sizeof text, v);
    if (!strpbrk(text, ".e")) { /* JSON int: -0 reads as 0 */
        put(b, "i:%s", strcmp(text, "-0") ? text : "0");
        return;
    }
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    put(b, "f:%llu", (unsigned long long)bits);
}

static void expect_u64(buf *b, const char *key, uint64_t v)
{
    put(b, "\t%s=i:%llu", key, (unsigned long long)v);
}

static void expect_extremum(buf *b, const char *key, const col_summary *s,
                            int is_max)
{
    put(b, "\t%s=", key);
    if (!s->count) {
        put(b, "null");
        return;
    }
    const char *text = is_max ? s->max_int : s->min_int;
    if (s->is_int)
        put(b, "i:%s", strcmp(text, "-0") ? text : "0");
    else
        expect_double(b, is_max ? s->max : s->min, 1);
    put(b, "@i:%llu", (unsigned long long)(is_max ? s->max_row : s->min_row));
}

static void expect_hist(buf *b, const hist *h)
{
    put(b, "\thist=");
    expect_double(b, h->lo, !isnan(h->lo));
    put(b, ",");
    expect_double(b, h->hi, !isnan(h->hi));
    put(b, ",i:%llu,i:%llu,", (unsigned long long)h->underflow,
        (unsigned long long)h->overflow);
    for (int i = 0; i < h->nbins; i++)
        put(b, i ? " i:%llu" : "i:%llu", (unsigned long long)h->bins[i]);
}

/* A quantile as Python reads it. */
static void expect_quantile(buf *b, const col_summary *s, const qres *q)
{
    if (q->has_value && s->is_int && q->is_int) {
        put(b, "i:%lld", (long long)((int64_t)q->exact.d + q->exact.r));
        return;
    }
    expect_double(b, q->value, q->has_value && !isnan(q->value));
}

/* Keys in sorted order: count hist invalid max mean median min missing nan
 * quantiles std sum type. */
static void expect_column(buf *b, unsigned what, const report_col *c,
                          const char *utf8)
{
    const col_summary *s = &c->s;
    for (const unsigned char *p = (const unsigned char *)utf8; *p; p++)
        put(b, "%02x", *p);
    put(b, "\ti:%d", c->index);
    if (what & STAT_COUNT)
        expect_u64(b, "count", s->count);
    if (what & STAT_HIST)
        expect_hist(b, c->h);
    expect_u64(b, "invalid", s->invalid);
    if (what & STAT_MAX)
        expect_extremum(b, "max", s, 1);
    if (what & STAT_MEAN) {
        put(b, "\tmean=");
        expect_double(b, s->mean, s->count > 0);
    }
    if (what & STAT_MEDIAN) {
        put(b, "\tmedian=");
        expect_quantile(b, s, c->median);
    }
    if (what & STAT_MIN)
        expect_extremum(b, "min", s, 0);
    expect_u64(b, "missing", s->missing);
    expect_u64(b, "nan", s->nan);
    if (what & STAT_QUANTILES) {
        put(b, "\tquantiles=");
        for (size_t k = 0; k < c->nquant; k++) {
            char q[QLIST_TEXT_MAX];
            qlist_text(c->qf[k], q, sizeof q);
            put(b, k ? " %s:" : "%s:", q);
            expect_quantile(b, s, &c->quant[k]);
        }
    }
    if (what & STAT_STD) {
        put(b, "\tstd=");
        expect_double(b, s->std, s->count > 1);
    }
    if (what & STAT_SUM) {
        put(b, "\tsum=");
        if (!s->count) /* the sum of no value is undefined */
            put(b, "null");
        else if (s->is_int)
            put(b, "i:%s",
                s->sum_int[0] == '-' && !strcmp(s->sum_int, "-0") ? "0"
                                                                  : s->sum_int);
        else
            expect_double(b, s->sum, 1);
    }
    put(b, "\ttype=s:number"); /* every column here holds numbers */
    put(b, "\n");
}

static int have_python(void)
{
    return system("python3 -c 'import json' >/dev/null 2>&1") == 0;
}

/* Many documents, one Python run: each prints "rows ..." first. */
START_TEST(json_parsed_back)
{
    if (!have_python()) {
        fprintf(stderr, "test_report: no python3, JSON read-back skipped\n");
        return;
    }
    enum { DOCS = 200 };
    int n = quick() ? 30 : DOCS;
    char dir[] = "/tmp/colstat_json_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    buf cmd = {0}, want = {0}, got = {0};
    put(&cmd, "python3 %s/check.py", dir);
    char path[64];
    snprintf(path, sizeof path, "%s/check.py", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(py_script, f);
    fclose(f);
    for (int t = 0; t < n; t++) {
        sample x;
        random_sample(&x);
        char *text = render(&x, FMT_JSON, 80);
        snprintf(path, sizeof path, "%s/%d.json", dir, t);
        f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fputs(text, f);
        fclose(f);
        put(&cmd, " %s", path);
        put(&want, "rows i:%llu\n", (unsigned long long)x.rows);
        for (int i = 0; i < x.ncols; i++)
            expect_column(&want, x.what, &x.cols[i], x.expect_utf8[i]);
        free(text);
        free_sample(&x);
    }
    FILE *p = popen(cmd.p, "r");
    ck_assert_ptr_nonnull(p);
    char line[1 << 16];
    while (fgets(line, sizeof line, p))
        put(&got, "%s", line);
    ck_assert_msg(pclose(p) == 0, "python rejected a document in %s", dir);
    /* Compare document by document, for a readable failure. */
    const char *g = got.p, *w = want.p;
    for (int t = 0; t < n; t++) {
        const char *gn = strstr(g + 1, "rows "), *wn = strstr(w + 1, "rows ");
        size_t gl = gn ? (size_t)(gn - g) : strlen(g);
        size_t wl = wn ? (size_t)(wn - w) : strlen(w);
        ck_assert_msg(gl == wl && !memcmp(g, w, gl),
                      "%s/%d.json: python read\n%.*s\nexpected\n%.*s", dir, t,
                      (int)gl, g, (int)wl, w);
        g += gl;
        w += wl;
        snprintf(path, sizeof path, "%s/%d.json", dir, t);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/check.py", dir);
    unlink(path);
    rmdir(dir);
    free(cmd.p);
    free(want.p);
    free(got.p);
}
END_TEST

START_TEST(json_fixed)
{
    uint64_t bins[2] = {3901, 3877};
    hist h = {2, 0.01, 9.99, 0, 0, bins};
    report_col c = {"pr\"ice\x01", 2, {0},  &h,         NULL, NULL,
                    NULL,          0, NULL, COL_NUMBER, NULL};
    c.s.count = 999000;
    c.s.missing = 1000;
    c.s.sum = 4995012.75;
    c.s.mean = 5.0000127627627625;
    c.s.std = INFINITY;
    c.s.min = 0.01;
    c.s.min_row = 17;
    c.s.max = 9.99;
    c.s.max_row = 4242;
    qres med = {1, 5.0, 0, {5.0, 0}, 0, {0, 0}};
    qres qs[3] = {{1, 8.99, 0, {0, 0}, 0, {0, 0}},
                  {1, INFINITY, 0, {0, 0}, 0, {0, 0}},
                  {0, 0, 0, {0, 0}, 0, {0, 0}}};
    qfrac qf[3] = {{9, 1}, {99, 2}, {1, 0}};
    c.median = &med;
    c.quant = qs;
    c.qf = qf;
    c.nquant = 3;
    sample x = {0};
    x.cols[0] = c;
    x.ncols = 1;
    x.what = STAT_ALL | STAT_QUANTILES;
    x.rows = 1000000;
    char *text = render(&x, FMT_JSON, 80);
    const char *want =
        "{\n"
        "  \"schema_version\": 1,\n"
        "  \"rows\": 1000000,\n"
        "  \"columns\": [\n"
        "    {\n"
        "      \"name\": \"pr\\\"ice\\u0001\", \"index\": 2, \"type\": "
        "\"number\",\n"
        "      \"count\": 999000, \"missing\": 1000, \"invalid\": 0, "
        "\"nan\": 0,\n"
        "      \"sum\": 4995012.75, \"mean\": 5.000012762762762, "
        "\"std\": \"inf\",\n"
        "      \"min\": {\"value\": 0.01, \"row\": 17}, \"max\": {\"value\": "
        "9.99, \"row\": 4242},\n"
        "      \"median\": 5, \"quantiles\": {\"0.9\": 8.99, \"0.99\": "
        "\"inf\", \"1\": null},\n"
        "      \"hist\": {\"lo\": 0.01, \"hi\": 9.99, \"bins\": [3901, 3877], "
        "\"underflow\": 0, \"overflow\": 0}\n"
        "    }\n"
        "  ]\n"
        "}\n";
    ck_assert_str_eq(text, want);
    free(text);
    x.ncols = 0;
    text = render(&x, FMT_JSON, 80);
    ck_assert_str_eq(text, "{\n  \"schema_version\": 1,\n  \"rows\": "
                           "1000000,\n  \"columns\": []\n}\n");
    free(text);
}
END_TEST

/* ---- TSV and CSV ---- */

static int expected_fields(unsigned what)
{
    int n = 5; /* column index missing invalid nan */
    n += !!(what & STAT_COUNT) + !!(what & STAT_SUM) + !!(what & STAT_MEAN) +
         !!(what & STAT_STD) + 2 * !!(what & STAT_MIN) +
         2 * !!(what & STAT_MAX) + 5 * !!(what & STAT_HIST) +
         !!(what & STAT_MEDIAN);
    return n;
}

/* Splits one CSV record (RFC 4180) at *p; returns its fields, the first
 * unquoted into first. */
static int csv_record(const char **p, char *first, size_t cap)
{
    int nf = 0;
    const char *s = *p;
    for (;;) {
        size_t n = 0;
        if (*s == '"') {
            for (s++;; s++) {
                ck_assert_msg(*s, "unterminated quote");
                if (*s == '"' && s[1] == '"')
                    s++;
                else if (*s == '"') {
                    s++;
                    break;
                }
                if (nf == 0 && n + 1 < cap)
                    first[n++] = *s;
            }
        } else {
            for (; *s && *s != ',' && *s != '\n'; s++) {
                ck_assert_msg(*s != '"', "stray quote");
                if (nf == 0 && n + 1 < cap)
                    first[n++] = *s;
            }
        }
        if (nf == 0)
            first[n] = '\0';
        nf++;
        if (*s == ',') {
            s++;
            continue;
        }
        ck_assert_int_eq(*s, '\n');
        *p = s + 1;
        return nf;
    }
}

static void tsv_unescape(char *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\') {
            *out++ = s[i];
            continue;
        }
        char c = s[++i];
        *out++ = c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c;
    }
    *out = '\0';
}

START_TEST(delimited)
{
    int n = quick() ? 100 : 600;
    for (int t = 0; t < n; t++) {
        sample x;
        random_sample(&x);
        /* the quantiles' headings come from the first column */
        int want = expected_fields(x.what) + (x.ncols ? (int)x.nq : 0);
        char *csv = render(&x, FMT_CSV, 80);
        const char *p = csv;
        char first[NAME * 2];
        ck_assert_int_eq(csv_record(&p, first, sizeof first), want);
        ck_assert_str_eq(first, "column");
        for (int i = 0; i < x.ncols; i++) {
            ck_assert_int_eq(csv_record(&p, first, sizeof first), want);
            ck_assert_str_eq(first, x.names[i]);
        }
        ck_assert_int_eq(*p, '\0');
        free(csv);

        char *tsv = render(&x, FMT_TSV, 80);
        char *line = tsv;
        for (int i = -1; i < x.ncols; i++) {
            char *nl = strchr(line, '\n');
            ck_assert_ptr_nonnull(nl);
            int nf = 1;
            for (char *q = line; q < nl; q++)
                nf += *q == '\t';
            ck_assert_int_eq(nf, want);
            size_t nlen = strcspn(line, "\t");
            tsv_unescape(first, line, nlen);
            ck_assert_str_eq(first, i < 0 ? "column" : x.names[i]);
            line = nl + 1;
        }
        ck_assert_int_eq(*line, '\0');
        free(tsv);
        free_sample(&x);
    }
}
END_TEST

START_TEST(delimited_fixed)
{
    sample x = {0};
    x.ncols = 2;
    x.what = STAT_COUNT | STAT_SUM | STAT_MIN | STAT_STD;
    x.cols[0].name = "a,b";
    x.cols[0].index = 3;
    x.cols[0].s.count = 2;
    x.cols[0].s.is_int = 1;
    strcpy(x.cols[0].s.sum_int, "123456789012345678901");
    strcpy(x.cols[0].s.min_int, "-9007199254740993");
    x.cols[0].s.std = 0.5;
    x.cols[0].s.min = -9007199254740992.0;
    x.cols[0].s.min_row = 9;
    x.cols[1].name = "e";
    x.cols[1].index = 4;
    x.cols[1].s.missing = 5;
    x.cols[1].s.std = NAN;
    x.cols[1].s.min = NAN;
    char *csv = render(&x, FMT_CSV, 80);
    ck_assert_str_eq(csv, "column,index,count,sum,std,min,min_row,missing,"
                          "invalid,nan\n"
                          "\"a,b\",3,2,123456789012345678901,0.5,"
                          "-9007199254740993,9,0,0,0\n"
                          "e,4,0,,,,,5,0,0\n");
    free(csv);
}
END_TEST

/* ---- the table ---- */

/* Terminal columns, as the C library's wcwidth has them in a UTF-8
 * locale (an independent table); a byte that is no UTF-8 counts one. */
static int display_width(const char *s, size_t n)
{
    static int ready;
    if (!ready) {
        ck_assert_msg(setlocale(LC_CTYPE, "C.UTF-8") != NULL,
                      "no C.UTF-8 locale");
        ready = 1;
    }
    mbstate_t st;
    memset(&st, 0, sizeof st);
    int w = 0;
    for (size_t i = 0; i < n;) {
        wchar_t c;
        size_t len = mbrtowc(&c, s + i, n - i, &st);
        if (len == 0 || len > n - i) {
            memset(&st, 0, sizeof st);
            w++;
            i++;
            continue;
        }
        int cw = wcwidth(c);
        w += cw < 0 ? 1 : cw;
        i += len;
    }
    return w;
}

START_TEST(table_fixed)
{
    sample x = {0};
    x.ncols = 3;
    x.what = STAT_DEFAULT;
    const char *names[] = {"price", "qty", "d\xc3\xa9j\xc3\xa0"};
    const double mins[] = {0.01, -3, NAN}, maxs[] = {9.99, 120, NAN};
    for (int i = 0; i < 3; i++) {
        report_col *c = &x.cols[i];
        c->name = names[i];
        c->index = 2 * i + 1;
        c->s.count = i == 2 ? 0 : 1000 * (uint64_t)(i + 1);
        c->s.sum = i == 0 ? 5123.25 : 0;
        c->s.mean = i == 0 ? 5.12325 : i == 1 ? 0.5 : NAN;
        c->s.is_int = i == 1;
        strcpy(c->s.sum_int, "1000");
        strcpy(c->s.min_int, "-3");
        strcpy(c->s.max_int, "120");
        c->s.min = mins[i];
        c->s.max = maxs[i];
        c->s.min_row = 4;
        c->s.max_row = 12345;
    }
    x.cols[2].s.invalid = 7;
    char *text = render(&x, FMT_TABLE, 80);
    const char *want =
        "#  column  count      sum     mean   min  min_row   max  max_row  "
        "invalid\n"
        "1  price    1000  5123.25  5.12325  0.01        4  9.99    12345  "
        "      0\n"
        "3  qty      2000     1000      0.5    -3        4   120    12345  "
        "      0\n"
        "5  d\xc3\xa9j\xc3\xa0        0        -        -     -        -     "
        "-        -        7\n";
    ck_assert_str_eq(text, want);
    free(text);
}
END_TEST

/* Every table line has the same width and the right-aligned columns end
 * where the header's do; bars stay within the width; the rows' counts
 * add up to the histogram's. */
START_TEST(table_random)
{
    int n = quick() ? 50 : 300;
    for (int t = 0; t < n; t++) {
        sample x;
        random_sample(&x);
        int width = 40 + rand() % 120;
        char *text = render(&x, FMT_TABLE, width);
        char *line = text, *nl = strchr(line, '\n');
        ck_assert_ptr_nonnull(nl);
        int w0 = display_width(line, (size_t)(nl - line));
        /* The name, when last, is not padded: there only the names must
         * start where the title does. */
        int name_last = !strncmp(nl - 6, "column", 6);
        int name_at = (int)(strstr(line, "column") - line);
        for (int i = 0; i < x.ncols; i++) {
            line = nl + 1;
            nl = strchr(line, '\n');
            ck_assert_ptr_nonnull(nl);
            if (!name_last) {
                ck_assert_int_eq(display_width(line, (size_t)(nl - line)), w0);
                continue;
            }
            ck_assert_int_eq((int)strspn(line, " 0123456789"),
                             name_at + (int)strspn(line + name_at, " "));
            ck_assert(line[name_at - 1] == ' ' && line[name_at - 2] == ' ');
        }
        for (int i = 0; i < x.ncols && (x.what & STAT_HIST); i++) {
            const hist *h = x.cols[i].h;
            line = nl + 1;
            ck_assert_int_eq(*line, '\n'); /* blank line before each */
            nl = strchr(line + 1, '\n');   /* the title */
            /* its parts past the width, on lines of their own */
            while (nl[1] == ' ' && nl[2] == ' ' && nl[3] != '[' && nl[3] != '(')
                nl = strchr(nl + 1, '\n');
            uint64_t total = h->underflow + h->overflow, seen = 0;
            for (int b = 0; b < h->nbins; b++)
                total += h->bins[b];
            int rows = 0;
            while (nl[1] == ' ') {
                line = nl + 1;
                nl = strchr(line, '\n');
                int w = display_width(line, (size_t)(nl - line));
                const char *b = strstr(line, "\xe2\x96");
                int bw = b && b < nl ? display_width(b, (size_t)(nl - b)) : 0;
                /* Past the width only when the labels leave no room. */
                ck_assert_msg(w <= width || bw <= 10, "bar line %d > %d", w,
                              width);
                const char *close = strpbrk(line, ")]");
                if (strncmp(line, "  (no values)", 13) != 0)
                    seen += strtoull(close + 1, NULL, 10);
                rows++;
            }
            if (x.cols[i].s.count) {
                ck_assert_msg(seen == total, "rows add to %llu, not %llu:\n%s",
                              (unsigned long long)seen,
                              (unsigned long long)total, text);
                ck_assert_int_le(rows, 42);
            }
        }
        ck_assert_int_eq(nl[1], '\0');
        free(text);
        free_sample(&x);
    }
}
END_TEST

START_TEST(table_bars)
{
    uint64_t bins[256];
    for (int i = 0; i < 256; i++)
        bins[i] = (uint64_t)(i < 128 ? i : 255 - i) * 10;
    hist h = {256, -1, 1, 0, 3, bins};
    report_col c = {"x",  1, {0},  &h,         NULL, NULL,
                    NULL, 0, NULL, COL_NUMBER, NULL};
    c.s.count = 1000;
    sample x = {0};
    x.cols[0] = c;
    x.ncols = 1;
    x.what = STAT_HIST;
    char *text = render(&x, FMT_TABLE, 60);
    ck_assert_msg(strstr(text, "x (#1): 256 bins over [-1, 1], 8 bins per row"),
                  "%s", text);
    ck_assert_msg(strstr(text, "  [-1, -0.9375)  "), "%s", text);
    ck_assert_msg(strstr(text, "  [0.9375, 1]  "), "%s", text);
    ck_assert_msg(strstr(text, "  (1, inf]  "), "%s", text);
    /* The fullest row, [-0.0625, 0), has the longest bar: 60 columns
     * less 2 + 17 (label) + 2 + 4 (count) + 2 + 1 leave 32 cells. */
    char full[160] = "[-0.0625, 0)       9880  ";
    for (int i = 0; i < 32; i++)
        strcat(full, "\u2588");
    strcat(full, "\n");
    ck_assert_msg(strstr(text, full), "%s", text);
    free(text);
}
END_TEST

/* ---- digits, layouts, widths, ASCII, labels ---- */

static void one_column(sample *x, const char *name, double sum)
{
    memset(x, 0, sizeof *x);
    x->ncols = 1;
    x->what = STAT_DEFAULT;
    report_col *c = &x->cols[0];
    c->name = name;
    c->index = 1;
    c->s.count = 3;
    c->s.sum = sum;
    c->s.mean = sum / 3;
    c->s.min = 1.1;
    c->s.max = 0.1 + 0.2;
    c->s.min_row = 1;
    c->s.max_row = 2;
}

/* --json-bigint=string: integers past +-2^53 (not at it) as strings, the
 * rest as numbers; the default keeps them all numbers. */
START_TEST(json_bigint)
{
    sample x = {0};
    one_column(&x, "a", 1);
    report_col *c = &x.cols[0];
    c->s.is_int = 1;
    strcpy(c->s.sum_int, "9007199254740992");
    strcpy(c->s.min_int, "-9007199254740993");
    strcpy(c->s.max_int, "18446744073709551615");
    report_style st = {80, 0, LAYOUT_AUTO, 0, 1, 1, 0};
    char *text = render_style(&x, FMT_JSON, &st);
    ck_assert_msg(strstr(text, "\"sum\": 9007199254740992,") &&
                      strstr(text, "{\"value\": \"-9007199254740993\", ") &&
                      strstr(text, "{\"value\": \"18446744073709551615\", ") &&
                      strstr(text, "\"count\": 3,"),
                  "%s", text);
    free(text);
    st.bigint_string = 0;
    text = render_style(&x, FMT_JSON, &st);
    ck_assert_msg(strstr(text, "{\"value\": -9007199254740993, ") &&
                      strstr(text, "{\"value\": 18446744073709551615, "),
                  "%s", text);
    free(text);
}
END_TEST

START_TEST(table_digits)
{
    sample x;
    one_column(&x, "v", 75.18900000000001);
    report_style st = {200, 0, LAYOUT_WIDE, 15, 1, 0, 0};
    char *text = render_style(&x, FMT_TABLE, &st);
    ck_assert_msg(strstr(text, " 75.189 ") && strstr(text, " 0.3 "), "%s",
                  text);
    free(text);
    st.digits = 0; /* the shortest exact form */
    text = render_style(&x, FMT_TABLE, &st);
    ck_assert_msg(strstr(text, " 75.18900000000001 ") &&
                      strstr(text, " 0.30000000000000004 "),
                  "%s", text);
    free(text);
    st.digits = 3;
    text = render_style(&x, FMT_JSON, &st);
    ck_assert_msg(strstr(text, "\"sum\": 75.2,") && strstr(text, "25.1"), "%s",
                  text);
    free(text);
    /* an exact integer stays exact */
    x.cols[0].s.is_int = 1;
    strcpy(x.cols[0].s.sum_int, "12345678901234567890");
    strcpy(x.cols[0].s.min_int, "1");
    strcpy(x.cols[0].s.max_int, "12345678901234567889");
    text = render_style(&x, FMT_TSV, &st);
    ck_assert_msg(strstr(text, "\t12345678901234567890\t"), "%s", text);
    free(text);
    /* against strtod: N digits, correctly rounded, nothing longer */
    for (int i = 0; i < (quick() ? 2000 : 50000); i++) {
        double v = random_double();
        int p = 1 + rand() % 17;
        char buf[40], want[40];
        format_double_digits(buf, sizeof buf, v, p);
        snprintf(want, sizeof want, "%.*e", p - 1, v);
        double back = strtod(buf, NULL), shortest;
        char sh[40];
        format_double(sh, sizeof sh, v);
        shortest = strtod(sh, NULL);
        ck_assert_msg(back == strtod(want, NULL) || back == shortest,
                      "%a to %d digits: %s", v, p, buf);
        ck_assert_int_le(sig_digits(buf), p);
    }
}
END_TEST

/* Every line of a long block is "title  value", the values aligned two
 * columns past the longest title (a name may itself start with blanks). */
static void check_long(const char *text, int ncols, int width)
{
    int blocks = 0;
    const char *line = text;
    while (*line && *line != '\n' && blocks < ncols) {
        int kw = 0, nlines = 0;
        for (const char *p = line; *p && *p != '\n'; nlines++) {
            int key = (int)strcspn(p, " \n");
            kw = key > kw ? key : kw;
            p = strchr(p, '\n') + 1;
        }
        for (int i = 0; i < nlines; i++) {
            const char *nl = strchr(line, '\n');
            int key = (int)strcspn(line, " ");
            ck_assert_msg(nl - line >= kw + 2, "short line in %s", text);
            for (int k = key; k < kw + 2; k++)
                ck_assert_msg(line[k] == ' ', "values unaligned: %s", text);
            ck_assert_msg(line[kw + 2] != ' ' || !strncmp(line, "column", 6),
                          "values unaligned: %s", text);
            ck_assert_int_le(display_width(line, (size_t)(nl - line)),
                             width > 70 ? width : 70);
            line = nl + 1;
        }
        blocks++;
        if (*line == '\n' && blocks < ncols)
            line++; /* the blank line between blocks */
    }
    ck_assert_int_eq(blocks, ncols);
}

/* A table too wide for the terminal is either narrowed, a line per column
 * within the width, or, when it cannot be, the long layout as asked for. */
static void check_narrowed_or_long(const char *auto_text, const char *long_text,
                                   int ncols, int width)
{
    if (!strcmp(auto_text, long_text))
        return;
    ck_assert_msg(auto_text[strspn(auto_text, " ")] == '#',
                  "neither narrowed nor long: %s", auto_text);
    const char *p = auto_text;
    for (int i = 0; i <= ncols; i++) { /* the histograms' bars follow */
        size_t n = strcspn(p, "\n");
        ck_assert_msg(p[n] == '\n', "a line short: %s", auto_text);
        ck_assert_msg(display_width(p, n) <= width, "narrowed past %d: %s",
                      width, auto_text);
        p += n + 1;
    }
}

START_TEST(table_layouts)
{
    int n = quick() ? 50 : 300;
    for (int t = 0; t < n; t++) {
        sample x;
        random_sample(&x);
        int width = 40 + rand() % 160;
        report_style wide = {width, 1, LAYOUT_WIDE, 15, 1, 0, 0};
        char *w = render_style(&x, FMT_TABLE, &wide);
        int ww = display_width(w, strcspn(w, "\n"));
        report_style st = {width, 1, LAYOUT_AUTO, 15, 1, 0, 0};
        char *a = render_style(&x, FMT_TABLE, &st);
        st.layout = LAYOUT_LONG;
        char *l = render_style(&x, FMT_TABLE, &st);
        if (x.ncols)
            check_long(l, x.ncols, width);
        st.layout = LAYOUT_AUTO;
        if (ww <= width) {
            ck_assert_str_eq(a, w); /* it fits: wide */
        } else {
            check_narrowed_or_long(a, l, x.ncols, width);
            st.tty = 0; /* piped: always wide */
            char *p = render_style(&x, FMT_TABLE, &st);
            ck_assert_str_eq(p, w);
            free(p);
        }
        free(l);
        free(a);
        free(w);
        free_sample(&x);
    }
}
END_TEST

START_TEST(text_width)
{
    static const struct {
        const char *s;
        int w;
    } cases[] = {
        {"abc", 3},
        {"\xe4\xb8\xad\xe6\x96\x87", 4}, /* CJK */
        {"\xc3\xa9", 1},                 /* precomposed */
        {"e\xcc\x81", 1},                /* combining */
        {"\xf0\x9f\x98\x80", 2},         /* emoji */
        {"\xef\xbc\xa1", 2},             /* fullwidth A */
        {"\xef\xbd\xb1", 1},             /* halfwidth katakana */
        {"\xea\xb0\x80", 2},             /* Hangul */
        {"\xff", 1},                     /* not UTF-8 */
        {"\xc3", 1},                     /* cut short */
        {"\xed\xa0\x80", 3},             /* a surrogate: bytes */
        {"", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(report_text_width(cases[i].s, strlen(cases[i].s)) ==
                          cases[i].w,
                      "case %zu", i);
    /* against wcwidth over whole blocks where the tables agree */
    static const unsigned blocks[][2] = {
        {0x20, 0x7e},     {0xa0, 0x2ff},      {0x300, 0x36f},
        {0x3041, 0x3096}, {0x4e00, 0x9fff},   {0xac00, 0xd7a3},
        {0xff01, 0xff60}, {0x1f600, 0x1f64f},
    };
    display_width("", 0); /* sets the locale */
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
        for (unsigned c = blocks[b][0]; c <= blocks[b][1]; c++) {
            char u[8];
            mbstate_t st;
            memset(&st, 0, sizeof st);
            size_t n = wcrtomb(u, (wchar_t)c, &st);
            ck_assert(n != (size_t)-1);
            int want = wcwidth((wchar_t)c);
            ck_assert_msg(report_text_width(u, n) == (want < 0 ? 1 : want),
                          "U+%04X: %d, wcwidth %d", c, report_text_width(u, n),
                          want);
        }
}
END_TEST

START_TEST(ascii_bars)
{
    sample x;
    random_sample(&x);
    x.what |= STAT_HIST;
    for (int i = 0; i < x.ncols; i++) {
        x.names[i][0] = 'c';
        x.names[i][1] = '\0';
        if (!x.cols[i].h) {
            random_hist(&x.hists[i], -1, 1);
            x.cols[i].h = &x.hists[i];
            x.cols[i].s.count = 1;
        }
    }
    report_style st = {80, 1, LAYOUT_AUTO, 15, 0, 0, 0};
    char *text = render_style(&x, FMT_TABLE, &st);
    for (const char *p = text; *p; p++)
        ck_assert_msg((unsigned char)*p < 0x80, "a byte past ASCII: %s", text);
    if (x.ncols && x.cols[0].s.count)
        ck_assert_msg(strchr(text, '#'), "%s", text);
    free(text);
    free_sample(&x);
}
END_TEST

/* The least double in bin k or later (k >= 1): bisection over the reals
 * keeping bin(a) < k <= bin(z), down to neighbours. */
static double least_in_bin(const hist_scale *sc, double lo, double hi, int k)
{
    double a = lo, z = hi;
    for (int it = 0; it < 4000; it++) {
        double m = a / 2 + z / 2;
        if (m <= a || m >= z)
            break;
        if (hist_bin(sc, m) >= k)
            z = m;
        else
            a = m;
    }
    return z;
}

/* The labels of one histogram's rows (underflow and overflow left out)
 * into l[] and r[]; returns how many. */
static int label_rows(const char *text, char (*l)[64], char (*r)[64],
                      char *close, int max)
{
    int n = 0;
    for (const char *line = strstr(text, "\n  ["); line && n < max;
         line = strstr(line + 1, "\n  [")) {
        if (line[4] == '-' && line[5] == 'i') /* the underflow */
            continue;
        ck_assert(sscanf(line + 4, "%63[^,], %63[^])]%c", l[n], r[n],
                         &close[n]) == 3);
        n++;
    }
    return n;
}

/* Each edge printed once: a row's left edge is the text the row before
 * ends with; the first is the minimum and the last the maximum as the
 * title prints them; the edges strictly increase (where the rows hold
 * distinct doubles to print); an inner edge is
 * where its row starts to within a tenth of a row's width. */
START_TEST(bar_labels)
{
    int n = quick() ? 100 : 1000;
    for (int t = 0; t < n; t++) {
        sample x;
        memset(&x, 0, sizeof x);
        double lo = random_double(), hi = random_double();
        if (lo > hi) {
            double sw = lo;
            lo = hi;
            hi = sw;
        }
        if (!(lo < hi))
            continue;
        x.ncols = 1;
        x.what = STAT_HIST;
        x.cols[0].name = "x";
        x.cols[0].s.count = 1;
        random_hist(&x.hists[0], lo, hi);
        x.cols[0].h = &x.hists[0];
        const hist *h = &x.hists[0];
        char *text = render(&x, FMT_TABLE, 100);
        hist_scale sc = hist_scale_make(lo, hi, h->nbins);
        int g = h->nbins > 40 ? (h->nbins + 31) / 32 : 1;
        int nrows = (h->nbins + g - 1) / g;
        char l[64][64], r[64][64], close[64], lo_text[32], hi_text[32];
        ck_assert_int_eq(label_rows(text, l, r, close, 64), nrows);
        format_double(lo_text, sizeof lo_text, lo + 0.0);
        format_double(hi_text, sizeof hi_text, hi + 0.0);
        ck_assert_msg(!strcmp(l[0], lo_text), "first %s\n%s", l[0], text);
        ck_assert_msg(!strcmp(r[nrows - 1], hi_text), "last %s\n%s",
                      r[nrows - 1], text);
        double width = (hi / 2 - lo / 2) * 2 * g / h->nbins;
        for (int k = 0; k < nrows; k++) {
            ck_assert_int_eq(close[k], k + 1 < nrows ? ')' : ']');
            /* Strictly, where the row holds more than one double: a range
             * of a few subnormals has fewer doubles than rows. */
            double from = k ? least_in_bin(&sc, lo, hi, k * g) : lo;
            double to =
                k + 1 < nrows ? least_in_bin(&sc, lo, hi, (k + 1) * g) : hi;
            double a = strtod(l[k], NULL), b = strtod(r[k], NULL);
            ck_assert_msg(to > from ? a < b : a <= b,
                          "[%a, %a] row %d: %s, %s\n%s", lo, hi, k, l[k], r[k],
                          text);
            if (k == 0)
                continue;
            ck_assert_msg(!strcmp(l[k], r[k - 1]), "row %d: %s after %s\n%s", k,
                          l[k], r[k - 1], text);
            double start = least_in_bin(&sc, lo, hi, k * g);
            if (isfinite(width) && width > 0x1p-1000)
                ck_assert_msg(fabs(strtod(l[k], NULL) - start) <= width / 10,
                              "[%a, %a] row %d: %s far from %a\n%s", lo, hi, k,
                              l[k], start, text);
        }
        free(text);
        free_sample(&x);
    }
}
END_TEST

START_TEST(write_failure)
{
    FILE *f = fopen("/dev/full", "w");
    if (!f)
        return;
    sample x;
    random_sample(&x);
    static const out_format fmts[] = {FMT_TABLE, FMT_TSV, FMT_CSV, FMT_JSON};
    report_style st = {80, 0, LAYOUT_AUTO, 0, 1, 0, 0};
    ck_assert_int_eq(
        report_write(f, fmts[rand() % 4], x.what, x.rows, x.cols, x.ncols, &st),
        -1);
    fclose(f);
    free_sample(&x);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("report");
    TCase *t = tcase_create("core");
    tcase_set_timeout(t, 120);
    tcase_add_unchecked_fixture(t, init_seed, NULL);
    tcase_add_test(t, format_double_forms);
    tcase_add_test(t, format_double_random);
    tcase_add_test(t, format_double_short_decimals);
    tcase_add_test(t, table_digits);
    tcase_add_test(t, table_layouts);
    tcase_add_test(t, text_width);
    tcase_add_test(t, ascii_bars);
    tcase_add_test(t, bar_labels);
    tcase_add_test(t, json_fixed);
    tcase_add_test(t, json_bigint);
    tcase_add_test(t, json_parsed_back);
    tcase_add_test(t, delimited);
    tcase_add_test(t, delimited_fixed);
    tcase_add_test(t, table_fixed);
    tcase_add_test(t, table_random);
    tcase_add_test(t, table_bars);
    tcase_add_test(t, write_failure);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return run_suite(suite(), CK_FORK_GETENV);
}
