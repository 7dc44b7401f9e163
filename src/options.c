#include "options.h"
#include "name_escape.h"
#include "suggest.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Codes for the long-only options (past every char value). */
enum {
    OPT_HEADER = 256,
    OPT_NO_HEADER,
    OPT_COUNT,
    OPT_SUM,
    OPT_MEAN,
    OPT_STD,
    OPT_MIN,
    OPT_MAX,
    OPT_HIST,
    OPT_BINS,
    OPT_RANGE,
    OPT_TSV,
    OPT_CSV,
    OPT_JSON,
    OPT_DEVICE,
    OPT_STRICT,
    OPT_PROGRESS,
    OPT_NO_PROGRESS,
    OPT_NULL,
    OPT_THOUSANDS,
    OPT_DECIMAL,
    OPT_DIGITS,
    OPT_LAYOUT,
    OPT_MEDIAN,
    OPT_QUANTILES,
    OPT_MEMORY,
    OPT_EMIT_STATE,
    OPT_MERGE,
    OPT_PART,
    OPT_NAMES,
    OPT_MPI,
    OPT_LIST_COLUMNS,
    OPT_JSON_BIGINT,
    OPT_JSON_ERRORS,
    OPT_DISTINCT,
    OPT_MODE,
    OPT_TOP,
};

/* The leading ':' makes a missing argument ':' rather than '?'. */
static const char short_opts[] = ":c:g:d:b:o:j:avhVW";

static const struct option long_opts[] = {
    {"columns", required_argument, NULL, 'c'},
    {"group-by", required_argument, NULL, 'g'},
    {"delimiter", required_argument, NULL, 'd'},
    {"header", no_argument, NULL, OPT_HEADER},
    {"no-header", no_argument, NULL, OPT_NO_HEADER},
    {"binary", required_argument, NULL, 'b'},
    {"count", no_argument, NULL, OPT_COUNT},
    {"sum", no_argument, NULL, OPT_SUM},
    {"mean", no_argument, NULL, OPT_MEAN},
    {"std", no_argument, NULL, OPT_STD},
    {"min", no_argument, NULL, OPT_MIN},
    {"max", no_argument, NULL, OPT_MAX},
    {"hist", no_argument, NULL, OPT_HIST},
    {"median", no_argument, NULL, OPT_MEDIAN},
    {"quantiles", required_argument, NULL, OPT_QUANTILES},
    {"distinct", no_argument, NULL, OPT_DISTINCT},
    {"mode", no_argument, NULL, OPT_MODE},
    {"top", required_argument, NULL, OPT_TOP},
    {"memory", required_argument, NULL, OPT_MEMORY},
    {"all", no_argument, NULL, 'a'},
    {"bins", required_argument, NULL, OPT_BINS},
    {"range", required_argument, NULL, OPT_RANGE},
    {"format", required_argument, NULL, 'o'},
    {"tsv", no_argument, NULL, OPT_TSV},
    {"csv", no_argument, NULL, OPT_CSV},
    {"json", no_argument, NULL, OPT_JSON},
    {"json-bigint", required_argument, NULL, OPT_JSON_BIGINT},
    {"json-errors", no_argument, NULL, OPT_JSON_ERRORS},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"threads", required_argument, NULL, 'j'},
    {"strict", no_argument, NULL, OPT_STRICT},
    {"progress", no_argument, NULL, OPT_PROGRESS},
    {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
    {"whitespace", no_argument, NULL, 'W'},
    {"null", required_argument, NULL, OPT_NULL},
    {"thousands", required_argument, NULL, OPT_THOUSANDS},
    {"decimal", required_argument, NULL, OPT_DECIMAL},
    {"digits", required_argument, NULL, OPT_DIGITS},
    {"layout", required_argument, NULL, OPT_LAYOUT},
    {"emit-state", optional_argument, NULL, OPT_EMIT_STATE},
    {"merge", no_argument, NULL, OPT_MERGE},
    {"part", required_argument, NULL, OPT_PART},
    {"names", required_argument, NULL, OPT_NAMES},
    {"mpi", no_argument, NULL, OPT_MPI},
    {"list-columns", no_argument, NULL, OPT_LIST_COLUMNS},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static const char *const stdin_name[] = {"-"};

static void set_defaults(options *o)
{
    memset(o, 0, sizeof *o);
    o->action = ACT_RUN;
    o->cfg.header = -1;
    o->cfg.what = STAT_DEFAULT;
    o->cfg.nbins = 256;
    o->format = FMT_TABLE;
    o->cfg.device = ENGINE_AUTO;
    o->progress = -1;
    num_format_init(&o->num);
    o->layout = LAYOUT_AUTO;
}

/* The long option an argv element names: exact match, else a unique
 * prefix. *nmatch says how many prefixes matched (for "ambiguous"). */
static const struct option *find_long(const char *arg, int *nmatch)
{
    size_t n = strcspn(arg, "=");
    const struct option *found = NULL;
    *nmatch = 0;
    for (const struct option *p = long_opts; p->name; p++) {
        if (strncmp(p->name, arg, n) != 0)
            continue;
        if (strlen(p->name) == n) {
            *nmatch = 1;
            return p;
        }
        found = p;
        ++*nmatch;
    }
    return found;
}

/* An unknown long option, with what it probably meant: --percentile
 * gets --quantiles, --sun gets --sum. */
static int unknown_option(const char *arg, size_t len, cs_error *e)
{
    enum { NOPTS = sizeof long_opts / sizeof *long_opts };
    const char *names[NOPTS];
    for (size_t i = 0; i < NOPTS; i++)
        names[i] = long_opts[i].name; /* the last is NULL */
    char advice[128];
    suggest_option(arg, len, names, advice, sizeof advice);
    return cs_fail(e, CS_EUSAGE, "", 0,
                   "unknown option '--%.*s'%s%s (colstat --help lists them)",
                   (int)len, arg, advice[0] ? ": " : "", advice);
}

/* getopt_long stays silent (opterr = 0); this says what it rejected. */
static int bad_option(int c, const char *elem, cs_error *e)
{
    int nmatch = 0;
    const struct option *p = NULL;
    int is_long = elem && strncmp(elem, "--", 2) == 0 && elem[2];
    if (is_long)
        p = find_long(elem + 2, &nmatch);
    /* Inside a cluster like -xv, argv[optind - 1] is still the element
     * before; optopt (0 for an unknown long option) tells them apart. */
    if (is_long && optopt != 0 && (!p || p->val != optopt))
        is_long = 0;
    if (is_long) {
        const char *arg = elem + 2;
        int len = (int)strcspn(arg, "=");
        if (!p)
            return unknown_option(arg, (size_t)len, e);
        if (nmatch > 1)
            return cs_fail(e, CS_EUSAGE, "", 0, "option '--%.*s' is ambiguous",
                           len, arg);
        if (p->has_arg == no_argument)
            return cs_fail(e, CS_EUSAGE, "", 0,
                           "option '--%s' doesn't allow an argument", p->name);
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "option '--%s' requires an argument", p->name);
    }
    if (c == ':')
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "option requires an argument -- '%c'", optopt);
    return cs_fail(e, CS_EUSAGE, "", 0, "invalid option -- '%c'", optopt);
}

