/* Micro-benchmark, not a test: CPU time of format_double over 10 M doubles
 * of three shapes: random bit patterns (finite), short decimals (1 to 17
 * digits read by strtod, exponents -20..20: what a column's min and max
 * print) and quotients (a sum over a count: what a mean prints, mostly 16
 * or 17 digits). The same source times the search before Ryu when built
 * against that format_double.c. Build and run by hand:
 *   gcc -O2 -std=c11 -D_GNU_SOURCE -I. bench/format_speed.c \
 *       src/report/format_double.c src/report/shortest.c -lm \
 *       -o /tmp/format_speed
 *   /tmp/format_speed [doubles_per_shape]
 */
#include "src/report/report.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng = 22;

static uint64_t next(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double bits(void)
{
    for (;;) {
        uint64_t b = next();
        double v;
        memcpy(&v, &b, sizeof v);
        if (isfinite(v))
            return v;
    }
}

static double decimal(void)
{
    char text[40];
    int p = 1 + (int)(next() % 17), at = 0;
    text[at++] = (char)('1' + next() % 9);
    text[at++] = '.';
    for (int k = 1; k < p; k++)
        text[at++] = (char)('0' + next() % 10);
    snprintf(text + at, sizeof text - (size_t)at, "e%d",
             (int)(next() % 41) - 20);
    return strtod(text, NULL);
}

static double quotient(void)
{
    return (double)(next() % 100000000) / 1000.0 / (double)(1 + next() % 999);
}

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void run(const char *name, double (*draw)(void), size_t n)
{
    double *v = malloc(n * sizeof *v);
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        v[i] = draw();
    char buf[32];
    size_t bytes = 0;
    double t0 = cpu_seconds();
    for (size_t i = 0; i < n; i++)
        bytes += (size_t)format_double(buf, sizeof buf, v[i]);
    double t = cpu_seconds() - t0;
    printf("%-10s %zu doubles  %.3f s CPU  %.1f ns each  (%zu bytes)\n", name,
           n, t, t * 1e9 / (double)n, bytes);
    free(v);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    run("bits", bits, n);
    run("decimals", decimal, n);
    run("quotients", quotient, n);
    return 0;
}
