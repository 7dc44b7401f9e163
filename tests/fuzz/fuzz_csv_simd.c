/* libFuzzer harness: the CSV structural index (io/csv/csv_simd.h) against
 * libcsv and the grammar (io/csv/csv_grammar.h). The first byte of an input
 * picks the delimiter, the kernel (AVX2, SSE2, byte loop) and the state the
 * cutter's question starts in; the rest, an LF added, is the text. Where
 * csv_simd_scan takes the text, its field ends read as the CSV reader reads
 * them must give libcsv's fields and records, byte for byte; where
 * csv_simd_cut answers, the last LF outside quotes and the quote state at
 * the end must be the grammar's. Any difference aborts. */
#include <csv.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/csv/csv_grammar.h"
#include "io/csv/csv_simd.h"

#define MAXLEN 4096

typedef struct trace {
    char *s;
    size_t n, cap;
} trace;

static void put(trace *t, char kind, const char *text, size_t len)
{
    if (t->n + len + 2 > t->cap) {
        t->cap = 2 * (t->n + len + 2);
        t->s = realloc(t->s, t->cap);
        if (!t->s)
            abort();
    }
    t->s[t->n++] = kind;
    if (len)
        memcpy(t->s + t->n, text, len);
    t->n += len;
    t->s[t->n++] = '|';
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

static int blank(char c, char delim)
{
    return (c == ' ' || c == '\t') && c != delim;
}

static void index_trace(const csv_simd_index *ix, const char *s, char delim,
                        trace *t, char *text)
{
    size_t at = 0;
    int f = 0;
    for (size_t k = 0; k < ix->n; k++) {
        size_t e = ix->end[k], b = at, z = e, len = 0;
        int last = s[e] != delim;
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

static void check_scan(const char *s, size_t n, char delim)
{
    static char text[MAXLEN + 1];
    csv_simd_index ix;
    if (csv_simd_init(&ix, MAXLEN + 1) != 0)
        abort();
    if (csv_simd_scan(&ix, s, n, (unsigned char)delim)) {
        trace want = {0}, got = {0};
        struct csv_parser p;
        if (csv_init(&p, 0) != 0)
            abort();
        csv_set_delim(&p, (unsigned char)delim);
        if (csv_parse(&p, s, n, ref_field, ref_record, &want) != n)
            abort();
        csv_fini(&p, ref_field, ref_record, &want);
        csv_free(&p);
        index_trace(&ix, s, delim, &got, text);
        if (want.n != got.n || (want.n && memcmp(want.s, got.s, want.n)))
            abort();
        free(want.s);
        free(got.s);
    }
    csv_simd_free(&ix);
}

static void check_cut(const char *s, size_t n, char delim, int start)
{
    static const unsigned states[] = {CSV_G_ROW, CSV_G_UNQ, CSV_G_QUO};
    size_t last = 0, want = 0;
    int inside = 0;
    if (!csv_simd_cut(s, n, (unsigned char)delim, start, &last, &inside))
        return;
    unsigned st = states[start];
    for (size_t i = 0; i < n; i++) {
        unsigned x = csv_g_step(
            st, csv_g_class((unsigned char)s[i], (unsigned char)delim, 1));
        if (s[i] == '\n' && (csv_g_acts(x) & CSV_GA_END))
            want = i + 1;
        st = csv_g_next(x);
    }
    if (last != want || inside != (st == CSV_G_QUO))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char delims[] = {',', ';', '|', '\t', ' ', 'a', '\0', 'x'};
    static char s[MAXLEN + 1];
    if (size < 1 || size > MAXLEN)
        return 0;
    char delim = delims[data[0] & 7];
    csv_simd_force((data[0] >> 3) % 3);
    int start = (data[0] >> 5) % 3;
    size_t n = size - 1;
    memcpy(s, data + 1, n);
    check_cut(s, n, delim, start);
    s[n++] = '\n';
    check_scan(s, n, delim);
    csv_simd_force(-1);
    return 0;
}