/* A base-10 integer in [lo, hi], the whole string. */
static int parse_int(const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_finite(const char *s, size_t n, double *out)
{
    char buf[128];
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end;
    *out = strtod(buf, &end);
    return *end || !isfinite(*out) ? -1 : 0;
}

static int opt_range(options *o, const char *arg, cs_error *e)
{
    const char *colon = strchr(arg, ':');
    double lo, hi;
    if (!colon || parse_finite(arg, (size_t)(colon - arg), &lo) ||
        parse_finite(colon + 1, strlen(colon + 1), &hi))
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--range: '%s' is not LO:HI with finite numbers", arg);
    if (!(lo < hi))
        return cs_fail(e, CS_EUSAGE, "", 0, "--range: '%s' needs LO < HI", arg);
    o->cfg.have_range = 1;
    o->cfg.range_lo = lo;
    o->cfg.range_hi = hi;
    return CS_OK;
}

static int opt_delimiter(options *o, const char *arg, cs_error *e)
{
    if (!strcmp(arg, "\\t") || !strcmp(arg, "tab") || !strcmp(arg, "TAB"))
        arg = "\t";
    if (strlen(arg) != 1 || strchr("\"\r\n", arg[0]))
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--delimiter: '%s' is not a single character "
                       "(other than a quote or line break; 'tab' for tab)",
                       arg);
    o->cfg.delim = arg[0];
    return CS_OK;
}

