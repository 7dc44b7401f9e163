/* options_parse against the CLI of the man page (man/colstat.1): every option
 * in its short, long and --opt=value forms, defaults, combinations, and bad
 * values, which must give CS_EUSAGE with a message naming option and value. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/options.h"
#include "tests/testlib.h"

static unsigned seed;

static void init_seed(void)
{
    const char *env = getenv("COLSTAT_SEED");
    seed = env ? (unsigned)strtoul(env, NULL, 10)
               : (unsigned)time(NULL) ^ (unsigned)getpid();
    fprintf(stderr, "test_options: COLSTAT_SEED=%u\n", seed);
    srand(seed);
}

/* argv is "colstat" then the NULL-terminated args. */
static int parse_v(options *o, cs_error *e, const char **args)
{
    static char *argv[64];
    int argc = 0;
    argv[argc++] = "colstat";
    for (; *args; args++)
        argv[argc++] = (char *)*args;
    argv[argc] = NULL;
    memset(e, 0, sizeof *e);
    return options_parse(argc, argv, o, e);
}

#define PARSE(o, e, ...) parse_v(o, e, (const char *[]){__VA_ARGS__, NULL})

/* Parses and expects success. */
#define OK(o, ...)                                                             \
    do {                                                                       \
        cs_error e_;                                                           \
        int rc_ = PARSE(o, &e_, __VA_ARGS__);                                  \
        ck_assert_msg(rc_ == CS_OK, "unexpected error: %s", e_.msg);           \
    } while (0)

/* Parses, expects CS_EUSAGE and each of the strings in the message. */
static void expect_usage(const char **args, const char *want1,
                         const char *want2)
{
    options o;
    cs_error e;
    int rc = parse_v(&o, &e, args);
    ck_assert_int_eq(rc, CS_EUSAGE);
    ck_assert_int_eq(e.status, CS_EUSAGE);
    ck_assert_msg(strstr(e.msg, want1), "'%s' lacks '%s'", e.msg, want1);
    if (want2)
        ck_assert_msg(strstr(e.msg, want2), "'%s' lacks '%s'", e.msg, want2);
    options_free(&o); /* a refusal after the operands were taken */
    ck_assert_msg(!strchr(e.msg, '\n'), "message is one line: %s", e.msg);
}

#define BAD(w1, w2, ...)                                                       \
    expect_usage((const char *[]){__VA_ARGS__, NULL}, w1, w2)

START_TEST(defaults)
{
    options o;
    cs_error e;
    memset(&e, 0, sizeof e);
    char *argv[] = {"colstat", NULL};
    ck_assert_int_eq(options_parse(1, argv, &o, &e), CS_OK);
    ck_assert_int_eq(o.action, ACT_RUN);
    ck_assert_int_eq(o.cfg.nfiles, 1);
    ck_assert_str_eq(o.cfg.files[0], "-");
    ck_assert_ptr_null(o.cfg.columns);
    ck_assert_int_eq(o.cfg.delim, 0);
    ck_assert_int_eq(o.cfg.header, -1);
    ck_assert_ptr_null(o.cfg.binary);
    ck_assert_uint_eq(o.cfg.what, STAT_DEFAULT);
    ck_assert_int_eq(o.cfg.nbins, 256);
    ck_assert_int_eq(o.cfg.have_range, 0);
    ck_assert_int_eq(o.format, FMT_TABLE);
    ck_assert_int_eq(o.cfg.device, ENGINE_AUTO);
    ck_assert_int_eq(o.cfg.threads, 0);
    ck_assert_int_eq(o.cfg.strict, 0);
    ck_assert_int_eq(o.progress, -1);
    ck_assert_int_eq(o.cfg.verbose, 0);
    options_free(&o);
}
END_TEST

