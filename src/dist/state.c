#include "src/dist/state.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/num/parse_kind.h"
#include "src/dist/state_codec.h"
#include "src/dist/state_fields.h"
#include "src/dist/state_groups.h"

/* A state's line begins with this and its version, then a blank. */
#define LINE_PREFIX "colstat-state "
/* The first bytes of the binary states of version 1. */
static const char OLD_MAGIC[8] = {'C', 'O', 'L', 'S', 'T', 'A', 'T', 0x1a};

/* --- bytes out ------------------------------------------------------- */

char *state_key(const engine_config *c)
{
    char *s = NULL;
    uint64_t lo, hi;
    memcpy(&lo, &c->range_lo, 8);
    memcpy(&hi, &c->range_hi, 8);
    /* -g's list, and how its keys' numbers are written (their order) */
    char grouped[64] = "";
    if (c->what & STAT_TOP) /* the K of --top: what the report shows */
        snprintf(grouped, sizeof grouped, ";top=%zu", c->top);
    if (c->group_by)
        snprintf(grouped + strlen(grouped), sizeof grouped - strlen(grouped),
                 ";keys=%d,%d", c->num ? c->num->decimal : '.',
                 c->num ? c->num->thousands : 0);
    int n =
        asprintf(&s,
                 "columns=%s;%s%s%sdelim=%d;header=%d;binary=%s;what=%x;"
                 "nbins=%d;range=%d:%016" PRIx64 ":%016" PRIx64 ";strict=%d%s",
                 c->columns ? c->columns : "", c->group_by ? "group_by=" : "",
                 c->group_by ? c->group_by : "", c->group_by ? ";" : "",
                 c->delim, c->header, c->binary ? c->binary : "", c->what,
                 c->nbins, c->have_range, lo, hi, c->strict, grouped);
    return n < 0 ? NULL : s;
}

/* What state_read would refuse to read back, refused here first. */
static const char *too_big(const state_info *info, const engine_result *r,
                           size_t body)
{
    if (strlen(info->key) > STATE_MAX_KEY)
        return "the options' key is longer than 1 MiB";
    for (int k = 0; k < r->ncols; k++)
        if (strlen(r->cols[k].name) > STATE_MAX_NAME)
            return "a column name is longer than 64 KiB";
    for (int k = 0; r->groups && k < r->groups->nkeys; k++)
        if (strlen(r->groups->names[k]) > STATE_MAX_NAME)
            return "a key column's name is longer than 64 KiB";
    if (body > STATE_MAX_BYTES)
        return "it would be larger than 2 GiB (fewer columns or bins)";
    return NULL;
}

/* A column's kind (io/num/parse_kind.h) rides above its index's 32 bits:
 * a state of number columns keeps the bytes it had before kinds. */
static uint64_t index_kind(const engine_column *c)
{
    uint64_t k = c->kind == KIND_DATETIME_Z
                     ? KIND_DATETIME_Z | STATE_KIND_OFFSETS
                     : c->kind;
    return (uint64_t)c->index | k << 32;
}

/* A datetime column with zones without STATE_KIND_OFFSETS came from a
 * colstat before offsets: not known, so it is refused. */
static int known_kind(uint64_t k)
{
    return k <= KIND_DATETIME || k == (KIND_DATETIME_Z | STATE_KIND_OFFSETS) ||
           k == COL_TEXT || (k >= KIND_UNIT && k < KIND_UNIT + KIND_NUNITS);
}

static void put_body(sc_out *o, const engine_result *r, unsigned what)
{
    sc_put_u64(o, r->rows);
    sc_put_u64(o, (uint64_t)r->ncols);
    for (int k = 0; k < r->ncols; k++) {
        const engine_column *c = &r->cols[k];
        sc_put_text(o, c->name);
        sc_put_u64(o, index_kind(c));
        state_put_stats(o, c->st);
        state_put_hist(o, c->h);
        state_put_offsets(o, c->kind, c->st);
        if (c->kind == COL_TEXT || (what & STAT_PROFILE))
            state_put_prof(o, r->held_raw ? &r->held_raw[c->held] : NULL,
                           c->kind == COL_TEXT, (what & STAT_PROFILE) != 0);
    }
    if (r->groups && r->ncols) /* a state of no rows: no groups */
        state_put_groups(o, r, what);
}