/* Index of s in names (NULL-terminated), or -1. */
static int lookup(const char *s, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

static int opt_format(options *o, const char *arg, cs_error *e)
{
    static const char *const names[] = {"table", "tsv", "csv", "json", NULL};
    static const out_format fmts[] = {FMT_TABLE, FMT_TSV, FMT_CSV, FMT_JSON};
    int i = lookup(arg, names);
    if (i < 0)
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--format: '%s' is not one of table, tsv, csv, json",
                       arg);
    o->format = fmts[i];
    return CS_OK;
}

/* --json-bigint: number (exact digits, the default: nothing is lost for
 * a reader that keeps them) or string (for readers that round numbers
 * past 2^53: jq 1.6, JavaScript, R's jsonlite). */
static int opt_bigint(options *o, const char *arg, cs_error *e)
{
    static const char *const names[] = {"number", "string", NULL};
    int i = lookup(arg, names);
    if (i < 0)
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--json-bigint: '%s' is not one of number, string", arg);
    o->bigint_string = i == 1;
    return CS_OK;
}

static int opt_device(options *o, const char *arg, cs_error *e)
{
    static const char *const names[] = {"auto", "cpu", "gpu", NULL};
    static const engine_device devs[] = {ENGINE_AUTO, ENGINE_CPU, ENGINE_GPU};
    int i = lookup(arg, names);
    if (i < 0)
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--device: '%s' is not one of auto, cpu, gpu", arg);
    o->cfg.device = devs[i];
    return CS_OK;
}

/* --null LIST: comma-separated spellings, blanks around each dropped;
 * an empty one is no news (empty fields are missing anyway). */
static int opt_null(options *o, const char *arg, cs_error *e)
{
    for (const char *p = arg;;) {
        size_t n = strcspn(p, ",");
        const char *s = p, *end = p + n;
        while (s < end && (*s == ' ' || *s == '\t'))
            s++;
        while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
            end--;
        size_t len = (size_t)(end - s);
        if (len && strcspn(s, "\"\r\n") < len)
            return cs_fail(e, CS_EUSAGE, "", 0,
                           "--null: '%.*s' holds a quote or a line break",
                           (int)len, s);
        if (len && num_format_add_null(&o->num, s, len))
            return cs_fail(e, CS_EUSAGE, "", 0,
                           "--null: '%s': at most %d spellings of at most %d "
                           "bytes each",
                           arg, NUM_NULL_MAX, NUM_NULL_LEN);
        if (!p[n])
            return CS_OK;
        p += n + 1;
    }
}

/* --thousands, --decimal: one byte that cannot be part of a number
 * otherwise. */
static int opt_separator(const char *what, const char *arg, char *out,
                         cs_error *e)
{
    unsigned char c = (unsigned char)arg[0];
    int blank = c == ' ' || c == '\t';
    int bad = strlen(arg) != 1 || (c >= '0' && c <= '9') ||
              ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c < 0x20 ||
              c >= 0x7F || strchr("+-\"", c) ||
              (blank && !strcmp(what, "decimal"));
    if (bad)
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--%s: '%s' is not a single punctuation character%s",
                       what, arg, strcmp(what, "decimal") ? " or space" : "");
    *out = (char)c;
    return CS_OK;
}

static int opt_layout(options *o, const char *arg, cs_error *e)
{
    static const char *const names[] = {"auto", "wide", "long", NULL};
    static const out_layout layouts[] = {LAYOUT_AUTO, LAYOUT_WIDE, LAYOUT_LONG};
    int i = lookup(arg, names);
    if (i < 0)
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--layout: '%s' is not one of auto, wide, long", arg);
    o->layout = layouts[i];
    return CS_OK;
}

