/* parse_kind.h: dates and datetimes of every accepted form against
 * Python's datetime (date_reference.py), units with separators against
 * parse_number_fmt of the bare number, and what is no date or no unit. */
#include "io/num/parse_kind.h"

#include <math.h>
#include <unistd.h>

#include "src/report/report.h"
#include "tests/testlib.h"

static uint64_t seed;

/* A random instant's parts, and its text in one of the accepted forms. */
typedef struct instant {
    int y, mo, d, h, mi, s, us, off, date_only, zone;
    char text[64];
} instant;

static int month_days(int y, int m)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return days[m - 1] + (m == 2 && leap);
}

static int pick(uint64_t *r, int n)
{
    return (int)(test_rand(r) % (uint64_t)n);
}

static void fraction(char *p, size_t cap, instant *t, uint64_t *r)
{
    int digits = 1 + pick(r, 9), kept = digits < 6 ? digits : 6;
    int scale = 1;
    for (int i = kept; i < 6; i++)
        scale *= 10;
    int v = pick(r, 1000000 / scale);
    t->us = v * scale;
    snprintf(p, cap, "%c%0*d%.*s", pick(r, 4) ? '.' : ',', kept, v,
             digits - kept, "000");
}

static void zone_text(char *p, size_t cap, instant *t, uint64_t *r)
{
    int form = pick(r, 5), h = pick(r, 24), m = form >= 3 ? 0 : pick(r, 60);
    int sign = pick(r, 2) ? 1 : -1;
    t->off = form == 0 ? 0 : sign * (h * 60 + m);
    const char *sg = sign > 0 ? "+" : "-";
    if (form == 0)
        snprintf(p, cap, "%s", pick(r, 2) ? "Z" : "z");
    else if (form == 1)
        snprintf(p, cap, "%s%02d:%02d", sg, h, m);
    else if (form == 2)
        snprintf(p, cap, "%s%02d%02d", sg, h, m);
    else
        snprintf(p, cap, "%s%02d", sg, h);
}

static instant draw(uint64_t *r)
{
    instant t = {0};
    int era = pick(r, 4);
    t.y = era == 0   ? 1 + pick(r, 9999)
          : era == 1 ? 1 + pick(r, 3)
          : era == 2 ? 9997 + pick(r, 3)
                     : 1900 + pick(r, 200);
    t.mo = 1 + pick(r, 12);
    t.d =
        pick(r, 3) ? 1 + pick(r, month_days(t.y, t.mo)) : month_days(t.y, t.mo);
    int n = snprintf(t.text, sizeof t.text, "%04d-%02d-%02d", t.y, t.mo, t.d);
    t.date_only = pick(r, 4) == 0;
    if (t.date_only)
        return t;
    t.h = pick(r, 24);
    t.mi = pick(r, 60);
    n += snprintf(t.text + n, sizeof t.text - (size_t)n, "%c%02d:%02d",
                  "Tt "[pick(r, 3)], t.h, t.mi);
    if (pick(r, 5)) {
        t.s = pick(r, 60);
        n += snprintf(t.text + n, sizeof t.text - (size_t)n, ":%02d", t.s);
        if (pick(r, 2))
            fraction(t.text + n, sizeof t.text - (size_t)n, &t, r);
        n = (int)strlen(t.text);
    }
    t.zone = pick(r, 2);
    if (t.zone)
        zone_text(t.text + n, sizeof t.text - (size_t)n, &t, r);
    return t;
}

/* The reference's answers for ts[0, n), through files (no pipe pair). */
static int reference(const instant *ts, int n, long long *us, char (*iso)[64],
                     char (*at)[64])
{
    char in[] = "/tmp/colstat_kindXXXXXX", cmd[512];
    int fd = mkstemp(in);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "w");
    for (int i = 0; i < n; i++)
        fprintf(f, "%d %d %d %d %d %d %d %d %d %d\n", ts[i].y, ts[i].mo,
                ts[i].d, ts[i].h, ts[i].mi, ts[i].s, ts[i].us, ts[i].off,
                ts[i].date_only, ts[i].zone);
    fclose(f);
    const char *src = __FILE__;
    const char *slash = strrchr(src, '/');
    snprintf(cmd, sizeof cmd, "python3 %.*s/date_reference.py < %s",
             slash ? (int)(slash - src) : 1, slash ? src : ".", in);
    FILE *p = popen(cmd, "r");
    int got = 0;
    while (p && got < n &&
           fscanf(p, "%lld %63s %63s", &us[got], iso[got], at[got]) == 3)
        got++;
    int rc = p ? pclose(p) : -1;
    unlink(in);
    return rc == 0 && got == n ? 0 : -1;
}