static void put_header(sc_out *o, const state_info *info, size_t body)
{
    sc_put_text(o, info->key);
    sc_put_u64(o, info->what);
    sc_put_u64(o, info->part_lo);
    sc_put_u64(o, info->part_hi);
    sc_put_u64(o, info->part_n);
    sc_put_u64(o, body);
}

int state_write(FILE *f, const state_info *info, const engine_result *r,
                cs_error *e)
{
    sc_out body = {0}, all = {0};
    put_body(&body, r, info->what);
    put_header(&all, info, body.n);
    sc_put(&all, body.p, body.n);
    sc_put_crc(&all);
    char prefix[32];
    snprintf(prefix, sizeof prefix, LINE_PREFIX "%d ", STATE_VERSION);
    int rc = CS_OK;
    const char *big = too_big(info, r, body.n);
    if (body.oom || all.oom)
        rc = cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    else if (big)
        rc =
            cs_fail(e, CS_EDATA, "", 0, "cannot make a partial state: %s", big);
    else if (sc_line_write(f, prefix, all.p, all.n) || fflush(f))
        rc = cs_fail(e, CS_EDATA, "", 0, "cannot write the state");
    free(body.p);
    free(all.p);
    return rc;
}

/* --- bytes in -------------------------------------------------------- */

/* A text column's profile, or any column's where the key asks for the
 * values' counts, into r's, made when the first column has one. */
static void get_prof(sc_in *i, engine_result *r, int k, int counted)
{
    col_prof p = {0};
    int is_text = r->cols[k].kind == COL_TEXT;
    if (!is_text && !counted)
        return;
    state_get_prof(i, &p, is_text, counted);
    if (!r->held_raw) {
        r->held_raw = calloc((size_t)r->ncols, sizeof *r->held_raw);
        for (int c = 0; r->held_raw && c < r->ncols; c++)
            profile_init(&r->held_raw[c], 0); /* no values: no failure */
        if (!r->held_raw)
            sc_bad(i, "out of memory");
    }
    if (r->held_raw)
        r->held_raw[k] = p;
    else
        profile_free(&p);
}

/* The payload: rows, columns. */
static int get_columns(sc_in *i, engine_result *r, unsigned what)
{
    r->rows = sc_get_u64(i);
    uint64_t n = sc_get_u64(i);
    if (i->bad || (n == 0 && r->rows) || n > STATE_MAX_COLS)
        return -1;
    r->cols = calloc(n ? n : 1, sizeof *r->cols);
    r->held_st = calloc(n ? n : 1, sizeof *r->held_st);
    r->held_h = calloc(n ? n : 1, sizeof *r->held_h);
    if (!r->cols || !r->held_st || !r->held_h)
        return -1;
    r->ncols = r->nheld = (int)n;
    for (uint64_t k = 0; k < n && !i->bad; k++) {
        engine_column *c = &r->cols[k];
        c->name = sc_get_text(i, STATE_MAX_NAME);
        uint64_t index = sc_get_u64(i), kind = index >> 32;
        index &= UINT32_MAX;
        if (index < 1 || index > STATE_MAX_COLS)
            sc_bad(i, "a column index out of range");
        if (!known_kind(kind))
            sc_bad(i, "a column of an unknown kind");
        c->index = (int)index;
        int offsets = kind == (KIND_DATETIME_Z | STATE_KIND_OFFSETS);
        c->kind = offsets            ? KIND_DATETIME_Z
                  : known_kind(kind) ? (unsigned char)kind
                                     : KIND_NUMBER;
        c->unit = c->kind >= KIND_UNIT ? kind_unit_name(c->kind) : NULL;
        c->held = (int)k;
        state_get_stats(i, &r->held_st[k]);
        state_get_hist(i, &r->held_h[k]);
        state_get_offsets(i, c->kind, &r->held_st[k]);
        c->st = &r->held_st[k];
        c->h = &r->held_h[k];
        get_prof(i, r, (int)k, (what & STAT_PROFILE) != 0);
    }
    return i->bad ? -1 : 0;
}

static int refuse(cs_error *e, const char *name, const char *why)
{
    return cs_fail(e, CS_EDATA, name, 0, "not a colstat state: %s", why);
}

/* The options a key spells that shape its state's contents: what, the
 * bins and the range, at its end after the last ";what=" (the texts of
 * -c and -b come before it and may hold anything). The tail must read
 * back exactly as state_key writes it. */
