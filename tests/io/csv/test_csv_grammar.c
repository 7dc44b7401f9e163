/* The CSV grammar (io/csv/csv_grammar.h) against libcsv, the host's
 * tokenizer: random strings over a small alphabet (quote, delimiter, CR,
 * LF, blanks, letters) are stepped through the grammar and fed to libcsv
 * one byte at a time; where each field and record ends must agree. Where
 * no CSV_GA_LAX step fires, the fields' text as the device takes it from
 * the steps (a quoted field's text up to its closing quote, doubled quotes
 * halved; an unquoted field's without its trailing blanks) must be
 * libcsv's too, unless a quoted field is still open at the end. Seed logged;
 * COLSTAT_SEED replays it. */
#include <check.h>
#include <csv.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv/csv_grammar.h"
#include "tests/testlib.h"

static uint64_t g_seed;

#define MAXLEN 48
#define LOGCAP 4096

/* Events, one a line: "pos F text" (a field ends) or "pos R" (a record). */
typedef struct trace {
    char s[LOGCAP];
    size_t n;
    size_t pos;    /* the byte being fed */
    int with_text; /* write fields' text too */
} trace;

static void put(trace *t, const char *kind, const char *text, size_t len)
{
    int k = snprintf(t->s + t->n, LOGCAP - t->n, "%zu %s ", t->pos, kind);
    t->n += (size_t)k;
    for (size_t i = 0; t->with_text && i < len && t->n + 8 < LOGCAP; i++)
        t->s[t->n++] = text[i];
    t->s[t->n++] = '|';
    t->s[t->n] = 0;
}

static void ref_field(void *text, size_t len, void *data)
{
    put(data, "F", text, len);
}

static void ref_record(int c, void *data)
{
    (void)c;
    put(data, "R", "", 0);
}

/* libcsv's reading of s, fed a byte at a time so that each callback's
 * position is known. */
static void libcsv_trace(const char *s, size_t n, char delim, trace *t)
{
    struct csv_parser p;
    ck_assert_int_eq(csv_init(&p, 0), 0);
    csv_set_delim(&p, (unsigned char)delim);
    for (size_t i = 0; i < n; i++) {
        t->pos = i;
        ck_assert_uint_eq(csv_parse(&p, s + i, 1, ref_field, ref_record, t), 1);
    }
    t->pos = n;
    csv_fini(&p, ref_field, ref_record, t);
    csv_free(&p);
}

/* The grammar's reading of s: what the steps say, with field text taken
 * as gpu/csv_kernel.cu takes it. Returns whether a CSV_GA_LAX step fired. */
typedef struct walker {
    unsigned st;
    size_t fs, qe;
    int escaped;
    char delim;
} walker;

static void field_text(const walker *w, const char *s, size_t at, char *out,
                       size_t *len)
{
    size_t b = w->fs, e = at;
    *len = 0;
    if (w->st == CSV_G_ROW || w->st == CSV_G_FNB)
        return;
    if (w->st == CSV_G_UNQ) {
        while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t') &&
               s[e - 1] != w->delim)
            e--;
    } else {
        e = w->qe;
    }
    for (size_t i = b; i < e; i++) {
        out[(*len)++] = s[i];
        if (w->escaped && s[i] == CSV_G_QUOTE && i + 1 < e)
            i++; /* a doubled quote: one */
    }
}

static void end_field(const walker *w, const char *s, size_t at, trace *t)
{
    char text[MAXLEN];
    size_t len;
    field_text(w, s, at, text, &len);
    put(t, "F", text, len);
}

static int grammar_trace(const char *s, size_t n, char delim, trace *t)
{
    walker w = {CSV_G_ROW, 0, 0, 0, delim};
    int lax = 0;
    for (size_t i = 0; i < n; i++) {
        t->pos = i;
        unsigned x = csv_g_step(
            w.st, csv_g_class((unsigned char)s[i], (unsigned char)delim, 1));
        unsigned acts = csv_g_acts(x);
        lax |= (acts & CSV_GA_LAX) != 0;
        if (acts & CSV_GA_START) {
            w.fs = acts & CSV_GA_OPEN ? i + 1 : i;
            w.escaped = 0;
        }
        if (acts & CSV_GA_QUOTE)
            w.qe = i;
        if (acts & CSV_GA_LITERAL)
            w.escaped = 1;
        if ((acts & CSV_GA_FIELD) || ((acts & CSV_GA_END) && w.st != CSV_G_ROW))
            end_field(&w, s, i, t);
        if ((acts & CSV_GA_END) && w.st != CSV_G_ROW)
            put(t, "R", "", 0);
        w.st = csv_g_next(x);
    }
    t->pos = n;
    lax |= w.st == CSV_G_QUO; /* an open quote at the end: the device's too */
    if (w.st != CSV_G_ROW) {
        end_field(&w, s, n, t);
        put(t, "R", "", 0);
    }
    return lax;
}