START_TEST(files_and_permutation)
{
    options o;
    OK(&o, "a.csv", "--sum", "-", "b.csv.gz", "-j", "3");
    ck_assert_int_eq(o.cfg.nfiles, 3);
    ck_assert_str_eq(o.cfg.files[0], "a.csv");
    ck_assert_str_eq(o.cfg.files[1], "-");
    ck_assert_str_eq(o.cfg.files[2], "b.csv.gz");
    ck_assert_uint_eq(o.cfg.what, STAT_SUM);
    ck_assert_int_eq(o.cfg.threads, 3);
    options_free(&o);

    OK(&o, "--max", "--", "--sum", "-j4");
    ck_assert_int_eq(o.cfg.nfiles, 2);
    ck_assert_str_eq(o.cfg.files[0], "--sum");
    ck_assert_str_eq(o.cfg.files[1], "-j4");
    ck_assert_uint_eq(o.cfg.what, STAT_MAX);
    ck_assert_int_eq(o.cfg.threads, 0);
    options_free(&o);
}
END_TEST

START_TEST(value_options)
{
    options o;
    OK(&o, "-c", "2,4-6,price", "-b", "f64,i32", "--device", "gpu");
    ck_assert_str_eq(o.cfg.columns, "2,4-6,price");
    ck_assert_str_eq(o.cfg.binary, "f64,i32");
    ck_assert_int_eq(o.cfg.device, ENGINE_GPU);
    options_free(&o);

    OK(&o, "-g", "status,host", "--group-by=/^k/", "a.csv");
    ck_assert_str_eq(o.cfg.group_by, "/^k/");
    options_free(&o);
    OK(&o, "-g", "k", "--merge", "s");
    options_free(&o);
    OK(&o, "-g", "k", "--emit-state", "a.csv");
    options_free(&o);
    OK(&o, "-g", "k", "--mpi", "--range", "0:1", "--hist", "a.csv");
    options_free(&o);
    BAD("--group-by with --mpi: quantiles per group", NULL, "-g", "k", "--mpi",
        "--median", "a.csv");
    BAD("--group-by with --mpi: a group's histogram edges", "--range", "-g",
        "k", "--mpi", "--hist", "a.csv");
    OK(&o, "-g", "1", "-b", "i32,f64", "a.bin");
    options_free(&o);

    OK(&o, "--columns=x", "--binary=f32", "--device=cpu", "-j17");
    ck_assert_str_eq(o.cfg.columns, "x");
    ck_assert_str_eq(o.cfg.binary, "f32");
    ck_assert_int_eq(o.cfg.device, ENGINE_CPU);
    ck_assert_int_eq(o.cfg.threads, 17);
    options_free(&o);

    OK(&o, "--threads=1024", "--device", "auto", "-cprice");
    ck_assert_int_eq(o.cfg.threads, 1024);
    ck_assert_int_eq(o.cfg.device, ENGINE_AUTO);
    ck_assert_str_eq(o.cfg.columns, "price");
    options_free(&o);

    OK(&o, "--threads", "1", "--bins", "1", "--header", "--strict");
    ck_assert_int_eq(o.cfg.threads, 1);
    ck_assert_int_eq(o.cfg.nbins, 1);
    ck_assert_int_eq(o.cfg.header, 1);
    ck_assert_int_eq(o.cfg.strict, 1);
    options_free(&o);

    OK(&o, "--bins=1048576", "--header", "--no-header", "--progress", "-v");
    ck_assert_int_eq(o.cfg.nbins, 1048576);
    ck_assert_int_eq(o.cfg.header, 0);
    ck_assert_int_eq(o.progress, 1);
    ck_assert_int_eq(o.cfg.verbose, 1);
    options_free(&o);

    OK(&o, "--no-progress", "--verbose");
    ck_assert_int_eq(o.progress, 0);
    ck_assert_int_eq(o.cfg.verbose, 1);
    options_free(&o);

    /* -c again appends its list */
    OK(&o, "-c", "2,4-6", "--columns=/^temp_/", "-c!id");
    ck_assert_str_eq(o.cfg.columns, "2,4-6,/^temp_/,!id");
    options_free(&o);
}
END_TEST

