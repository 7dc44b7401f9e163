/* A sampling profiler for hosts without perf (the GPU host has none): not
 * part of colstat. Linked into a side build, it samples the program
 * counter on SIGPROF (every tick of process CPU time: 4 ms at HZ=250)
 * when PCPROF=FILE is set, and at exit writes the addresses to FILE and
 * the process's mappings to FILE.maps; bench/pcprof_sym.py turns them
 * into a flat profile by function. colstat leaves by _exit after its
 * answer, which skips the writing: run it with COLSTAT_FULL_EXIT=1.
 * Build and run:
 *   gcc -O2 -c bench/pcprof.c -o /tmp/pcprof.o
 *   ar rcs /tmp/libpcprof.a /tmp/pcprof.o
 *   cmake -S . -B /tmp/build-prof -DCMAKE_BUILD_TYPE=Release \
 *     -DCOLSTAT_STATIC_DEPS=ON -DCOLSTAT_CUDA=OFF -DCOLSTAT_MPI=OFF \
 *     "-DCMAKE_EXE_LINKER_FLAGS=-Wl,--whole-archive /tmp/libpcprof.a \
 *      -Wl,--no-whole-archive"
 *   cmake --build /tmp/build-prof --target colstat
 *   COLSTAT_FULL_EXIT=1 PCPROF=/tmp/pc.txt /tmp/build-prof/colstat ...
 *   python3 bench/pcprof_sym.py /tmp/build-prof/colstat /tmp/pc.txt */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <ucontext.h>

#define PCPROF_MAX (1u << 22) /* samples kept: 4.6 hours of CPU time */

static uintptr_t *pcs;
static unsigned long npcs;

static void on_prof(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)si;
    unsigned long i = __atomic_fetch_add(&npcs, 1, __ATOMIC_RELAXED);
    if (i < PCPROF_MAX)
        pcs[i] = (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
}

__attribute__((constructor)) static void pcprof_start(void)
{
    if (!getenv("PCPROF") || !(pcs = calloc(PCPROF_MAX, sizeof *pcs)))
        return;
    struct sigaction sa = {0};
    sa.sa_sigaction = on_prof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
    struct itimerval it = {{0, 250}, {0, 250}};
    setitimer(ITIMER_PROF, &it, NULL);
}

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "r"), *out = fopen(to, "w");
    int ch;
    while (in && out && (ch = fgetc(in)) != EOF)
        fputc(ch, out);
    if (in)
        fclose(in);
    if (out)
        fclose(out);
}

__attribute__((destructor)) static void pcprof_stop(void)
{
    const char *f = getenv("PCPROF");
    if (!f || !pcs)
        return;
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &off, NULL);
    FILE *o = fopen(f, "w");
    if (!o)
        return;
    unsigned long n = npcs < PCPROF_MAX ? npcs : PCPROF_MAX;
    for (unsigned long i = 0; i < n; i++)
        fprintf(o, "%lx\n", (unsigned long)pcs[i]);
    fclose(o);
    char maps[4096];
    snprintf(maps, sizeof maps, "%s.maps", f);
    copy_file("/proc/self/maps", maps);
}
