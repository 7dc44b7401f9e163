/* Micro-benchmark, not a test: parse_number, parse_number_corr and
 * parse_number_padded (what the CSV reader calls: the value and its integer
 * correction, the fast path where NUM_PAD bytes follow) against strtod on
 * ~10M realistic CSV fields, per field shape and mixed; last, nanosecond
 * timestamps (19-digit integers, nearly all with a nonzero correction).
 * Build and run by hand:
 *   gcc -O2 -std=c11 -D_GNU_SOURCE -I. bench/parse_speed.c \
 *       io/num/parse_number.c io/num/number_fast.c -o /tmp/parse_speed
 *   /tmp/parse_speed [fields_per_shape]
 */
#include "io/num/parse_number.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { SHAPES = 5 };
static const char *shape_name[SHAPES] = {
    "price %.2f", "reading %.4f", "full %.17g", "integer", "scientific %.6e"};

static uint64_t state = 42;

static uint64_t rnd(void)
{
    uint64_t z = (state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static double unit(void)
{
    return (double)(rnd() >> 11) / 9007199254740992.0;
}

static int format(char *o, int shape)
{
    switch (shape) {
    case 0:
        return sprintf(o, "%.2f", unit() * 1000);
    case 1:
        return sprintf(o, "%.4f", unit() * 200 - 100);
    case 2:
        return sprintf(o, "%.17g", unit() * 1e4);
    case 3:
        return sprintf(o, "%llu", (unsigned long long)(rnd() % 1000000000));
    case 4:
        return sprintf(o, "%.6e",
                       (unit() - 0.5) * 1e15 / (double)(1 + rnd() % 1000000));
    default: /* nanoseconds since 1970, around 2025 */
        return sprintf(o, "%llu",
                       1735704000000000000ull + rnd() % 1000000000000000ull);
    }
}

typedef struct fields {
    char *text;  /* each field followed by a NUL, for strtod */
    size_t *off; /* n + 1 offsets */
    size_t n;
} fields;

static void build(fields *f, size_t n, int shape)
{
    f->text = malloc(n * 32);
    f->off = malloc((n + 1) * sizeof *f->off);
    f->n = n;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        f->off[i] = at;
        int k = shape >= 0    ? shape
                : shape == -1 ? (int)(i % SHAPES) /* CSV rows: columns cycle */
                              : (int)(rnd() % SHAPES);
        at += (size_t)format(f->text + at, k) + 1;
    }
    f->off[n] = at;
}

/* One pass in CPU-time ns per field (the build machine is shared, so wall
 * time would count other processes); *sum defeats dead-code removal. */
enum { PARSE_NUMBER, STRTOD, PARSE_NUMBER_CORR, PADDED };

static double time_pass(const fields *f, int how, double *sum)
{
    struct timespec t0, t1;
    double acc = 0;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    for (size_t i = 0; i < f->n; i++) {
        const char *s = f->text + f->off[i];
        size_t n = f->off[i + 1] - f->off[i] - 1;
        double x = 0;
        int32_t corr = 0;
        if (how == STRTOD)
            x = strtod(s, NULL);
        else if (how == PARSE_NUMBER)
            parse_number(s, n, &x);
        else if (how == PADDED)
            parse_number_padded(s, n, NULL, &x, &corr);
        else
            parse_number_corr(s, n, &x, &corr);
        acc += x + corr;
    }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    *sum += acc;
    return ((double)(t1.tv_sec - t0.tv_sec) * 1e9 +
            (double)(t1.tv_nsec - t0.tv_nsec)) /
           (double)f->n;
}

/* Best of five interleaved passes of each. */
static void time_all(const fields *f, double *ours, double *libc, double *corr,
                     double *pad)
{
    double sum = 0;
    *ours = *libc = *corr = *pad = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        double a = time_pass(f, PARSE_NUMBER, &sum),
               b = time_pass(f, STRTOD, &sum),
               c = time_pass(f, PARSE_NUMBER_CORR, &sum),
               d = time_pass(f, PADDED, &sum);
        *ours = a < *ours ? a : *ours;
        *libc = b < *libc ? b : *libc;
        *corr = c < *corr ? c : *corr;
        *pad = d < *pad ? d : *pad;
    }
    if (sum == 42.0) /* keep sum live */
        puts("");
}

static size_t mismatches(const fields *f)
{
    size_t bad = 0;
    for (size_t i = 0; i < f->n; i++) {
        const char *s = f->text + f->off[i];
        double x = 0, y = strtod(s, NULL);
        parse_number(s, f->off[i + 1] - f->off[i] - 1, &x);
        bad += memcmp(&x, &y, sizeof x) != 0;
    }
    return bad;
}

static void report(const char *name, size_t n, int shape)
{
    fields f;
    double a, b, c, d;
    build(&f, n, shape);
    time_all(&f, &a, &b, &c, &d);
    printf("%-16s %9zu fields %5.1f B/field  parse_number %6.2f ns  "
           "parse_number_corr %6.2f ns  padded %6.2f ns  strtod %6.2f ns  "
           "speed-up %5.2fx  mismatches %zu\n",
           name, n, (double)(f.off[n] - n) / (double)n, a, c, d, b, b / a,
           mismatches(&f));
    free(f.text);
    free(f.off);
}

int main(int argc, char **argv)
{
    size_t per = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000000;
    for (int k = 0; k < SHAPES; k++)
        report(shape_name[k], per, k);
    report("rows of 5 cols", per * SHAPES, -1);
    report("random shapes", per * SHAPES, -2);
    report("timestamps ns", per, SHAPES);
    return 0;
}