START_TEST(delimiters)
{
    options o;
    static const char *const tabs[] = {"\\t", "tab", "TAB", "\t"};
    for (int i = 0; i < 4; i++) {
        OK(&o, "-d", tabs[i]);
        ck_assert_int_eq(o.cfg.delim, '\t');
        options_free(&o);
    }
    OK(&o, "--delimiter=;");
    ck_assert_int_eq(o.cfg.delim, ';');
    options_free(&o);
    OK(&o, "-d|");
    ck_assert_int_eq(o.cfg.delim, '|');
    options_free(&o);
    OK(&o, "--delimiter", ",");
    ck_assert_int_eq(o.cfg.delim, ',');
    options_free(&o);
}
END_TEST

START_TEST(formats)
{
    options o;
    static const char *const names[] = {"table", "tsv", "csv", "json"};
    for (int i = 0; i < 4; i++) {
        OK(&o, "-o", names[i]);
        ck_assert_int_eq(o.format, (out_format)i);
        options_free(&o);
        char arg[32];
        snprintf(arg, sizeof arg, "--format=%s", names[i]);
        OK(&o, "--json", arg);
        ck_assert_int_eq(o.format, (out_format)i);
        options_free(&o);
    }
    OK(&o, "--tsv");
    ck_assert_int_eq(o.format, FMT_TSV);
    options_free(&o);
    OK(&o, "--csv");
    ck_assert_int_eq(o.format, FMT_CSV);
    options_free(&o);
    OK(&o, "--csv", "--json");
    ck_assert_int_eq(o.format, FMT_JSON);
    options_free(&o);
}
END_TEST

START_TEST(ranges)
{
    options o;
    OK(&o, "--range=-5:5");
    ck_assert_int_eq(o.cfg.have_range, 1);
    ck_assert(o.cfg.range_lo == -5 && o.cfg.range_hi == 5);
    options_free(&o);
    OK(&o, "--range", "-5:5");
    ck_assert(o.cfg.range_lo == -5 && o.cfg.range_hi == 5);
    ck_assert_uint_eq(o.cfg.what,
                      STAT_DEFAULT); /* --range does not add --hist */
    options_free(&o);
    OK(&o, "--range", "-1e3:2.5e-1", "--bins", "10");
    ck_assert(o.cfg.range_lo == -1e3 && o.cfg.range_hi == 0.25);
    ck_assert_uint_eq(o.cfg.what, STAT_DEFAULT);
    options_free(&o);

    /* Random finite edges survive the trip through text. */
    for (int i = 0; i < 200; i++) {
        double a = ldexp((double)rand() / RAND_MAX - 0.5, rand() % 200 - 100);
        double b =
            a + fabs(a) * ((double)rand() / RAND_MAX + 0.01) + ldexp(1, -90);
        char arg[96];
        snprintf(arg, sizeof arg, "--range=%.17g:%.17g", a, b);
        OK(&o, arg);
        ck_assert_msg(o.cfg.range_lo == a && o.cfg.range_hi == b, "%s", arg);
        options_free(&o);
    }
}
END_TEST

START_TEST(statistics)
{
    options o;
    OK(&o, "--hist");
    ck_assert_uint_eq(o.cfg.what, STAT_HIST);
    options_free(&o);
    OK(&o, "-a");
    ck_assert_uint_eq(o.cfg.what, STAT_ALL);
    options_free(&o);
    OK(&o, "--all", "--sum");
    ck_assert_uint_eq(o.cfg.what, STAT_ALL);
    options_free(&o);
    OK(&o, "--bins", "7");
    ck_assert_uint_eq(o.cfg.what, STAT_DEFAULT);
    ck_assert_int_eq(o.cfg.nbins, 7);
    options_free(&o);

    /* Random subsets: the flags given, and only they, replace the default. */
    static const char *const flags[] = {"--count", "--sum", "--mean", "--std",
                                        "--min",   "--max", "--hist"};
    static const unsigned bits[] = {STAT_COUNT, STAT_SUM, STAT_MEAN, STAT_STD,
                                    STAT_MIN,   STAT_MAX, STAT_HIST};
    for (int t = 0; t < 300; t++) {
        const char *args[16];
        int n = 0;
        unsigned want = 0;
        for (int i = 0; i < 7; i++)
            if (rand() % 2) {
                args[n++] = flags[i];
                want |= bits[i];
            }
        if (rand() % 4 == 0)
            args[n++] = "data.csv";
        args[n] = NULL;
        cs_error e;
        ck_assert_int_eq(parse_v(&o, &e, args), CS_OK);
        ck_assert_uint_eq(o.cfg.what, want ? want : STAT_DEFAULT);
        options_free(&o);
    }
}
END_TEST

