/* The command line, parsed with getopt_long (GNU conventions). */
#ifndef COLSTAT_SRC_OPTIONS_H
#define COLSTAT_SRC_OPTIONS_H

#include "io/error.h"
#include "src/report/report.h"

typedef enum device_choice { DEV_AUTO, DEV_CPU, DEV_GPU } device_choice;
typedef enum opt_action { ACT_RUN, ACT_HELP, ACT_VERSION } opt_action;

typedef struct options {
    opt_action action;
    const char **files;  /* nfiles names; "-" for standard input */
    int nfiles;          /* at least 1: no FILE means "-" */
    const char *columns; /* -c LIST as given, NULL for the default */
    char delim;          /* 0: detect */
    int header;          /* 1 --header, 0 --no-header, -1 detect */
    const char *binary;  /* -b SPEC, NULL for CSV */
    unsigned what;       /* STAT_* bits */
    int nbins;           /* 256 */
    int have_range;
    double range_lo, range_hi;
    out_format format;
    device_choice device;
    int threads; /* 0: all cores */
    int strict;
    int progress; /* 1, 0, -1 auto */
    int verbose;
} options;

/* Returns CS_OK, or CS_EUSAGE with e saying what is wrong. argv must
 * outlive o. */
int options_parse(int argc, char **argv, options *o, cs_error *e);
void options_free(options *o);

/* The --help text. */
void options_usage(FILE *f);

#endif
