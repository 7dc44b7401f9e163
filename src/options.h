/* The command line, parsed with getopt_long (GNU conventions). */
#ifndef COLSTAT_SRC_OPTIONS_H
#define COLSTAT_SRC_OPTIONS_H

#include "io/base/error.h"
#include "src/engine/engine.h"
#include "src/report/report.h"
#include "src/stats/quantile.h"

/* ACT_LIST: --list-columns, the input's column names instead of
 * statistics */
typedef enum opt_action { ACT_RUN, ACT_HELP, ACT_VERSION, ACT_LIST } opt_action;

typedef struct options {
    opt_action action;
    engine_config cfg; /* what the engine does; argv must outlive it */
    qlist quantiles;   /* --quantiles; run.quantiles points into it */
    out_format format;
    int progress;  /* 1, 0, -1: when stderr is a terminal */
    char *columns; /* -c lists joined by commas (run.columns points here) */

    /* How text is read and results are shown (run.num points at num) */
    num_format num;
    int digits;        /* --digits N, 0 when not given */
    out_layout layout; /* --layout */
    /* --emit-state[=FILE]: the partial state instead of the report, to
       FILE or standard output (state_path NULL); --merge: the operands
       are states to merge and report */
    int emit_state, merge;
    int mpi;            /* --mpi: one rank of many (src/dist/mpi_run.h) */
    int top;            /* --top K */
    int part_k, part_n; /* --part K/N (src/dist/part.h); 0: none */
    char **names;       /* --names, malloc'ed ([run.nnames]) */
    /* what the command line said itself (--merge answers the states'
       statistics unless asked, and checks --bins against theirs) */
    unsigned asked; /* STAT_* given; 0: none */
    int bins_set;   /* --bins given */
    /* --json-bigint=string: integers past +-2^53 as JSON strings;
       --json-errors: an error also as a JSON document on stdout */
    int bigint_string, json_errors;
    const char *state_path;
} options;

/* Returns CS_OK, or CS_EUSAGE with e saying what is wrong. argv must
 * outlive o. */
int options_parse(int argc, char **argv, options *o, cs_error *e);
void options_free(options *o);

/* Whether argv asks for --json-errors, for an error found while parsing
 * it (options_parse stops at the first). */
int options_json_errors(int argc, char **argv);

/* The --help text. */
void options_usage(FILE *f);

#endif