START_TEST(clusters_and_prefixes)
{
    options o;
    OK(&o, "-vj8", "-a", "--", "-afile");
    ck_assert_int_eq(o.cfg.verbose, 1);
    ck_assert_int_eq(o.cfg.threads, 8);
    ck_assert_uint_eq(o.cfg.what, STAT_ALL);
    ck_assert_int_eq(o.cfg.nfiles, 1);
    ck_assert_str_eq(o.cfg.files[0], "-afile");
    options_free(&o);
    OK(&o, "--verb", "--no-h");
    ck_assert_int_eq(o.cfg.verbose, 1);
    ck_assert_int_eq(o.cfg.header, 0);
    options_free(&o);
}
END_TEST

START_TEST(help_and_version)
{
    options o;
    OK(&o, "--help");
    ck_assert_int_eq(o.action, ACT_HELP);
    options_free(&o);
    OK(&o, "-h");
    ck_assert_int_eq(o.action, ACT_HELP);
    options_free(&o);
    OK(&o, "-V");
    ck_assert_int_eq(o.action, ACT_VERSION);
    options_free(&o);
    OK(&o, "--version");
    ck_assert_int_eq(o.action, ACT_VERSION);
    options_free(&o);
    /* whatever else the line holds: these alone were refused */
    OK(&o, "--mpi", "--help");
    ck_assert_int_eq(o.action, ACT_HELP);
    options_free(&o);
    OK(&o, "--mpi", "--merge", "-V", "-");
    ck_assert_int_eq(o.action, ACT_VERSION);
    options_free(&o);
    OK(&o, "--part", "1/2", "--help");
    ck_assert_int_eq(o.action, ACT_HELP);
    options_free(&o);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    options_usage(f);
    fclose(f);
    static const char *const want[] = {
        "Usage: colstat", "--columns", "--delimiter", "--no-header",
        "--binary",       "--count",   "--hist",      "--all",
        "--bins",         "--range",   "--format",    "--json",
        "--device",       "--threads", "--strict",    "--no-progress",
        "--verbose",      "--help",    "--version",   "Exit status",
        "--whitespace",   "--null",    "--thousands", "--decimal",
        "--digits",       "--layout",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(strstr(text, want[i]), "help lacks %s", want[i]);
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        ck_assert_ptr_nonnull(nl);
        ck_assert_msg(nl - line <= 80, "help line over 80 columns");
        line = nl + 1;
    }
    free(text);
}
END_TEST