static const char alphabet[] = {'"', ',', ';', '\t', '\r', '\n', ' ', 'a', 'b'};

static size_t draw(test_rng *r, char *s)
{
    size_t n = rng_below(r, MAXLEN);
    for (size_t i = 0; i < n; i++)
        s[i] = alphabet[rng_below(r, sizeof alphabet)];
    return n;
}

static void show(const char *s, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++) {
        const char *e = s[i] == '\r'   ? "\\r"
                        : s[i] == '\n' ? "\\n"
                        : s[i] == '\t' ? "\\t"
                                       : NULL;
        if (e) {
            memcpy(out, e, 2);
            out += 2;
        } else {
            *out++ = s[i];
        }
    }
    *out = 0;
}

/* One string under one delimiter: boundaries always, text where no lax
 * step fired. */
static int agrees(const char *s, size_t n, char delim, int *clean)
{
    trace g = {.with_text = 0}, l = {.with_text = 0};
    int lax = grammar_trace(s, n, delim, &g);
    libcsv_trace(s, n, delim, &l);
    int ok = strcmp(g.s, l.s) == 0;
    if (ok && !lax) {
        trace gt = {.with_text = 1}, lt = {.with_text = 1};
        grammar_trace(s, n, delim, &gt);
        libcsv_trace(s, n, delim, &lt);
        ok = strcmp(gt.s, lt.s) == 0;
        *clean += 1;
        g = gt;
        l = lt;
    }
    if (!ok) {
        char shown[4 * MAXLEN + 1];
        show(s, n, shown);
        fprintf(stderr,
                "delim '%c' text \"%s\"\n grammar: %s\n libcsv:  %s\n"
                " (COLSTAT_SEED=%llu)\n",
                delim == '\t' ? 'T' : delim, shown, g.s, l.s,
                (unsigned long long)g_seed);
    }
    return ok;
}

START_TEST(test_random_strings)
{
    static const char delims[] = {',', ';', '\t', ' '};
    test_rng r = rng_for(g_seed, 1);
    int rounds = test_quick() ? 10000 : 100000, clean = 0;
    for (int k = 0; k < rounds; k++) {
        char s[MAXLEN];
        size_t n = draw(&r, s);
        char delim = delims[rng_below(&r, sizeof delims)];
        ck_assert_msg(agrees(s, n, delim, &clean),
                      "the grammar and libcsv differ (seed %llu)",
                      (unsigned long long)g_seed);
    }
    /* enough strings without lax steps that their text was compared */
    ck_assert_int_gt(clean, rounds / 20);
}
END_TEST

/* Every byte's class: the delimiter first, then quote, line ends, blanks;
 * whitespace text has no quotes. */
START_TEST(test_classes)
{
    for (unsigned c = 0; c < 256; c++) {
        unsigned char b = (unsigned char)c;
        unsigned want = b == ';'                 ? CSV_G_DELIM
                        : b == '"'               ? CSV_G_QUOTED
                        : b == '\r' || b == '\n' ? CSV_G_TERM
                        : b == ' ' || b == '\t'  ? CSV_G_BLANK
                                                 : CSV_G_OTHER;
        ck_assert_uint_eq(csv_g_class(b, ';', 1), want);
        ck_assert_uint_eq(csv_g_class(b, ';', 0),
                          b == '"' ? CSV_G_OTHER : want);
    }
    ck_assert_uint_eq(csv_g_class('\t', '\t', 1), CSV_G_DELIM);
    csv_g_bytes b;
    csv_g_bytes_init(&b, ',', 1);
    for (unsigned c = 0; c < 256; c++)
        ck_assert(b.col[c] ==
                  csv_g_column(csv_g_class((unsigned char)c, ',', 1)));
}
END_TEST

int main(void)
{
    g_seed = test_seed("test_csv_grammar");
    Suite *s = suite_create("csv_grammar");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_random_strings);
    tcase_add_test(tc, test_classes);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_FORK_GETENV);
}
