/* The messages of a run: errors, the engine's warnings, -v lines and
 * progress, the only text colstat writes to stderr. */
#ifndef COLSTAT_SRC_CLI_MESSAGES_H
#define COLSTAT_SRC_CLI_MESSAGES_H

#include <stdio.h>
#include <time.h>

#include "io/base/error.h"
#include "src/engine/engine.h"

/* Seconds between progress lines that go to a file or a pipe. */
#define PLAIN_EVERY 2

/* Messages wait until the result is written (or an error is), so stderr
 * reads in the order things happened and never interrupts a table;
 * progress alone is shown at once. */
typedef struct messages {
    char *text;
    size_t len;
    FILE *buf; /* open_memstream over text */
    int progress_shown;
    int progress_tty; /* progress redraws one line, else a line each */
    time_t last_line; /* of the plain lines: one each PLAIN_EVERY seconds */
} messages;

/* Starts holding messages back; the sink hands them to m. */
engine_sink messages_open(messages *m);

/* Writes the messages held back to stderr. */
void flush_messages(messages *m);

/* An error: one line on stderr, always; with json also one JSON document
 * on stdout. */
void print_error(const cs_error *e, int json);

#endif
