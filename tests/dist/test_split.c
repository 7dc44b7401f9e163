/* --mpi's split (src/dist/split.c) without MPI: every rank of a simulated
 * run computed in turn from the others' tails, as the allgather hands them
 * over. Random CSV (quoted fields with delimiters, doubled quotes, CR, LF,
 * CRLF, blank lines, a byte-order mark, a header) cut at random bytes,
 * often inside quoted fields and CRLFs. The ranks' parts must tile the file
 * in rank order, each starting where the machine started at the file's
 * start is between records, on the line its LFs say. The fast block
 * summary must equal csv_summarize on quote-free and quoted text. Seed
 * logged; COLSTAT_SEED replays it. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/dist/split.h"
#include "tests/testlib.h"

static uint64_t g_seed;

static void add(char **p, size_t *n, const char *s)
{
    size_t k = strlen(s);
    *p = realloc(*p, *n + k + 1);
    memcpy(*p + *n, s, k + 1);
    *n += k;
}

static char *make_text(test_rng *r, size_t *n, int quotes)
{
    static const char *const fields[] = {
        "1",     "-2.5",    " 4 ",        "w",        "5e3",        "",
        "\"3\"", "\"a,b\"", "\"x\"\"y\"", "\"l\nm\"", "\"c\r\nd\"", "\"\""};
    static const char *const ends[] = {"\n", "\r\n", "\r", "\n\n", "\n  \n"};
    char *p = NULL;
    *n = 0;
    add(&p, n, rng_below(r, 4) == 0 ? "\xEF\xBB\xBF" : "");
    add(&p, n, "a,b,c\r\n");
    /* some past 4080 bytes: the LF count sums its lanes every 255 steps
     * of 16 bytes */
    int rows = 1 + (int)rng_below(r, rng_below(r, 4) ? 200 : 1500);
    for (int i = 0; i < rows; i++) {
        for (int f = 0; f < 3; f++) {
            if (f)
                add(&p, n, ",");
            add(&p, n, fields[rng_below(r, quotes ? 12 : 6)]);
        }
        add(&p, n, ends[rng_below(r, 5)]);
    }
    return p;
}

START_TEST(fast_summary_is_the_summary)
{
    test_rng r = rng_for(g_seed, 1);
    csv_dialect d = {.delim = ',', .header = 1};
    for (int it = 0; it < 2000; it++) {
        size_t n;
        char *t = make_text(&r, &n, it % 2);
        size_t a = rng_below(&r, n + 1), b = a + rng_below(&r, n - a + 1);
        csv_summary want, got;
        csv_summarize(&d, t + a, b - a, &want);
        split_summarize_block(&d, t + a, b - a, &got);
        EXPECT(!memcmp(want.end, got.end, sizeof want.end) &&
                   want.lfs == got.lfs,
               "seed %llu: block [%zu, %zu) of %zu", (unsigned long long)g_seed,
               a, b, n);
        free(t);
    }
}
END_TEST

/* The state of the cutter's machine at each byte of t, from its start
 * (after the mark) in the start state: between records where it is that. */
static int between(const csv_dialect *d, const char *t, size_t bom, size_t at)
{
    csv_summary s;
    csv_summarize(d, t + bom, at - bom, &s);
    return s.end[csv_start_state()] == csv_start_state();
}

static uint64_t lfs_before(const char *t, size_t at)
{
    uint64_t k = 0;
    for (size_t i = 0; i < at; i++)
        k += t[i] == '\n';
    return k;
}

/* An empty temporary file's name into path ("/tmp/test_split-XXXXXX"). */
static void temp_file(char *path)
{
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
}

/* t[0, n) written to path, and probed as CSV with delimiter delim (0:
 * detected). */
static split_input write_probed(const char *path, const char *t, size_t n,
                                char delim)
{
    FILE *f = fopen(path, "wb");
    fwrite(t, 1, n, f);
    fclose(f);
    split_input in;
    cs_error e = {0};
    csv_dialect base = {.delim = delim, .header = -1};
    ck_assert_int_eq(split_probe(path, 0, &base, &in, &e), CS_OK);
    ck_assert_int_eq(in.kind, SPLIT_CSV);
    return in;
}

/* Each of nr ranks' range of path (cuts as split_ranges takes them) and
 * its tail, summarised by 1 to 6 threads. */
static void rank_tails(const char *const *paths, const split_input *in, int nr,
                       const char *cuts, test_rng *r, uint64_t *x0,
                       uint64_t *x1, split_tail *tails)
{
    cs_error e = {0};
    for (int k = 0; k < nr; k++) {
        split_ranges(in, 1, nr, k, cuts, &x0[k], &x1[k]);
        ck_assert_int_eq(split_tail_make(paths, in, 1, &x0[k], &x1[k],
                                         1 + (int)rng_below(r, 6), &tails[k],
                                         &e),
                         CS_OK);
    }
}