/* Options that only set a flag; returns 0 when c is not one of them. */
static int flag_option(options *o, int c, unsigned *what)
{
    static const struct {
        int c;
        unsigned bit;
    } stat_flags[] = {
        {OPT_COUNT, STAT_COUNT}, {OPT_SUM, STAT_SUM},
        {OPT_MEAN, STAT_MEAN},   {OPT_STD, STAT_STD},
        {OPT_MIN, STAT_MIN},     {OPT_MAX, STAT_MAX},
        {OPT_HIST, STAT_HIST},   {OPT_MEDIAN, STAT_MEDIAN},
        {'a', STAT_ALL},         {OPT_DISTINCT, STAT_DISTINCT},
        {OPT_MODE, STAT_MODE},
    };
    for (size_t i = 0; i < sizeof stat_flags / sizeof stat_flags[0]; i++)
        if (stat_flags[i].c == c) {
            *what |= stat_flags[i].bit;
            o->cfg.text_columns |= c == 'a'; /* every kind of column */
            return 1;
        }
    switch (c) {
    case OPT_HEADER:
        o->cfg.header = 1;
        return 1;
    case OPT_NO_HEADER:
        o->cfg.header = 0;
        return 1;
    case OPT_TSV:
        o->format = FMT_TSV;
        return 1;
    case OPT_CSV:
        o->format = FMT_CSV;
        return 1;
    case OPT_JSON:
        o->format = FMT_JSON;
        return 1;
    case OPT_STRICT:
        o->cfg.strict = 1;
        return 1;
    case OPT_PROGRESS:
        o->progress = 1;
        return 1;
    case OPT_NO_PROGRESS:
        o->progress = 0;
        return 1;
    case OPT_MERGE:
        o->merge = 1;
        return 1;
    case OPT_MPI:
        o->mpi = 1;
        return 1;
    case OPT_LIST_COLUMNS:
        o->action = ACT_LIST;
        return 1;
    case OPT_JSON_ERRORS:
        o->json_errors = 1;
        return 1;
    case 'v':
        o->cfg.verbose = 1;
        return 1;
    case 'W':
        o->cfg.whitespace = 1;
        return 1;
    case 'h':
        o->action = ACT_HELP;
        return 1;
    case 'V':
        o->action = ACT_VERSION;
        return 1;
    default:
        return 0;
    }
}

static void names_free(options *o)
{
    for (int i = 0; o->names && i < o->cfg.nnames; i++)
        free(o->names[i]);
    free(o->names);
    o->names = NULL;
}

/* One name of --names' list at *p, CSV's way: "..." may hold commas and
 * doubled quotes. Returns it malloc'ed (NULL when out of memory, or for an
 * open quote with *bad set); *p moves past it, and past its comma, which
 * *more tells. */
static char *next_name(const char **p, int *more, int *bad)
{
    const char *s = *p;
    char *out = malloc(strlen(s) + 1), *o = out;
    int quoted = *s == '"';
    s += quoted;
    while (out && *s && (quoted || *s != ',')) {
        if (quoted && *s == '"' && s[1] != '"') {
            quoted = 0;
            s++;
            continue;
        }
        s += quoted && *s == '"';
        *o++ = *s++;
    }
    if (out)
        *o = '\0';
    if (out && quoted) {
        *bad = 1;
        free(out);
        return NULL;
    }
    *more = *s == ',';
    *p = s + *more;
    return out;
}

/* --names A,B,...: the fields' names of headerless input (which --names
 * implies: the input's first line is a row). */
static int opt_names(options *o, const char *arg, cs_error *e)
{
    int n = 1, bad = 0, more = 1, k = 0;
    for (const char *c = arg; *c; c++)
        n += *c == ',';
    char **v = calloc((size_t)n, sizeof *v);
    for (const char *p = arg; v && more && k < n; k++)
        if (!(v[k] = next_name(&p, &more, &bad)))
            break;
    if (!v || more) {
        for (int i = 0; v && i < k; i++)
            free(v[i]);
        free(v);
        return cs_fail(e, CS_EUSAGE, "", 0,
                       bad ? "--names: a quote not closed in '%s'"
                           : "out of memory (--names '%s')",
                       arg);
    }
    names_free(o);
    o->names = v;
    o->cfg.names = v;
    o->cfg.nnames = k;
    o->cfg.header = 0;
    return CS_OK;
}

/* --part K/N: 1 <= K <= N <= 2^20 (a state numbers its parts in 32
 * bits; a million processes is past any run of one file). */
static int opt_part(options *o, const char *arg, cs_error *e)
{
    unsigned long k = 0, n = 0;
    char *end = NULL;
    if (arg[0] >= '0' && arg[0] <= '9')
        k = strtoul(arg, &end, 10);
    if (end && *end == '/' && end[1] >= '0' && end[1] <= '9')
        n = strtoul(end + 1, &end, 10);
    if (!end || *end || k < 1 || n < k || n > (1ul << 20))
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--part wants K/N, 1 <= K <= N <= 1048576 (the K-th "
                       "of N record-aligned parts), not '%s'",
                       arg);
    o->part_k = (int)k;
    o->part_n = (int)n;
    return CS_OK;
}