START_TEST(test_dates_against_datetime)
{
    uint64_t r = seed;
    enum { N = 4000 };
    static instant ts[N];
    static long long us[N];
    static char iso[N][64], at[N][64];
    int n = test_quick() ? 500 : N;
    for (int i = 0; i < n; i++)
        ts[i] = draw(&r);
    ck_assert_msg(reference(ts, n, us, iso, at) == 0,
                  "python3 reference failed");
    for (int i = 0; i < n; i++) {
        int64_t got = 0;
        int dt = parse_kind_date(ts[i].text, strlen(ts[i].text), &got);
        int want = ts[i].date_only ? KIND_DT_DATE
                   : ts[i].zone    ? KIND_DT_ZONED
                                   : KIND_DT_NAIVE;
        ck_assert_msg(dt == want && got == us[i], "%s: %d %lld, want %d %lld",
                      ts[i].text, dt, (long long)got, want, us[i]);
        double d;
        int32_t c;
        unsigned k = ts[i].date_only ? KIND_DATE : KIND_DATETIME;
        ck_assert(parse_kind_fmt(ts[i].text, strlen(ts[i].text), NULL, k, &d,
                                 &c) == NUM_OK);
        ck_assert((int64_t)d + c == got && fabs((double)c) <= 1024);
        char text[64];
        report_instant_text(text, sizeof text, got, ts[i].date_only,
                            ts[i].zone);
        if (strcmp(iso[i], "-") != 0)
            ck_assert_msg(strcmp(text, iso[i]) == 0, "%s: %s, want %s",
                          ts[i].text, text, iso[i]);
        /* the offset it was written in, and the instant printed there */
        int off = parse_kind_offset(ts[i].text, strlen(ts[i].text));
        ck_assert_msg(off == (ts[i].zone ? ts[i].off : 0), "%s: offset %d",
                      ts[i].text, off);
        if (strcmp(at[i], "-") != 0) {
            report_instant_at(text, sizeof text, got, off);
            ck_assert_msg(strcmp(text, at[i]) == 0, "%s: %s, want %s",
                          ts[i].text, text, at[i]);
        }
    }
}
END_TEST

START_TEST(test_not_dates)
{
    static const char *bad[] = {
        "2024-02-30",
        "2023-02-29",
        "0000-01-01",
        "2024-13-01",
        "2024-1-01",
        "24-01-01",
        "2024-01-01T24:00",
        "2024-01-01T12:60",
        "2024-01-01T12:00:60",
        "2024-01-01T12",
        "2024-01-01T12:00:00.",
        "2024-01-01T12:00:00.1234567",
        "2024-01-01Z",
        "2024-01-01T12:00+24:00",
        "2024-01-01T12:00+05:",
        "2024-01-01T12:00+5",
        "2024-01-01x",
        "20240101",
        "2024-01-01T12:00:00.0000000001",
        "",
        "12",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int64_t us;
        ck_assert_msg(parse_kind_date(bad[i], strlen(bad[i]), &us) ==
                          KIND_DT_NONE,
                      "%s", bad[i]);
    }
    /* blanks around a zoned datetime; the zero offsets' spellings */
    ck_assert_int_eq(parse_kind_offset(" 2024-03-01 12:00-05:30\t", 24), -330);
    ck_assert_int_eq(parse_kind_offset("2024-03-01T12:00:00.5-0000", 26), 0);
    ck_assert_int_eq(parse_kind_offset("2024-03-01T12:00:00+23", 22), 1380);
    ck_assert_int_eq(parse_kind_offset("2024-03-01T12:00:00", 19), 0);
    double d;
    int32_t c;
    ck_assert(parse_kind_fmt(" 2024-03-01 ", 12, NULL, KIND_DATE, &d, &c) ==
              NUM_OK);
    ck_assert(parse_kind_fmt("2024-03-01T00:00", 16, NULL, KIND_DATE, &d, &c) ==
              NUM_INVALID);
    ck_assert(parse_kind_fmt("2024-03-01", 10, NULL, KIND_DATETIME, &d, &c) ==
              NUM_OK);
    ck_assert(parse_kind_fmt("", 0, NULL, KIND_DATE, &d, &c) == NUM_MISSING);
    ck_assert(parse_kind_fmt("12", 2, NULL, KIND_DATE, &d, &c) == NUM_INVALID);
    ck_assert(parse_kind_fmt("2024-01-01T12:00:00.000000100", 29, NULL,
                             KIND_DATETIME, &d, &c) == NUM_INVALID);
}
END_TEST

/* A number with unit u written in one of its ways, and the bare text. */
static void with_unit(char *out, size_t cap, int u, const char *num, int form)
{
    const char *t = kind_unit_name(KIND_UNIT + (unsigned)u);
    if (u > KIND_U_YEN)
        snprintf(out, cap, "%s%s%s", num, form ? " " : "", t);
    else if (num[0] == '-' && form)
        snprintf(out, cap, "-%s%s", t, num + 1);
    else
        snprintf(out, cap, "%s%s", t, num);
}