START_TEST(parts_tile_the_file)
{
    test_rng r = rng_for(g_seed, 2);
    char path[] = "/tmp/test_split-XXXXXX";
    temp_file(path);
    for (int it = 0; it < (test_quick() ? 40 : 200); it++) {
        size_t n;
        char *t = make_text(&r, &n, 1);
        split_input in = write_probed(path, t, n, 0);
        cs_error e = {0};
        int nr = 1 + (int)rng_below(&r, 6);
        char cuts[256] = "";
        size_t len = 0;
        for (int k = 1; k < nr; k++)
            len += (size_t)snprintf(
                cuts + len, sizeof cuts - len, "%s%zu", k > 1 ? "," : "",
                rng_below(&r, 4) ? rng_below(&r, n + 1) : rng_below(&r, 5));
        /* cuts must not decrease: sort them by drawing again in order */
        uint64_t at[8] = {0}, x0[8], x1[8];
        char *p = cuts;
        for (int k = 1; k < nr; k++)
            at[k] = strtoull(p, &p, 10), p += *p == ',';
        for (int k = 2; k < nr; k++)
            if (at[k] < at[k - 1])
                at[k] = at[k - 1];
        len = 0;
        for (int k = 1; k < nr; k++)
            len +=
                (size_t)snprintf(cuts + len, sizeof cuts - len, "%s%llu",
                                 k > 1 ? "," : "", (unsigned long long)at[k]);
        split_tail tails[8];
        const char *paths[] = {path};
        rank_tails(paths, &in, nr, cuts, &r, x0, x1, tails);
        uint64_t next = 0;
        for (int k = 0; k < nr; k++) {
            engine_part part;
            ck_assert_int_eq(
                split_parts(paths, &in, 1, &x0[k], &x1[k], tails, k, &part, &e),
                CS_OK);
            if (part.lo == part.hi)
                continue;
            EXPECT(part.lo == next || (next == 0 && part.lo == 0),
                   "seed %llu it %d cuts %s: rank %d starts at %llu, not "
                   "%llu",
                   (unsigned long long)g_seed, it, cuts, k,
                   (unsigned long long)part.lo, (unsigned long long)next);
            EXPECT(part.lo == 0 || (between(&in.d, t, in.bom, part.lo) &&
                                    part.line == 1 + lfs_before(t, part.lo)),
                   "seed %llu it %d cuts %s: rank %d at %llu line %llu",
                   (unsigned long long)g_seed, it, cuts, k,
                   (unsigned long long)part.lo, (unsigned long long)part.line);
            next = part.hi;
        }
        EXPECT(next == n, "seed %llu it %d cuts %s: parts end at %llu of %zu",
               (unsigned long long)g_seed, it, cuts, (unsigned long long)next,
               n);
        free(t);
    }
    unlink(path);
}
END_TEST

/* A quote that opens and never closes (no quote after it): a rank whose range
 * starts inside it has no record of its own, and reads the whole file instead,
 * so that its reader meets the open quote where it opens (a part that read
 * nothing said "no column holds numbers"). */
START_TEST(open_quote_reads_the_whole_file)
{
    test_rng r = rng_for(g_seed, 3);
    char path[] = "/tmp/test_split-XXXXXX";
    temp_file(path);
    for (int it = 0; it < (test_quick() ? 40 : 200); it++) {
        size_t n;
        char *t = make_text(&r, &n, 1);
        size_t qpos = n + 2; /* the open quote's byte */
        add(&t, &n, "7,\"never closed\n");
        int more = (int)rng_below(&r, 300);
        for (int i = 0; i < more; i++)
            add(&t, &n, rng_below(&r, 2) ? "1,2,3\n" : "a,b\r\n");
        split_input in = write_probed(path, t, n, ',');
        cs_error e = {0};
        int nr = 2 + (int)rng_below(&r, 6);
        uint64_t x0[8], x1[8];
        split_tail tails[8];
        const char *paths[] = {path};
        rank_tails(paths, &in, nr, NULL, &r, x0, x1, tails);
        for (int k = 0; k < nr; k++) {
            engine_part part;
            ck_assert_int_eq(
                split_parts(paths, &in, 1, &x0[k], &x1[k], tails, k, &part, &e),
                CS_OK);
            if (x0[k] == x1[k] || x0[k] <= qpos)
                continue;
            EXPECT(part.lo == 0 && part.hi == n,
                   "seed %llu it %d: rank %d of %d from %llu (quote at %zu) "
                   "reads [%llu, %llu), not the whole %zu bytes",
                   (unsigned long long)g_seed, it, k, nr,
                   (unsigned long long)x0[k], qpos, (unsigned long long)part.lo,
                   (unsigned long long)part.hi, n);
        }
        free(t);
    }
    unlink(path);
}
END_TEST

int main(void)
{
    g_seed = test_seed("test_split");
    Suite *s = suite_create("split");
    TCase *tc = tcase_create("split");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, fast_summary_is_the_summary);
    tcase_add_test(tc, parts_tile_the_file);
    tcase_add_test(tc, open_quote_reads_the_whole_file);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