static int parse_key(const char *key, state_info *info)
{
    const char *tail = NULL;
    for (const char *p = key; (p = strstr(p, ";what=")); p++)
        tail = p;
    unsigned what;
    int nbins, have_range, strict, used = -1, dec = 0, thou = 0, more = -1;
    uint64_t lo, hi;
    if (!tail ||
        sscanf(tail,
               ";what=%x;nbins=%d;range=%d:%16" SCNx64 ":%16" SCNx64
               ";strict=%d%n",
               &what, &nbins, &have_range, &lo, &hi, &strict, &used) != 6 ||
        used < 0)
        return -1;
    unsigned long top = 0;
    int ntop = 0;
    if ((what & STAT_TOP) &&
        (sscanf(tail + used, ";top=%lu%n", &top, &ntop) != 1 || top < 1 ||
         top > STATE_MAX_TOP))
        return -1;
    used += ntop;
    info->grouped = tail[used] != 0;
    if (info->grouped &&
        (sscanf(tail + used, ";keys=%d,%d%n", &dec, &thou, &more) != 2 ||
         more < 0 || tail[used + more] || dec < 1 || dec > 127 || thou < 0 ||
         thou > 127 || dec == thou))
        return -1;
    char again[160];
    snprintf(again, sizeof again,
             ";what=%x;nbins=%d;range=%d:%016" PRIx64 ":%016" PRIx64
             ";strict=%d",
             what, nbins, have_range, lo, hi, strict);
    if (what & STAT_TOP)
        snprintf(again + strlen(again), sizeof again - strlen(again),
                 ";top=%lu", top);
    if (info->grouped)
        snprintf(again + strlen(again), sizeof again - strlen(again),
                 ";keys=%d,%d", dec, thou);
    if (strcmp(again, tail) || strict < 0 || strict > 1)
        return -1;
    info->nbins = nbins;
    info->top = top;
    info->have_range = have_range;
    info->key_decimal = (char)dec;
    info->key_thousands = (char)thou;
    memcpy(&info->lo, &lo, 8);
    memcpy(&info->hi, &hi, 8);
    return what == info->what ? 0 : -1;
}

/* What any key says: known statistics, bins within bounds, finite
 * edges in order; parts numbered 1 <= lo <= hi <= n, or none (0 0 0).
 * (What --emit-state may hold is narrower: merge.c.) */
static const char *key_invariant(const state_info *k)
{
    const unsigned known = STAT_ALL | STAT_QUANTILES | STAT_PROFILE;
    if (!k->what || (k->what & ~known))
        return "statistics colstat does not know";
    if (k->nbins < 1 || k->nbins > (int)STATE_MAX_BINS)
        return "a bin count out of range";
    if (k->have_range < 0 || k->have_range > 1)
        return "a range flag out of range";
    if (k->have_range && !(isfinite(k->lo) && isfinite(k->hi) && k->lo < k->hi))
        return "a range that is not LO < HI, both finite";
    if (k->part_n ? !(1 <= k->part_lo && k->part_lo <= k->part_hi &&
                      k->part_hi <= k->part_n)
                  : k->part_lo || k->part_hi)
        return "parts that are not 1 <= FIRST <= LAST <= N";
    return NULL;
}

/* The longest a varint may be, and the longest a sum's digits are. */
#define VAR 10u
#define SACC_MAX ((uint64_t)(SACC_DIGITS + 4) * VAR)
#define STATS_MAX (10 * VAR + 2 * 8 + 3 * VAR + 3 * SACC_MAX)

/* The least a column takes: a name and an index of a byte each, 12 counts
 * and flags of a byte, two doubles, three sums of no digits (3 bytes
 * each), a histogram of none. */
#define MIN_COLUMN_BYTES (2 + 12 + 16 + 9 + 1)

uint64_t state_max_bytes(const state_info *info, uint64_t ncols)
{
    if (info->what & STAT_PROFILE) /* the values' counts: any number */
        return STATE_MAX_BYTES;
    uint64_t hist = VAR;
    if (info->what & STAT_HIST)
        hist += 16 + 2 * VAR + VAR * (uint64_t)info->nbins;
    uint64_t prof = 4 * VAR; /* a text column's facts */
    uint64_t col =
        VAR + STATE_MAX_NAME + VAR + STATS_MAX + hist + 2 * VAR + prof;
    return 2 * VAR + ncols * col; /* ncols <= 2^24: no overflow */
}