START_TEST(bad_values)
{
    BAD("--bins", "'x'", "--bins", "x");
    BAD("--bins", "'0'", "--bins=0");
    BAD("--bins", "'1048577'", "--bins", "1048577");
    BAD("--bins", "'-3'", "--bins=-3");
    BAD("--bins", "'5k'", "--bins", "5k");
    BAD("--bins", "''", "--bins=");
    BAD("--threads", "'0'", "-j0");
    BAD("--threads", "'1025'", "-j", "1025");
    BAD("--threads", "'abc'", "--threads=abc");
    BAD("--threads", "'99999999999999999999'", "-j99999999999999999999");
    BAD("--range", "'5:5'", "--range", "5:5");
    BAD("--range", "'6:5'", "--range=6:5");
    BAD("--range", "'5'", "--range", "5");
    BAD("--range", "'a:b'", "--range", "a:b");
    BAD("--range", "'inf:5'", "--range", "inf:5");
    BAD("--range", "'nan:1'", "--range=nan:1");
    BAD("--range", "'1:'", "--range=1:");
    BAD("--range", "':1'", "--range=:1");
    BAD("--range", "'1:2:3'", "--range=1:2:3");
    BAD("--range", "'-1e999:0'", "--range=-1e999:0");
    BAD("--delimiter", "'ab'", "-d", "ab");
    BAD("--delimiter", "''", "--delimiter=");
    BAD("--delimiter", "'\"'", "-d", "\"");
    BAD("--format", "'xml'", "-o", "xml");
    BAD("--format", "'JSON'", "--format=JSON");
    BAD("--device", "'tpu'", "--device", "tpu");
}
END_TEST

START_TEST(bad_options)
{
    BAD("unknown option '--foo' (colstat --help lists them)", NULL, "--foo");
    BAD("unknown option '--foo' (colstat", NULL, "a.csv", "--foo=3");
    BAD("invalid option -- 'x'", NULL, "-x");
    BAD("invalid option -- 'x'", NULL, "--sum", "-vx");
    BAD("invalid option -- 'x'", NULL, "--sum", "-xv");
    BAD("option requires an argument -- 'c'", NULL, "-c");
    BAD("option requires an argument -- 'j'", NULL, "--sum", "-vj");
    BAD("option '--columns' requires an argument", NULL, "--columns");
    BAD("option '--bins' requires an argument", NULL, "--sum", "--bins");
    BAD("option '--sum' doesn't allow an argument", NULL, "--sum=3");
    BAD("option '--s' is ambiguous", NULL, "--s");
    /* A bad value after a good parse: state does not leak across calls. */
    options o;
    OK(&o, "--bins", "9", "f.csv");
    options_free(&o);
    BAD("--bins", "'q'", "--bins", "q");
}
END_TEST

/* An unknown option says what was probably meant: a word of other tools
 * from the table of synonyms, else the option nearest by edit distance,
 * else nothing; always where the list is. */
START_TEST(suggestions)
{
    BAD("unknown option '--percentile': did you mean --quantiles? (colstat "
        "--help lists them)",
        NULL, "--percentile");
    BAD("unknown option '--p99': did you mean --quantiles?", NULL, "--p99");
    BAD("unknown option '--groupby': did you mean --group-by? (colstat "
        "--help lists them)",
        NULL, "--groupby", "a.csv");
    BAD("unknown option '--unique': colstat counts no distinct values", NULL,
        "--unique");
    BAD("unknown option '--avg': did you mean --mean?", NULL, "--avg=1");
    BAD("unknown option '--sun': did you mean --sum?", NULL, "--sun");
    BAD("unknown option '--colums': did you mean --columns?", NULL, "--colums",
        "x");
    BAD("unknown option '--no-headr': did you mean --no-header?", NULL,
        "--no-headr");
    BAD("unknown option '--hsit': did you mean --hist?", NULL, "--hsit");
    BAD("unknown option '--STD': did you mean --std?", NULL, "--STD");
    BAD("unknown option '--zzzzzzzzzz' (colstat --help", NULL, "--zzzzzzzzzz");
}
END_TEST

/* -W, --null, --thousands, --decimal, --digits, --layout: the values they
 * set, and how they combine. */
