/* libFuzzer harness for --merge's reading of states (src/dist/state.h):
 * every input is read as a state; one that is accepted must be written
 * back by state_write to the very same bytes (the reader accepts only the
 * one encoding the writer gives), must merge with itself and be reported
 * (finalized, in JSON) without a crash or undefined behaviour (UBSan);
 * a crash, a hang (the fuzzer's -timeout), a leak or a difference is a
 * finding.
 *
 * The input's first byte chooses how: bit 3 takes the rest as the
 * state's line itself (the text: its prefix, base64, newline); else the
 * rest is the state's bytes, which the harness puts in a line, bit 1
 * first rewriting their CRC-32 to what the rest needs (so that a mutation
 * reaches the checks of the fields instead of stopping at the CRC); bit 2
 * merges a second copy and reports that; a state's groups are then put
 * in order and finalized.
 *
 * Built with -DCOLSTAT_FUZZ=ON (clang); run as in tests/fuzz/README.md. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "src/dist/state.h"
#include "src/dist/state_codec.h"
#include "src/report/report.h"

static void fix_crc(uint8_t *p, size_t n)
{
    if (n < 4)
        return;
    uLong crc = crc32(0, p, (uInt)(n - 4));
    for (int i = 0; i < 4; i++)
        p[n - 4 + i] = (uint8_t)(crc >> (8 * i));
}

/* The line carrying p[0, n), malloc'ed, its length in *len. */
static uint8_t *as_line(const uint8_t *p, size_t n, size_t *len)
{
    char *q = NULL;
    FILE *f = open_memstream(&q, len);
    if (!f || sc_line_write(f, "colstat-state 3 ", p, n))
        abort();
    fclose(f);
    return (uint8_t *)q;
}

static int read_state(const uint8_t *p, size_t n, state_info *info,
                      engine_result *r)
{
    FILE *f = fmemopen((void *)p, n, "rb");
    if (!f)
        abort();
    cs_error e = {0};
    int rc = state_read(f, "fuzz", info, r, &e);
    fclose(f);
    if (rc != CS_OK && ((rc != CS_EDATA && rc != CS_ENOMEM) || !e.msg[0]))
        abort(); /* a refusal is CS_EDATA (or CS_ENOMEM) with a message */
    return rc;
}

/* An accepted state is written back to the same bytes. */
static void same_bytes(const uint8_t *p, size_t n, const state_info *info,
                       const engine_result *r)
{
    char *q = NULL;
    size_t m = 0;
    FILE *f = open_memstream(&q, &m);
    cs_error e = {0};
    if (!f || state_write(f, info, r, &e) != CS_OK)
        abort();
    fclose(f);
    if (m != n || memcmp(p, q, n))
        abort();
    free(q);
}

/* The report main writes, into memory: every column finalized. */
static void report(const engine_result *r, unsigned what)
{
    report_col *cols = calloc((size_t)r->ncols + 1, sizeof *cols);
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!cols || !f)
        abort();
    what &= ~(unsigned)(STAT_MEDIAN | STAT_QUANTILES);
    for (int k = 0; k < r->ncols; k++) {
        cols[k].name = r->cols[k].name;
        cols[k].index = r->cols[k].index;
        stats_finalize(r->cols[k].st, &cols[k].s);
        cols[k].h = (what & STAT_HIST) ? r->cols[k].h : NULL;
    }
    report_style st = {0};
    report_write(f, FMT_JSON, what, r->rows, cols, r->ncols, &st);
    fclose(f);
    free(text);
    free(cols);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned how = data[0];
    size_t n = size - 1;
    uint8_t *p = malloc(n ? n : 1);
    if (!p)
        abort();
    memcpy(p, data + 1, n);
    if (!(how & 8)) {
        if (how & 2)
            fix_crc(p, n);
        uint8_t *line = as_line(p, n, &n);
        free(p);
        p = line;
    }
    state_info info, again;
    engine_result r, r2;
    if (read_state(p, n, &info, &r) == CS_OK) {
        same_bytes(p, n, &info, &r);
        if ((how & 4) && read_state(p, n, &again, &r2) == CS_OK) {
            cs_error e = {0};
            state_merge(&r, &r2, NULL, &e);
            engine_result_free(&r2);
            free(again.key);
        }
        report(&r, info.what);
        cs_error e = {0};
        if (state_groups_arrange(&r, &info, &e) == CS_OK)
            engine_result_finalize(&r, &e); /* the groups' too */
        engine_result_free(&r);
        free(info.key);
    }
    free(p);
    return 0;
}