/* A line being read: its decoded bytes, and what its header said once
 * they hold it (total: the bytes the line must decode to). */
typedef struct line_in {
    sc_out b;
    sc_b64 d;
    size_t head; /* bytes of the header, 0 until it is read */
    uint64_t total;
    int ncols_checked;
} line_in;

/* "colstat-state VERSION " and the version (*version); the old binary
 * states named. */
static int read_prefix(FILE *f, const char *name, unsigned *version,
                       cs_error *e)
{
    char got[sizeof LINE_PREFIX] = {0};
    size_t n = fread(got, 1, sizeof LINE_PREFIX - 1, f);
    if (n >= 7 && !memcmp(got, OLD_MAGIC, n < 8 ? n : 8))
        return cs_fail(e, CS_EDATA, name, 0,
                       "a binary state of an older colstat (version 1): "
                       "this colstat reads the one-line states of version "
                       "%d; emit it again",
                       STATE_VERSION);
    if (n < sizeof LINE_PREFIX - 1 || memcmp(got, LINE_PREFIX, n))
        return refuse(e, name,
                      n ? "it does not begin with 'colstat-state'" : "empty");
    unsigned v = 0;
    int c, digits = 0;
    while ((c = fgetc(f)) >= '0' && c <= '9' && digits < 9) {
        v = v * 10 + (unsigned)(c - '0');
        digits++;
    }
    if (!digits || c != ' ')
        return refuse(e, name, "no version after 'colstat-state'");
    if (v != STATE_VERSION && v != STATE_VERSION_NO_TEXT)
        return cs_fail(e, CS_EDATA, name, 0,
                       "state of version %u; this colstat reads versions %d "
                       "and %d",
                       v, STATE_VERSION_NO_TEXT, STATE_VERSION);
    *version = v;
    return CS_OK;
}

/* The header, once the bytes hold it (at the line's end, final: all
 * they will): key, what, parts, the payload's length. 0: not yet; 1:
 * read; -1: refused (why set). */
static int try_header(line_in *l, state_info *info, int final, const char **why)
{
    sc_in i = {l->b.p, l->b.n, 0, 0, NULL};
    uint64_t keylen = sc_get_u64(&i);
    if (!i.bad && keylen > STATE_MAX_KEY)
        return *why = "a key longer than 1 MiB", -1;
    /* a state of no rows is shorter than the header's longest */
    if (i.bad || l->b.n - i.at < keylen + (final ? 5 : 5 * VAR))
        return 0;
    i.at = 0;
    info->key = sc_get_text(&i, STATE_MAX_KEY);
    info->what = sc_get_u32(&i);
    info->part_lo = sc_get_u32(&i);
    info->part_hi = sc_get_u32(&i);
    info->part_n = sc_get_u32(&i);
    uint64_t len = sc_get_u64(&i);
    if (i.bad && final) { /* the line ended inside the header */
        free(info->key);
        info->key = NULL;
        return 0;
    }
    if (i.bad || !info->key || parse_key(info->key, info))
        *why = "its key is not one colstat writes";
    else if (!(*why = key_invariant(info)) && len > STATE_MAX_BYTES)
        *why = "a payload past 2 GiB";
    if (*why)
        return -1;
    l->head = i.at;
    l->total = i.at + len + 4;
    return 1;
}

/* The payload's column count, once its bytes hold it, against the bytes
 * the header declares. */
static const char *check_ncols(line_in *l, const state_info *info)
{
    sc_in i = {l->b.p, l->b.n, l->head, 0, NULL};
    uint64_t rows = sc_get_u64(&i);
    uint64_t ncols = sc_get_u64(&i);
    if (i.bad)
        return l->b.n >= l->head + 2 * VAR ? "a corrupt payload" : NULL;
    l->ncols_checked = 1;
    if ((ncols == 0 && rows) || ncols > STATE_MAX_COLS)
        return "a column count out of range";
    uint64_t len = l->total - l->head - 4;
    if (!info->grouped && len > state_max_bytes(info, ncols))
        return "a payload longer than its columns may take";
    if (ncols > len / MIN_COLUMN_BYTES) /* before the columns are made */
        return "a payload shorter than its columns take";
    return NULL;
}