/* --quantiles LIST: exact decimals in [0, 1] (src/stats/quantile.h). */
static int opt_quantiles(options *o, const char *arg, unsigned *what,
                         cs_error *e)
{
    qlist l;
    if (qlist_parse(arg, &l, e) != CS_OK)
        return e->status;
    qlist_free(&o->quantiles);
    o->quantiles = l;
    o->cfg.quantiles = l.q;
    o->cfg.nquantiles = l.n;
    *what |= STAT_QUANTILES;
    return CS_OK;
}

/* --memory SIZE: bytes, or a number with k, M, G or T (powers of 1024). */
static int opt_memory(options *o, const char *arg, cs_error *e)
{
    static const char units[] = "kMGT";
    char *end = NULL;
    double v = -1;
    errno = 0;
    if (isdigit((unsigned char)arg[0]))
        v = strtod(arg, &end);
    if (v >= 0 && *end) {
        const char *u = strchr(units, *end == 'K' ? 'k' : *end);
        if (u) {
            v = ldexp(v, 10 * (int)(u - units + 1));
            end++;
        }
    }
    if (!(v >= 0) || *end || errno || v > 0x1p62)
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--memory: '%s' is not a size (bytes, or a number "
                       "with k, M, G or T: 256M)",
                       arg);
    o->cfg.memory_set = 1;
    o->cfg.memory = (size_t)v;
    return CS_OK;
}

/* -c may be given again: its lists append. Names are read in the
 * spelling --list-columns prints (name_escape.h). */
static int opt_columns(options *o, const char *arg, cs_error *e)
{
    size_t had = o->columns ? strlen(o->columns) : 0, n = strlen(arg);
    char *p = realloc(o->columns, had + 1 + n + 1);
    if (!p)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    if (had)
        p[had++] = ',';
    name_unescape_list(arg, p + had);
    o->columns = p;
    o->cfg.columns = p;
    return CS_OK;
}

/* Options that take an argument. */
static int value_option(options *o, int c, const char *arg, unsigned *what,
                        cs_error *e)
{
    switch (c) {
    case OPT_QUANTILES:
        return opt_quantiles(o, arg, what, e);
    case OPT_MEMORY:
        return opt_memory(o, arg, e);
    case 'c':
        return opt_columns(o, arg, e);
    case 'g':
        o->cfg.group_by = arg;
        return CS_OK;
    case 'b':
        o->cfg.binary = arg;
        return CS_OK;
    case OPT_EMIT_STATE:
        o->emit_state = 1;
        o->state_path = arg; /* NULL: standard output */
        return CS_OK;
    case OPT_PART:
        return opt_part(o, arg, e);
    case OPT_NAMES:
        return opt_names(o, arg, e);
    case 'd':
        return opt_delimiter(o, arg, e);
    case 'o':
        return opt_format(o, arg, e);
    case OPT_DEVICE:
        return opt_device(o, arg, e);
    case OPT_JSON_BIGINT:
        return opt_bigint(o, arg, e);
    case OPT_RANGE:
        return opt_range(o, arg, e);
    case OPT_TOP:
        if (parse_int(arg, 1, 1000000, &o->top))
            return cs_fail(e, CS_EUSAGE, "", 0,
                           "--top: '%s' is not a number from 1 to 1000000",
                           arg);
        o->cfg.top = (size_t)o->top;
        *what |= STAT_TOP;
        return CS_OK;
    case OPT_BINS:
        o->bins_set = 1;
        if (parse_int(arg, 1, 1048576, &o->cfg.nbins))
            return cs_fail(e, CS_EUSAGE, "", 0,
                           "--bins: '%s' is not a number from 1 to 1048576",
                           arg);
        return CS_OK;
    case 'j':
        if (parse_int(arg, 1, 1024, &o->cfg.threads))
            return cs_fail(e, CS_EUSAGE, "", 0,
                           "--threads: '%s' is not a number from 1 to 1024",
                           arg);
        return CS_OK;
    case OPT_NULL:
        return opt_null(o, arg, e);
    case OPT_THOUSANDS:
        return opt_separator("thousands", arg, &o->num.thousands, e);
    case OPT_DECIMAL:
        return opt_separator("decimal", arg, &o->num.decimal, e);
    case OPT_DIGITS:
        if (parse_int(arg, 1, 17, &o->digits))
            return cs_fail(e, CS_EUSAGE, "", 0,
                           "--digits: '%s' is not a number from 1 to 17", arg);
        return CS_OK;
    case OPT_LAYOUT:
        return opt_layout(o, arg, e);
    default:
        return cs_fail(e, CS_EUSAGE, "", 0, "internal: option %d", c);
    }
}

