/* colstat_contend: what one core loses when every core is busy, split by
 * kind of work, for what bounds the CPU backend on a many-core host
 * (bench/device_limits.sh, PARTS=contend). Not a test.
 *   colstat_contend cpu SECONDS  parses the same 4,096 fields of the
 *       benchmark's row shapes (about 50 KB, resident in the core's own
 *       caches) with parse_number_padded, over and over: no memory
 *       traffic, so only a slower core (a shared physical core, a lower
 *       clock) slows it. Prints ns a field.
 *   colstat_contend mem SECONDS  copies a 256 MiB buffer into another,
 *       over and over: DRAM traffic only. Prints GB/s copied.
 * Run one alone, then one per core at once: the ratio of the two says
 * which resource the busy machine shares. */
#include "io/num/parse_number.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { FIELDS = 4096, COPY_BYTES = 256 << 20 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* One field of column c, as bench/gen.c writes its columns. */
static int field(char *o, int c, uint64_t r)
{
    switch (c) {
    case 0:
        return sprintf(o, "%llu", 10000000ull + r % 100000000ull);
    case 1:
        return sprintf(o, "%.2f", (double)(1 + r % 999999) / 100);
    case 2:
        return sprintf(o, "%lld", (long long)(r % 199999) - 99999);
    case 3:
        return sprintf(o, "%.4f",
                       (double)((long long)(r % 1000001) - 400000) / 1e4);
    case 4:
        return sprintf(o, "%.17g", (double)(r >> 11) * 0x1p-53 * 1000);
    case 5:
        return sprintf(o, "%.6e", (double)(r >> 11) * 0x1p-40);
    case 6:
        return sprintf(o, "%d", (int)(r % 7));
    default:
        return sprintf(o, "%.3f", (double)(r % 1000000) / 1000);
    }
}

static int run_cpu(double seconds)
{
    static char text[FIELDS * 32 + NUM_PAD];
    static uint32_t off[FIELDS + 1];
    uint64_t seed = 7;
    uint32_t at = 0;
    for (int i = 0; i < FIELDS; i++) {
        off[i] = at;
        at += (uint32_t)field(text + at, i % 8, next(&seed));
    }
    off[FIELDS] = at;
    double sum = 0, t0 = now(), t;
    long passes = 0;
    do {
        for (int i = 0; i < FIELDS; i++) {
            double x;
            int32_t corr;
            parse_number_padded(text + off[i], off[i + 1] - off[i], NULL, &x,
                                &corr);
            sum += x;
        }
        passes++;
    } while ((t = now() - t0) < seconds);
    printf("cpu %.2f ns a field (%ld passes, %g)\n",
           t * 1e9 / ((double)passes * FIELDS), passes, sum);
    return 0;
}

static int run_mem(double seconds)
{
    char *a = malloc(COPY_BYTES), *b = malloc(COPY_BYTES);
    if (!a || !b) {
        fputs("colstat_contend: out of memory\n", stderr);
        return 1;
    }
    memset(a, 1, COPY_BYTES);
    memset(b, 2, COPY_BYTES);
    double t0 = now(), t;
    long copies = 0;
    do {
        memcpy(copies & 1 ? a : b, copies & 1 ? b : a, COPY_BYTES);
        copies++;
    } while ((t = now() - t0) < seconds);
    printf("mem %.2f GB/s copied (%ld copies, %d)\n",
           (double)copies * COPY_BYTES / t / 1e9, copies, a[7] + b[9]);
    free(a);
    free(b);
    return 0;
}

int main(int argc, char **argv)
{
    double seconds = argc > 2 ? atof(argv[2]) : 3;
    if (argc > 1 && !strcmp(argv[1], "cpu"))
        return run_cpu(seconds);
    if (argc > 1 && !strcmp(argv[1], "mem"))
        return run_mem(seconds);
    fputs("usage: colstat_contend cpu|mem [SECONDS]\n", stderr);
    return 2;
}