/* After each decoded byte: the header's and the bounds' checks, each as
 * soon as the bytes allow (so that /dev/zero, a FIFO or an endless line
 * is refused at once). */
static const char *check_so_far(line_in *l, state_info *info, int final)
{
    const char *why = NULL;
    if (!l->head && try_header(l, info, final, &why) < 0)
        return why;
    if (l->head && l->b.n > l->total)
        return "bytes past its end";
    if (l->head && !l->ncols_checked)
        return check_ncols(l, info);
    return NULL;
}

/* The line's characters up to its newline or the end, under f's lock
 * taken once (a character each under a lock of its own doubled the time
 * of --merge over large states). */
static int read_chars(FILE *f, const char *name, line_in *l, state_info *info,
                      cs_error *e)
{
    for (;;) {
        int c = getc_unlocked(f);
        if (c == EOF || c == '\n')
            return CS_OK;
        int fed = sc_b64_feed(&l->d, &l->b, c);
        if (fed < 0)
            return cs_fail(e, CS_ENOMEM, name, 0, "out of memory");
        if (!fed)
            return refuse(e, name, "a character that base64 does not use");
        const char *why = check_so_far(l, info, 0);
        if (why)
            return refuse(e, name, why);
    }
}

static int read_line(FILE *f, const char *name, line_in *l, state_info *info,
                     cs_error *e)
{
    flockfile(f);
    int rc = read_chars(f, name, l, info, e);
    funlockfile(f);
    if (rc != CS_OK)
        return rc;
    if (ferror(f))
        return refuse(e, name, "cannot read");
    const char *why = check_so_far(l, info, 1);
    if (why)
        return refuse(e, name, why);
    if (!l->head || l->b.n != l->total || sc_b64_end(&l->d))
        return refuse(e, name, "cut short");
    if (feof(f))
        return refuse(e, name, "cut short (no newline at its end)");
    if (!sc_crc_ok(l->b.p, l->b.n))
        return refuse(e, name, "cut short or corrupt (CRC-32 mismatch)");
    return CS_OK;
}

static int read_state(FILE *f, const char *name, state_info *info,
                      engine_result *r, cs_error *e)
{
    line_in l = {0};
    unsigned version = 0; /* 2 or 3: read alike (state.h) */
    int rc = read_prefix(f, name, &version, e);
    if (rc == CS_OK)
        rc = read_line(f, name, &l, info, e);
    if (rc == CS_OK) {
        sc_in i = {l.b.p, l.b.n - 4, l.head, 0, NULL};
        /* a state of no rows (state_no_rows) has no columns, no groups */
        if (get_columns(&i, r, info->what) ||
            (info->grouped && r->ncols && state_get_groups(&i, info, r)) ||
            i.at != i.n)
            rc = refuse(e, name, i.why ? i.why : "corrupt payload");
    }
    free(l.b.p);
    r->prof_top = info->top ? info->top : 1;
    if (rc == CS_OK)
        rc = state_check(info, r, name, e);
    return rc;
}

int state_read(FILE *f, const char *name, state_info *info, engine_result *r,
               cs_error *e)
{
    memset(r, 0, sizeof *r);
    memset(info, 0, sizeof *info);
    int rc = read_state(f, name, info, r, e);
    if (rc != CS_OK) {
        free(info->key);
        info->key = NULL;
        engine_result_free(r);
    }
    return rc;
}

size_t state_profile_bytes(const engine_result *r)
{
    size_t n = r->groups ? r->groups->table.prof_bytes : 0;
    for (int k = 0; r->held_raw && k < r->nheld; k++)
        n += profile_bytes(&r->held_raw[k]);
    return n;
}

int state_more(FILE *f)
{
    int c = fgetc(f);
    if (c == EOF)
        return 0;
    ungetc(c, f);
    return 1;
}

static int same_hist(const hist *a, const hist *b)
{
    if (!a->bins || !b->bins)
        return !a->bins && !b->bins;
    return a->nbins == b->nbins && !memcmp(&a->lo, &b->lo, 8) &&
           !memcmp(&a->hi, &b->hi, 8);
}

int state_no_rows(const engine_result *r)
{
    /* rows 0 with columns: a part none of whose inputs' records fell to
       it, or an empty binary part as colstat wrote it before such parts
       gave no columns; their count-0 columns hold nothing to merge */
    return r->ncols == 0 || r->rows == 0;
}

