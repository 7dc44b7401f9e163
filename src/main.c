/* colstat: per-column statistics of CSV, gzip CSV and binary numbers.
 * main, top-down: parse the command line, run what it asks, print the
 * error if any, exit. It and its files in src/cli/ are the one place that
 * prints: the result (output.c), errors and the engine's warnings, -v
 * lines and progress through its sink (messages.c). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "src/cli/exit_status.h"
#include "src/cli/handover.h"
#include "src/cli/hooks.h"
#include "src/cli/messages.h"
#include "src/cli/output.h"
#include "src/dist/merge.h"
#include "src/dist/mpi_run.h"
#include "src/dist/part.h"
#include "src/engine/engine.h"
#include "src/name_escape.h"
#include "src/options.h"

/* --list-columns: the names a run would give the fields, one a line,
 * for scripts and shell completion; only the head of the input is read.
 * A line break in a name is escaped as -c reads it back (name_escape.h),
 * so that a line is always one name. */
static int list_columns(const options *o, cs_error *e)
{
    messages m;
    engine_sink sink = messages_open(&m);
    char **names;
    int n;
    int rc = engine_list_columns(&o->cfg, &sink, &names, &n, e);
    for (int i = 0; rc == CS_OK && i < n; i++) {
        name_escape_write(stdout, names[i]);
        putchar('\n');
    }
    engine_names_free(names, n);
    flush_messages(&m);
    return rc == CS_OK ? stdout_done(e) : rc;
}

/* --merge: the operands are states; their report is the one run over all
 * their parts would give, of the statistics and columns asked among those
 * the states hold; with --emit-state, the merged state (a merge tree). */
static int merge(options *o, cs_error *e)
{
    engine_result res;
    state_info info;
    merge_ask ask = {o->asked,
                     o->cfg.columns,
                     o->bins_set ? o->cfg.nbins : 0,
                     o->cfg.have_range,
                     o->cfg.range_lo,
                     o->cfg.range_hi,
                     (o->asked & STAT_TOP) ? o->cfg.top : 0,
                     o->cfg.memory_set ? o->cfg.memory
                                       : engine_default_memory()};
    int rc = merge_states(o->cfg.files, o->cfg.nfiles, &ask, !o->emit_state,
                          &res, &o->cfg.what, &info, e);
    if (rc == CS_OK && o->cfg.group_by && !res.groups && !state_no_rows(&res))
        rc = cs_fail(e, CS_EUSAGE, "", 0,
                     "--merge -g: the states hold no groups (emit them with "
                     "-g)");
    if (rc == CS_OK)
        rc = o->emit_state ? write_state_as(o, &info, &res, e)
                           : write_result(o, &res, e);
    free(info.key);
    engine_result_free(&res);
    return rc;
}

/* --part: the threads that summarise the ranges before the part. */
static int part_threads(const engine_config *c)
{
    return c->threads > 0 ? c->threads : engine_cores();
}

static int summarize(options *o, cs_error *e)
{
    messages m;
    engine_sink sink = messages_open(&m);
    engine_result res = {0};
    engine *eng = NULL;
    read_hooks(&o->cfg.hooks);
    m.progress_tty = isatty(STDERR_FILENO);
    o->cfg.tmpdir = getenv("TMPDIR");
    o->cfg.progress = o->progress < 0 ? m.progress_tty : o->progress;
    o->cfg.no_rows_ok = o->emit_state; /* a part may hold no rows */
    engine_part *parts = NULL;
    engine_mpi share = {0}; /* --part: this process's parts, as a rank's */
    int rc = o->part_n ? dist_part_plan(&o->cfg, o->part_k, o->part_n,
                                        part_threads(&o->cfg), &parts, e)
                       : CS_OK;
    share.parts = parts;
    if (parts)
        o->cfg.mpi = &share;
    if (rc == CS_OK)
        rc = engine_run(&o->cfg, &sink, &eng, &res, e);
    if (rc == CS_OK)
        rc = o->emit_state ? write_state(o, &res, e) : write_result(o, &res, e);
    flush_messages(&m);
    if (rc == CS_OK && fast_exit()) {
        fflush(stderr);
        _exit(rc);
    }
    engine_close(eng);
    engine_result_free(&res);
    free(parts);
    return rc;
}

/* --mpi: every rank runs its share; rank 0 alone writes the result and
 * the one error line; every rank exits with the same status. */
static int summarize_mpi(options *o, int *root, cs_error *e)
{
    messages m;
    engine_sink sink = messages_open(&m);
    engine_result res;
    read_hooks(&o->cfg.hooks);
    o->cfg.progress = o->progress < 0 ? isatty(STDERR_FILENO) : o->progress;
    int rc = dist_mpi_run(&o->cfg, &sink, &res, root, e);
    if (rc == CS_OK && *root)
        rc = o->emit_state ? write_state(o, &res, e) : write_result(o, &res, e);
    flush_messages(&m);
    /* printed before MPI ends: a launcher may stop the job as soon as a
     * rank exits with an error */
    if (rc != CS_OK && *root)
        print_error(e, o->json_errors);
    fflush(stderr);
    *root = 0;
    engine_result_free(&res);
    dist_mpi_end();
    return rc;
}

int main(int argc, char **argv)
{
    /* A closed pipe (colstat ... | head) must read as EPIPE, not kill us
     * with a signal: the engine then ends quietly with status 0. */
    signal(SIGPIPE, SIG_IGN);
    options o;
    cs_error e = {0};
    int root = 1; /* --mpi: rank 0, the one that prints */
    int rc = options_parse(argc, argv, &o, &e);
    /* under --mpi every rank runs this: an error, the help, the version
       and the column list are printed once, by rank 0, as one process
       prints them */
    if (o.mpi && (rc != CS_OK || o.action != ACT_RUN))
        root = launched_rank0();
    if (rc == CS_OK && o.action != ACT_RUN && !root) {
        rc = CS_OK;
    } else if (rc == CS_OK && o.action == ACT_HELP) {
        options_usage(stdout);
        rc = stdout_done(&e);
    } else if (rc == CS_OK && o.action == ACT_VERSION) {
        printf("colstat %s\n", COLSTAT_VERSION);
        rc = stdout_done(&e);
    } else if (rc == CS_OK && o.action == ACT_LIST) {
        rc = list_columns(&o, &e);
    } else if (rc == CS_OK && o.merge)
        rc = merge(&o, &e);
    else if (rc == CS_OK && o.mpi) {
        if (!dist_mpi_built())
            hand_over_mpi(argv);
        rc = summarize_mpi(&o, &root, &e);
    } else if (rc == CS_OK)
        rc = summarize(&o, &e);
    if (rc != CS_OK && root)
        print_error(&e, o.json_errors || options_json_errors(argc, argv));
    options_free(&o);
    return cs_exit_status(rc);
}
