/* colstat: per-column statistics of CSV, gzip CSV and binary numbers.
 * main is the one place that prints errors and chooses the exit status. */
#include <signal.h>
#include <stdio.h>

#include "io/error.h"
#include "options.h"
#include "src/engine/engine.h"

static void print_error(const cs_error *e)
{
    fputs("colstat: ", stderr);
    if (e->file[0] && e->line)
        fprintf(stderr, "%s:%llu: ", e->file, e->line);
    else if (e->file[0])
        fprintf(stderr, "%s: ", e->file);
    fprintf(stderr, "%s\n", e->msg);
}

int main(int argc, char **argv)
{
    /* A closed pipe (colstat ... | head) must read as EPIPE, not kill us
     * with a signal: the engine then ends quietly with status 0. */
    signal(SIGPIPE, SIG_IGN);
    options o = {0};
    cs_error e = {0};
    int rc = options_parse(argc, argv, &o, &e);
    if (rc == CS_OK && o.action == ACT_HELP)
        options_usage(stdout);
    else if (rc == CS_OK && o.action == ACT_VERSION)
        printf("colstat %s\n", COLSTAT_VERSION);
    else if (rc == CS_OK)
        rc = engine_run(&o, stdout, stderr, &e);
    if (rc != CS_OK)
        print_error(&e);
    options_free(&o);
    return rc;
}