static int take_files(options *o, int argc, char **argv, cs_error *e)
{
    int n = argc - optind;
    if (n <= 0) {
        o->cfg.files = stdin_name;
        o->cfg.nfiles = 1;
        return CS_OK;
    }
    const char **files = malloc((size_t)n * sizeof *files);
    if (!files)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    for (int i = 0; i < n; i++)
        files[i] = argv[optind + i];
    o->cfg.files = files;
    o->cfg.nfiles = n;
    return CS_OK;
}

/* --mpi splits named files. */
/* --part: named files, one process's share; not with --mpi or --merge. */
static int check_part_options(const options *o, cs_error *e)
{
    if (!o->part_n)
        return CS_OK;
    if (o->mpi || o->merge)
        return cs_fail(e, CS_EUSAGE, "", 0, "--part and %s: give one of them",
                       o->mpi ? "--mpi" : "--merge");
    if (o->cfg.nfiles == 0)
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--part: standard input cannot be shared between "
                       "processes; give files");
    return CS_OK;
}

static int check_mpi_options(const options *o, cs_error *e)
{
    if (!o->mpi)
        return CS_OK;
    if (o->merge)
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--mpi and --merge: give one of them");
    for (int i = 0; i < o->cfg.nfiles; i++)
        if (!strcmp(o->cfg.files[i], "-"))
            return cs_fail(e, CS_EUSAGE, "", 0,
                           "--mpi reads named files, not standard input");
    return CS_OK;
}

/* The options of text input, checked together once all are known. */
static int text_options(options *o, cs_error *e)
{
    const num_format *f = &o->num;
    int changed = f->nnull || f->thousands || f->decimal != '.';
    if (o->cfg.binary && o->names)
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--names applies to text input, not to -b (its "
                       "fields are named by -b's spec)");
    if (o->cfg.binary && (changed || o->cfg.whitespace))
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "%s applies to text input, not to -b",
                       o->cfg.whitespace ? "-W"
                       : f->nnull        ? "--null"
                       : f->thousands    ? "--thousands"
                                         : "--decimal");
    if (f->thousands && f->thousands == f->decimal)
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--thousands and --decimal are both '%c'", f->decimal);
    if (o->cfg.whitespace && o->cfg.delim)
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "-W and --delimiter exclude each other");
    /* -W text has no quotes to protect a blank inside a number */
    if (o->cfg.whitespace && (f->thousands == ' ' || f->thousands == '\t'))
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--thousands: a blank separates the fields of -W "
                       "input");
    o->cfg.num = changed ? &o->num : NULL;
    return CS_OK;
}

/* A state holds what merges exactly from bounded parts: a histogram needs
 * fixed edges to be merged, and quantiles the values themselves; so
 * --merge cannot answer quantiles either (the other statistics it is
 * asked are checked against the states' own: src/dist/merge.h). */
static int check_state_options(const options *o, cs_error *e)
{
    if (o->emit_state && (o->cfg.what & STAT_HIST) && !o->cfg.have_range)
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--emit-state: a histogram's edges need the whole "
                       "input; give --range LO:HI, or run the parts as one "
                       "(colstat FILE...)");
    if (o->emit_state && (o->cfg.what & (STAT_MEDIAN | STAT_QUANTILES)))
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--emit-state: quantiles need every value of the "
                       "whole input (--all includes the median); run the "
                       "parts as one (colstat FILE...)");
    if (o->merge && (o->asked & (STAT_MEDIAN | STAT_QUANTILES)))
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--merge: quantiles need every value of the whole "
                       "input, which states do not carry (--all includes "
                       "the median); run the parts as one (colstat FILE...)");
    int rc = check_mpi_options(o, e);
    return rc == CS_OK ? check_part_options(o, e) : rc;
}

/* Text columns and the distinct values' counts travel in states
 * (--emit-state, --merge, --mpi), whole, a group's too: a state keeps its
 * profiles unfinalized. */