START_TEST(text_and_output_options)
{
    options o;
    OK(&o, "a.csv");
    ck_assert_int_eq(o.cfg.whitespace, 0);
    ck_assert_ptr_null(o.cfg.num); /* the C format: nothing changed */
    ck_assert_int_eq(o.digits, 0);
    ck_assert_int_eq(o.layout, LAYOUT_AUTO);
    options_free(&o);
    OK(&o, "-W", "--null", " NA, N/A ,,null,-,\\N", "--thousands=,",
       "--decimal", ".", "--digits", "6", "--layout=long");
    ck_assert_int_eq(o.cfg.whitespace, 1);
    ck_assert_ptr_eq(o.cfg.num, &o.num);
    ck_assert_int_eq(o.num.nnull, 5);
    static const char *const want[] = {"NA", "N/A", "null", "-", "\\N"};
    for (int i = 0; i < 5; i++)
        ck_assert(o.num.null_len[i] == strlen(want[i]) &&
                  !memcmp(o.num.null_text + o.num.null_at[i], want[i],
                          strlen(want[i])));
    ck_assert_int_eq(o.num.thousands, ',');
    ck_assert_int_eq(o.num.decimal, '.');
    ck_assert_int_eq(o.digits, 6);
    ck_assert_int_eq(o.layout, LAYOUT_LONG);
    options_free(&o);
    OK(&o, "--whitespace", "--decimal=,", "--thousands", ".", "--layout",
       "wide");
    ck_assert_int_eq(o.num.decimal, ',');
    ck_assert_int_eq(o.num.thousands, '.');
    ck_assert_int_eq(o.layout, LAYOUT_WIDE);
    options_free(&o);
    /* a separator equal to the delimiter: the fields must be quoted */
    OK(&o, "-d", ",", "--thousands", ",");
    ck_assert_int_eq(o.num.thousands, ',');
    options_free(&o);
    OK(&o, "-d", ";", "--thousands", " ", "--decimal", ",");
    ck_assert_int_eq(o.num.thousands, ' ');
    options_free(&o);
}
END_TEST

START_TEST(text_option_errors)
{
    BAD("--thousands", "'ab'", "--thousands", "ab");
    BAD("--thousands", "'5'", "--thousands", "5");
    BAD("--thousands", "'e'", "--thousands=e");
    BAD("--thousands", "'-'", "--thousands", "-");
    BAD("--decimal", "' '", "--decimal", " ");
    BAD("--decimal", "'\"'", "--decimal", "\"");
    BAD("--decimal", "''", "--decimal=");
    BAD("--thousands and --decimal", "','", "--thousands", ",", "--decimal",
        ",");
    BAD("--thousands and --decimal", "'.'", "--thousands", ".");
    BAD("-W and --delimiter", NULL, "-W", "-d", ";");
    BAD("--thousands", "-W", "-W", "--thousands", " ");
    BAD("-W", "-b", "-W", "-b", "f64");
    BAD("--null", "-b", "--null", "NA", "-b", "f64");
    BAD("--decimal", "-b", "-b", "f64", "--decimal", ",");
    BAD("--null", "'a\"b'", "--null", "NA,a\"b");
    BAD("--null", "at most", "--null",
        "0123456789012345678901234567890123456789");
    BAD("--null", "at most", "--null", "a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q");
    BAD("--digits", "'0'", "--digits", "0");
    BAD("--digits", "'18'", "--digits=18");
    BAD("--digits", "'x'", "--digits", "x");
    BAD("--layout", "'tall'", "--layout", "tall");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("options");
    TCase *t = tcase_create("core");
    tcase_add_unchecked_fixture(t, init_seed, NULL);
    tcase_add_test(t, defaults);
    tcase_add_test(t, files_and_permutation);
    tcase_add_test(t, value_options);
    tcase_add_test(t, delimiters);
    tcase_add_test(t, formats);
    tcase_add_test(t, ranges);
    tcase_add_test(t, statistics);
    tcase_add_test(t, clusters_and_prefixes);
    tcase_add_test(t, help_and_version);
    tcase_add_test(t, bad_values);
    tcase_add_test(t, bad_options);
    tcase_add_test(t, suggestions);
    tcase_add_test(t, text_and_output_options);
    tcase_add_test(t, text_option_errors);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return run_suite(suite(), CK_FORK_GETENV);
}
