#include "src/engine/account.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

double account_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void account_init(account *a, const engine_sink *sink, int verbose,
                  int progress)
{
    memset(a, 0, sizeof *a);
    a->sink = sink;
    a->verbose = verbose;
    a->progress = progress;
    a->t_start = account_now();
}

void account_time(account *a, acc_time k, double seconds)
{
    a->t[k] += seconds;
}

void account_bytes(account *a, uint64_t n)
{
    a->bytes_in += n;
}

void account_stream(account *a, double seconds, uint64_t bytes)
{
    a->t[ACC_STREAM] += seconds;
    a->stream_bytes += bytes;
}

static void send(account *a, engine_msg kind, const char *file, uint64_t line,
                 const char *fmt, va_list ap)
{
    char text[512];
    vsnprintf(text, sizeof text, fmt, ap);
    a->sink->say(a->sink->ctx, kind, file, line, text);
}

void account_progress(account *a, const char *name, uint64_t pos, uint64_t size)
{
    double now = account_now();
    /* Quick runs stay quiet: the line appears after the first second. */
    if (!a->progress || now - a->last_progress < 0.5 || now - a->t_start < 1.0)
        return;
    a->last_progress = now;
    a->progress_shown = 1;
    double mb = (double)a->bytes_in / 1e6, dt = now - a->t_start;
    char text[512];
    if (size)
        snprintf(text, sizeof text, "%s %3.0f%%  %.0f MB  %.0f MB/s ", name,
                 100.0 * (double)pos / (double)size, mb,
                 dt > 0 ? mb / dt : 0.0);
    else
        snprintf(text, sizeof text, "%s  %.0f MB  %.0f MB/s ", name, mb,
                 dt > 0 ? mb / dt : 0.0);
    a->sink->say(a->sink->ctx, ENGINE_PROGRESS, "", 0, text);
}

void account_progress_end(account *a)
{
    if (a->progress_shown)
        a->sink->say(a->sink->ctx, ENGINE_PROGRESS_END, "", 0, "");
    a->progress_shown = 0;
}

void account_say(account *a, const char *fmt, ...)
{
    if (!a->verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    send(a, ENGINE_VERBOSE, "", 0, fmt, ap);
    va_end(ap);
}

void account_warn(account *a, const char *file, uint64_t line, const char *fmt,
                  ...)
{
    va_list ap;
    va_start(ap, fmt);
    send(a, ENGINE_WARNING, file, line, fmt, ap);
    va_end(ap);
}