static int check_profile_options(options *o, cs_error *e)
{
    (void)e;
    o->cfg.keep_profiles = o->emit_state || o->mpi;
    return CS_OK;
}

/* --group-by's groups travel in states, whose
 * histograms need fixed edges (--emit-state says so above) and which
 * carry no values: no quantiles per group under --mpi. */
static int check_group_options(const options *o, cs_error *e)
{
    if (o->cfg.group_by && o->mpi &&
        (o->cfg.what & (STAT_MEDIAN | STAT_QUANTILES)))
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--group-by with --mpi: quantiles per group need "
                       "every value, which the ranks' states do not carry; "
                       "run one process (colstat -g ...)");
    if (o->cfg.group_by && o->mpi && (o->cfg.what & STAT_HIST) &&
        !o->cfg.have_range)
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--group-by with --mpi: a group's histogram edges "
                       "need the whole input; give --range LO:HI");
    return check_state_options(o, e);
}

int options_parse(int argc, char **argv, options *o, cs_error *e)
{
    set_defaults(o);
    unsigned what = 0;
    int c;
    /* optind = 0 makes glibc start over, so parsing can run many times. */
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, short_opts, long_opts, NULL)) != -1) {
        if (c == '?' || c == ':')
            return bad_option(c, argv[optind - 1], e);
        if (flag_option(o, c, &what))
            continue;
        if (value_option(o, c, optarg, &what, e) != CS_OK)
            return e->status;
    }
    if (what)
        o->cfg.what = what;
    o->asked = what;
    /* --help and --version answer whatever else the line holds, as GNU
       tools do: `colstat --mpi --help` is a question, not a run */
    if (o->action == ACT_HELP || o->action == ACT_VERSION)
        return CS_OK;
    if (text_options(o, e) != CS_OK)
        return e->status;
    if (take_files(o, argc, argv, e) != CS_OK ||
        check_profile_options(o, e) != CS_OK)
        return e->status;
    return check_group_options(o, e);
}

int options_json_errors(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
        int nmatch = 0;
        const struct option *p = NULL;
        if (!strncmp(argv[i], "--", 2) && argv[i][2])
            p = find_long(argv[i] + 2, &nmatch);
        if (p && nmatch == 1 && p->val == OPT_JSON_ERRORS)
            return 1;
    }
    return 0;
}

void options_free(options *o)
{
    names_free(o);
    qlist_free(&o->quantiles);
    o->cfg.quantiles = NULL;
    o->cfg.nquantiles = 0;
    free(o->columns);
    o->columns = NULL;
    o->cfg.columns = NULL;
    if (o->cfg.files != stdin_name)
        free((void *)o->cfg.files);
    o->cfg.files = NULL;
    o->cfg.nfiles = 0;
}

