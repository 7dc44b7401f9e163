#include "src/engine/policy.h"

#include <stdio.h>

#include "src/stats/stats.h"

/* Throughputs (bytes of input per second) and fixed costs, measured on the
 * GPU host, 16 cores and one H100/H200 (bench/auto; bench/RESULTS.md, "auto"),
 * page cache. The CPU's scale with its threads up to what memory gives. */
#define CPU_FIXED_S 0.003
/* count, sum, mean, min, max: 16 threads read 1 to 4 GB at 0.20 s a GB
 * (2026-11-28); the 0.12e9 measured before the vectorised reader sent 1
 * GB to a GPU 1.97x slower */
#define CPU_CSV_PER_THREAD 0.29e9
/* values kept to bin at the end (-a): 16 threads 0.267 s at 350 MB, the
 * GPU 0.504; about even at 450 MB (2026-11-28; 0.05e9 sent 350 MB to
 * the GPU, 1.93x slower) */
#define CPU_CSV_KEEP_PER_THREAD 0.065e9
#define CPU_BIN_PER_THREAD 0.75e9 /* fixed-width records */
#define CPU_BIN_KEEP_PER_THREAD 0.2e9
#define CPU_BIN_MAX 12e9         /* what the memory reads, all threads */
#define INFLATE_TEXT 0.27e9      /* zlib etc., text bytes out per second */
#define GUNZIP_PER_THREAD 0.15e9 /* the parallel gzip decoder, text out */
#define TEXT_PER_GZIP_BYTE 2.1   /* the benchmark CSV's gzip -6 ratio */
#define GPU_FIXED_S 0.38         /* opening, page-locking, teardown */
#define GPU_CSV 19e9
#define GPU_CSV_KEEP 14e9
#define GPU_BIN 29e9
#define GPU_BIN_KEEP 14e9
/* --group-by of 1,000 keys, -g key --sum --min --max of 8 columns (H100,
 * bench/RESULTS.md, 2026-11-27): the CPU 2 GB in 1.47-1.58 s on 16
 * threads, the device 16 GB in 1.78 s and 500 MB in 0.54 s */
#define CPU_GROUP_PER_THREAD 0.08e9
#define GPU_GROUP_CSV 12e9
#define GPU_GROUP_FIXED_S 0.45
/* --distinct, --mode, --top (H100 host, bench/device_profiles.sh,
 * 2026-11-27): 16 GB counted in 11.2-11.3 s on 16 threads (a number
 * column of 54,000 values, a text column of 10,000), the device's in
 * 1.30 s with every value kept */
#define CPU_PROFILE_PER_THREAD 0.09e9

static int keeps_values(const policy_params *p)
{
    return stats_need_values(p->what, p->have_range);
}

static int profiles(const policy_params *p)
{
    return (p->what & STAT_PROFILE) != 0;
}

static double cpu_rate(const policy_params *p)
{
    double per = p->binary
                     ? (keeps_values(p) || profiles(p) ? CPU_BIN_KEEP_PER_THREAD
                                                       : CPU_BIN_PER_THREAD)
                 : profiles(p)     ? CPU_PROFILE_PER_THREAD
                 : keeps_values(p) ? CPU_CSV_KEEP_PER_THREAD
                                   : CPU_CSV_PER_THREAD;
    if (p->group && !p->binary)
        per = CPU_GROUP_PER_THREAD;
    double r = per * (p->threads > 0 ? p->threads : 1);
    return p->binary && r > CPU_BIN_MAX ? CPU_BIN_MAX : r;
}

static double gpu_rate(const policy_params *p)
{
    if (p->group) /* binary records are grouped on the host */
        return p->binary ? 1 : GPU_GROUP_CSV;
    if (p->binary)
        return keeps_values(p) || profiles(p) ? GPU_BIN_KEEP : GPU_BIN;
    return keeps_values(p) || profiles(p) ? GPU_CSV_KEEP : GPU_CSV;
}

/* Seconds each backend spends on one input. A compressed input is bound
 * by its decompression, the same for both (the GPU only adds its fixed
 * cost); so is a stream, whose size nobody knows before it ends. */
static void add_input(const policy_params *p, const probe_info *in, double *cpu,
                      double *gpu)
{
    double b = (double)in->bytes;
    switch (in->kind) {
    case PROBE_PLAIN:
        *cpu += b / cpu_rate(p);
        *gpu += b / gpu_rate(p);
        break;
    case PROBE_GZIP: {
        /* decoded by every thread in parallel; on the CPU the threads
         * then parse it too */
        double text = b * TEXT_PER_GZIP_BYTE, threads = p->threads;
        double inflate =
            text / (GUNZIP_PER_THREAD * (threads > 0 ? threads : 1));
        *cpu += inflate + text / cpu_rate(p);
        *gpu += inflate;
        break;
    }
    case PROBE_COMPRESSED: {
        double t = b * TEXT_PER_GZIP_BYTE / INFLATE_TEXT;
        *cpu += t;
        *gpu += t;
        break;
    }
    case PROBE_STREAM:
        break;
    }
}

void policy_choose(const policy_params *p, const probe_info *in, int n,
                   policy_choice *out)
{
    double fixed = p->group ? GPU_GROUP_FIXED_S : GPU_FIXED_S;
    double cpu = CPU_FIXED_S, gpu = fixed, bytes = 0;
    int streams = 0;
    for (int i = 0; i < n; i++) {
        add_input(p, &in[i], &cpu, &gpu);
        bytes += (double)in[i].bytes;
        streams += in[i].kind == PROBE_STREAM;
    }
    out->cpu_s = cpu;
    out->gpu_s = gpu;
    out->gpu = p->gpu_present && gpu < cpu && !(p->group && p->binary);
    const char *what = !p->gpu_present ? "no GPU present"
                       : out->gpu      ? "the GPU is estimated faster"
                                       : "the CPU is estimated faster";
    snprintf(out->why, sizeof out->why,
             "auto chose the %s: %s (%d input%s, %.1f MB%s; estimated cpu "
             "%.3f s, gpu %.3f s with %.2f s to open it)",
             out->gpu ? "GPU" : "CPU", what, n, n == 1 ? "" : "s", bytes / 1e6,
             streams ? " and streams of unknown size" : "", cpu, gpu, fixed);
}