START_TEST(test_units_random)
{
    uint64_t r = seed ^ 0x5555;
    num_format f;
    num_format_init(&f);
    f.thousands = ',';
    for (int i = 0; i < (test_quick() ? 2000 : 20000); i++) {
        char num[64], field[96];
        long long whole = (long long)(test_rand(&r) % 10000000) - 5000000;
        int grouped = pick(&r, 2), frac = pick(&r, 3);
        if (grouped && llabs(whole) >= 1000)
            snprintf(num, sizeof num, "%s%lld,%03lld", whole < 0 ? "-" : "",
                     llabs(whole) / 1000, llabs(whole) % 1000);
        else
            snprintf(num, sizeof num, "%lld", whole);
        if (frac)
            snprintf(num + strlen(num), sizeof num - strlen(num), ".%d",
                     pick(&r, 100));
        int u = pick(&r, KIND_NUNITS);
        with_unit(field, sizeof field, u, num, pick(&r, 2));
        double want, got;
        int32_t cw, cg;
        ck_assert(parse_number_fmt(num, strlen(num), &f, &want, &cw) == NUM_OK);
        ck_assert_msg(parse_kind_fmt(field, strlen(field), &f,
                                     KIND_UNIT + (unsigned)u, &got,
                                     &cg) == NUM_OK,
                      "%s", field);
        ck_assert_msg(got == want && signbit(got) == signbit(want) && cg == cw,
                      "%s", field);
        ck_assert_int_eq(parse_kind_unit(field, strlen(field), &f), u);
    }
}
END_TEST

START_TEST(test_units_table)
{
    double v;
    int32_t c;
    ck_assert(parse_kind_fmt("12ms", 4, NULL, KIND_UNIT + KIND_U_S, &v, &c) ==
              NUM_INVALID);
    ck_assert(parse_kind_fmt("12KB", 4, NULL, KIND_UNIT + KIND_U_B, &v, &c) ==
              NUM_INVALID);
    ck_assert(parse_kind_fmt("12", 2, NULL, KIND_UNIT + KIND_U_MS, &v, &c) ==
                  NUM_OK &&
              v == 12);
    ck_assert(parse_kind_fmt("ms", 2, NULL, KIND_UNIT + KIND_U_MS, &v, &c) ==
              NUM_INVALID);
    ck_assert(parse_kind_fmt("-$-3", 4, NULL, KIND_UNIT + KIND_U_DOLLAR, &v,
                             &c) == NUM_INVALID);
    ck_assert(parse_kind_fmt("\xE2\x82\xAC"
                             "12",
                             5, NULL, KIND_UNIT + KIND_U_DOLLAR, &v,
                             &c) == NUM_INVALID);
    ck_assert(parse_kind_fmt("-$0", 3, NULL, KIND_UNIT + KIND_U_DOLLAR, &v,
                             &c) == NUM_OK &&
              v == 0 && signbit(v));
    ck_assert(parse_kind_fmt("", 0, NULL, KIND_UNIT + KIND_U_DOLLAR, &v, &c) ==
              NUM_MISSING);
    ck_assert_int_eq(parse_kind_unit("12 min", 6, NULL), KIND_U_MIN);
    ck_assert_int_eq(parse_kind_unit("1.5 GiB", 7, NULL), KIND_U_GIB);
    ck_assert_int_eq(parse_kind_unit("\xC2\xB5s", 3, NULL), -1);
    ck_assert_int_eq(parse_kind_unit("abc", 3, NULL), -1);
    ck_assert_str_eq(kind_unit_name(KIND_UNIT + KIND_U_MICRO), "\xC2\xB5s");
}
END_TEST

START_TEST(test_spans)
{
    char b[64];
    report_span_text(b, sizeof b, 93784500000, 0);
    ck_assert_str_eq(b, "1d 02:03:04.5");
    report_span_text(b, sizeof b, 3000000, 0);
    ck_assert_str_eq(b, "00:00:03");
    report_span_text(b, sizeof b, 59 * 86400000000LL, 1);
    ck_assert_str_eq(b, "59d");
    report_span_seconds(b, sizeof b, 93784500000);
    ck_assert_str_eq(b, "93784.5");
    report_span_seconds(b, sizeof b, 7);
    ck_assert_str_eq(b, "0.000007");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("parse_kind");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_dates_against_datetime);
    tcase_add_test(tc, test_not_dates);
    tcase_add_test(tc, test_units_random);
    tcase_add_test(tc, test_units_table);
    tcase_add_test(tc, test_spans);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    seed = test_seed("test_parse_kind");
    return run_suite(suite(), CK_FORK_GETENV);
}
