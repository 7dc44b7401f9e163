/* Messages to stderr: escaped to one line each, held back until the
 * result is out, progress at once. */
#include "src/cli/messages.h"

#include <stdint.h>
#include <stdlib.h>

#include "src/report/report.h"
#include "src/stats/utf8.h"

/* Every message is one line, whatever a file name, a field or an option
 * holds: control bytes print as \n, \r, \t or \xNN, and so do bytes that
 * are not UTF-8. The one place user text reaches the terminal. */
static void put_escaped(FILE *f, const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    while (*s) {
        size_t len = *s >= 0x80 ? utf8_seq(s, 4) : 0;
        if (len) {
            fwrite(s, 1, len, f);
            s += len;
        } else if (*s == '\n' || *s == '\r' || *s == '\t') {
            fputs(*s == '\n' ? "\\n" : *s == '\r' ? "\\r" : "\\t", f);
            s++;
        } else if (*s < 0x20 || *s >= 0x7F) {
            fprintf(f, "\\x%02X", *s);
            s++;
        } else {
            putc(*s++, f);
        }
    }
}

static void print_located(FILE *f, const char *file, unsigned long long line,
                          const char *text)
{
    fputs("colstat: ", f);
    if (file[0]) {
        put_escaped(f, file);
        if (line)
            fprintf(f, ":%llu", line);
        fputs(": ", f);
    }
    put_escaped(f, text);
    putc('\n', f);
}

static void say(void *ctx, engine_msg kind, const char *file, uint64_t line,
                const char *text)
{
    messages *m = ctx;
    if (kind == ENGINE_PROGRESS || kind == ENGINE_PROGRESS_END) {
        /* a log or a pipe gets plain lines, fewer: no \r, no escapes */
        time_t now = time(NULL);
        if (!m->progress_tty && kind == ENGINE_PROGRESS &&
            now - m->last_line >= PLAIN_EVERY) {
            fputs("colstat: ", stderr);
            put_escaped(stderr, text);
            putc('\n', stderr);
            m->last_line = now;
        } else if (m->progress_tty) {
            fputs(kind == ENGINE_PROGRESS ? "\rcolstat: " : "\r\033[K", stderr);
            if (kind == ENGINE_PROGRESS)
                put_escaped(stderr, text);
        }
        fflush(stderr);
        return;
    }
    print_located(m->buf ? m->buf : stderr, file, line, text);
}

engine_sink messages_open(messages *m)
{
    *m = (messages){0};
    m->buf = open_memstream(&m->text, &m->len);
    return (engine_sink){say, m};
}

void flush_messages(messages *m)
{
    if (!m->buf)
        return;
    fclose(m->buf);
    m->buf = NULL;
    fwrite(m->text, 1, m->len, stderr);
    free(m->text);
    m->text = NULL;
}

/* With --json-errors the JSON document is for programs that read only
 * stdout (nothing else is on it: the report is written whole or not at
 * all). */
void print_error(const cs_error *e, int json)
{
    print_located(stderr, e->file, e->line, e->msg);
    if (json) {
        report_json_error(stdout, e->file, (unsigned long long)e->line, e->msg,
                          cs_exit_status(e->status));
        fflush(stdout);
    }
}