void options_usage(FILE *f)
{
    fputs(
        "Usage: colstat [OPTION]... [FILE]...\n"
        "Per-column statistics of CSV, gzip CSV or raw binary numbers.\n"
        "With no FILE, or when FILE is -, read standard input.\n"
        "\n"
        "Input:\n"
        "  -c, --columns LIST     names, 1-based indices and ranges, "
        "/REGEX/ (names\n"
        "                         matching it), !ITEM (all but it): "
        "2,4-6,price,\n"
        "                         '/^temp_/', '!id' (default: every column "
        "that\n"
        "                         holds numbers); repeatable\n"
        "  -g, --group-by LIST    statistics per group of rows with the same "
        "key: the\n"
        "                         key columns, in -c's syntax (binary "
        "input: integer\n"
        "                         fields, by their decimal text)\n"
        "  -d, --delimiter CHAR   field separator; 'tab' for tab "
        "(default: detected\n"
        "                         among , TAB ; |)\n"
        "      --header, --no-header   whether the first row names the "
        "columns\n"
        "                         (default: detected)\n"
        "  -b, --binary SPEC      raw little-endian records: types among i8 u8 "
        "i16 u16\n"
        "                         i32 u32 i64 u64 f32 f64, xN repeats, "
        "comma-separated:\n"
        "                         f64, f64x3, i32,u8,f64\n"
        "  -W, --whitespace       fields are separated by runs of blanks "
        "(aligned\n"
        "                         reports, ps/df output, space-separated "
        "logs)\n"
        "      --null LIST        spellings counted as missing, "
        "comma-separated:\n"
        "                         --null 'NA,N/A,null,-,\\N' (default: "
        "empty\n"
        "                         fields)\n"
        "      --thousands CHAR   grouping separator in numbers: "
        "\"1,234.50\"\n"
        "      --decimal CHAR     decimal separator in numbers: 1713,16\n"
        "      --strict           a non-numeric field is an error, not a "
        "count\n"
        "      --list-columns     print the first input's column names, one "
        "a line\n"
        "                         (after header detection; a line break as "
        "\\n,\n"
        "                         as -c takes it), and exit\n"
        "\n"
        "Statistics (default: --count --sum --mean --min --max):\n"
        "      --count --sum --mean --std --min --max --hist\n"
        "                         print these; any of them replaces the "
        "default\n"
        "      --median           the median (the 0.5 quantile)\n"
        "      --quantiles LIST   quantiles, comma-separated decimals in [0, "
        "1]:\n"
        "                         0.9,0.99,0.999 (exact; R type 7, numpy "
        "linear)\n"
        "      --distinct         distinct values, exact (numbers by value, "
        "text\n"
        "                         by its bytes)\n"
        "      --mode             the most frequent value and its count\n"
        "      --top K            the K most frequent values with their "
        "counts\n"
        "  -a, --all              every statistic, histogram and median "
        "included,\n"
        "                         and the text columns\n"
        "      --bins N           histogram bins, 1 to 1048576 (default "
        "256)\n"
        "      --range LO:HI      fixed histogram edges (default: the "
        "column's\n"
        "                         min and max)\n"
        "\n",
        f);
    fputs("Output:\n"
          "  -o, --format FMT       table (default), tsv, csv or json\n"
          "      --tsv, --csv, --json   short for --format=...\n"
          "      --json-bigint MODE   number (default: exact digits) or "
          "string: JSON\n"
          "                         integers beyond +-2^53 as strings, for "
          "readers\n"
          "                         that round them (jq 1.6, JavaScript)\n"
          "      --json-errors      an error is also a JSON object on "
          "stdout\n"
          "      --digits N         significant digits, 1 to 17 (default: 15 "
          "in the\n"
          "                         table, the shortest exact form "
          "otherwise)\n"
          "      --layout LAYOUT    auto (default), wide or long: the table as "
          "a row\n"
          "                         per column, or a block per column; auto "
          "narrows\n"
          "                         a wide table wider than the terminal "
          "(short\n"
          "                         titles, down to 6 digits), then picks "
          "long\n"
          "\n"
          "Execution:\n"
          "      --device DEV       auto (default), cpu or gpu\n"
          "      --memory SIZE      memory for values kept for quantiles "
          "and\n"
          "                         histograms: 256M, 2G (default: a quarter "
          "of RAM)\n"
          "  -j, --threads N        CPU worker threads, 1 to 1024 (default: "
          "all cores)\n"
          "      --progress, --no-progress   progress on stderr (default: "
          "when it\n"
          "                         is a terminal)\n"
          "  -v, --verbose          stage timings and throughput on stderr\n"
          "  -h, --help             print this help and exit\n"
          "  -V, --version          print the version and exit\n"
          "\n"
          "Parts of one input (map and reduce):\n"
          "      --emit-state[=FILE]   write the exact partial state, not a "
          "report\n"
          "      --merge STATE...   merge states (one a line; - for stdin) "
          "and report\n"
          "                         (statistic options and -c choose among "
          "what they hold;\n"
          "                         with --emit-state: the merged state)\n"
          "      --part K/N         read the K-th of N record-aligned parts "
          "of the files\n"
          "      --names LIST       name the fields of headerless input "
          "(--no-header)\n"
          "      --mpi              run as one rank of many under mpirun or "
          "srun\n"
          "\n",
          f);
    /* a second string: one past 4095 bytes is not portable C */
    fputs("Examples:\n"
          "  colstat samples/sensors.csv.gz --sum --hist\n"
          "  zcat logs/*.gz | colstat -c latency_ms --median --quantiles "
          "0.9,0.99\n"
          "  colstat --null 'NA,N/A,null,-,\\N' -d tab survey.tsv\n"
          "  colstat -b f64x3 points.f64 --min --max --std\n"
          "  colstat big.csv --json | jq '.columns[] | {name, mean, max: "
          ".max.value}'\n"
          "\n"
          "Exit status: 0 ok, 1 bad data or unreadable input, 2 bad usage.\n",
          f);
}