/* Whether column k of two states cannot merge (CS_EDATA set in e). A
 * column the merge drops (kept 0) need only be the same field: its kind
 * and histogram may differ, as a part's own sample decides them. */
static int column_differs(const engine_column *a, const engine_column *b, int k,
                          int kept, cs_error *e)
{
    int same = !strcmp(a->name, b->name) && a->index == b->index;
    if (same && !kept)
        return 0;
    if (same && (a->kind == COL_TEXT) != (b->kind == COL_TEXT))
        return cs_fail(e, CS_EDATA, "", 0,
                       "the states' column %d ('%s') is text in one and "
                       "not in the other (their samples differ: give "
                       "every part the same first input)",
                       k + 1, a->name) != CS_OK;
    if (same && a->kind == b->kind && same_hist(a->h, b->h))
        return 0;
    return cs_fail(e, CS_EDATA, "", 0,
                   "the states' column %d differs ('%s' and '%s')", k + 1,
                   a->name, b->name) != CS_OK;
}

/* Whether r's values (held_raw) serve no column the merge keeps. Two
 * states can differ in holding them only through their text columns
 * (states of the values' counts all hold them: merge.c's counts_differ
 * refuses the rest), so they serve none where r's text columns are all
 * dropped. */
static int raw_unneeded(const engine_result *r, const unsigned char *want)
{
    for (int k = 0; want && k < r->ncols; k++)
        if (r->cols[k].kind == COL_TEXT && want[k])
            return 0;
    return want != NULL;
}

/* r's values freed: merged with a state without them, they would count
 * a part alone. */
static void drop_raw(engine_result *r)
{
    for (int k = 0; r->held_raw && k < r->nheld; k++)
        profile_free(&r->held_raw[k]);
    free(r->held_raw);
    r->held_raw = NULL;
}

int state_merge(engine_result *dst, const engine_result *src,
                const unsigned char *want, cs_error *e)
{
    if (state_no_rows(src))
        return CS_OK;
    if (dst->ncols != src->ncols)
        return cs_fail(e, CS_EDATA, "", 0,
                       "the states have different columns (%d and %d)",
                       dst->ncols, src->ncols);
    for (int k = 0; k < dst->ncols; k++)
        if (column_differs(&dst->cols[k], &src->cols[k], k, !want || want[k],
                           e))
            return e->status;
    /* each state's counts are at most its rows (state_check), so rows
       that add up keep every count and row number from wrapping; the sum
       of the corrections is signed and checked apart */
    if (dst->rows > UINT64_MAX - src->rows)
        return cs_fail(e, CS_EDATA, "", 0, "the states' rows add up past 2^64");
    if (!dst->groups != !src->groups)
        return cs_fail(e, CS_EDATA, "", 0,
                       "a state of groups beside a state of none");
    for (int k = 0; k < dst->ncols; k++) {
        int64_t r;
        if (want && !want[k])
            continue;
        if (__builtin_add_overflow(dst->cols[k].st->sum_r,
                                   src->cols[k].st->sum_r, &r))
            return cs_fail(e, CS_EDATA, "", 0,
                           "the states' column %d: its integer corrections "
                           "add up past 2^63",
                           k + 1);
    }
    if (!dst->held_raw != !src->held_raw &&
        !raw_unneeded(dst->held_raw ? dst : src, want))
        return cs_fail(e, CS_EDATA, "", 0,
                       "a state with text columns or the values' counts "
                       "beside one without");
    if (!src->held_raw)
        drop_raw(dst);
    if (dst->groups && state_merge_groups(dst, src, e) != CS_OK)
        return e->status;
    for (int k = 0; k < dst->ncols; k++) {
        if (want && !want[k])
            continue;
        /* the column's statistics are dst's own, in its held arrays */
        ptrdiff_t at = dst->cols[k].st - dst->held_st;
        if (stats_merge(&dst->held_st[at], src->cols[k].st, dst->rows))
            return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
        if (dst->held_h[at].bins)
            hist_merge(&dst->held_h[at], src->cols[k].h);
        if (src->held_raw && dst->held_raw &&
            profile_merge(&dst->held_raw[dst->cols[k].held],
                          &src->held_raw[src->cols[k].held]))
            return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    }
    dst->rows += src->rows;
    return CS_OK;
}
