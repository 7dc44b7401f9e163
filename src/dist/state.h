/* Partial states: what a run over part of the input knows, exact and
 * mergeable, for --emit-state and --merge (and the ranks of --mpi). A
 * state is the engine's result before it is finalized: rows, and per
 * column its name, index, statistics state and fixed-edge histogram.
 *
 * A state is one line of printable ASCII, so that it passes through
 * pipes, line-oriented engines (Spark's RDD.pipe, Hadoop streaming) and
 * message queues: "colstat-state 3 ", then base64 of its bytes, then a
 * newline. The bytes (state_codec.h: varints, no padding): the key (the
 * options that shape a state: two states merge only when their keys are
 * equal), the statistics held, the parts of the input it covers (--part:
 * parts FIRST..LAST of N; 0 0 0 for a run over all of it), the payload's
 * length, the payload, and a CRC-32 of all that precedes it, so a cut or
 * damaged state is refused, never merged. States follow each other,
 * one a line, in a file or a stream.
 *
 * A datetime column with zones holds, after its histogram, the UTC
 * offsets its extremes' rows were written in; its kind says so
 * (STATE_KIND_OFFSETS beside KIND_DATETIME_Z), so that a colstat before
 * offsets refuses such a column as one of an unknown kind, and this one
 * the bare KIND_DATETIME_Z such a colstat wrote (its extremes' offsets
 * unknown). States of other columns keep their bytes.
 *
 * Per column, after its statistics and histogram, its profile
 * (state_fields.h): a text column's counts and lengths, and with
 * --distinct, --mode or --top (the key's what; --top's K at the key's
 * end, ";top=K") every distinct value's count, so that a merge answers
 * them exactly, for any K (read back into engine_result.held_raw).
 *
 * A state of -g (its key names the groups: state_groups.h) holds, after
 * the columns, the key columns' names and the groups: per group its key
 * bytes, its rows, and per column its statistics and histogram; a state
 * without groups is as it was before groups could travel.
 *
 * A state of a run over no data rows (engine_config.no_rows_ok) has rows
 * 0 and no columns, nor groups: an engine's empty partition.
 *
 * A state is untrusted input (it may come from anywhere, or be made by
 * hand with a valid CRC): its header is checked before the payload is
 * read, the payload's size is bounded by what the header declares (see
 * state_max_bytes), and every field must hold what a run of colstat can
 * give (state_check.c lists the invariants). */
#ifndef COLSTAT_SRC_DIST_STATE_H
#define COLSTAT_SRC_DIST_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "io/base/error.h"
#include "src/engine/engine.h"

#define STATE_VERSION 3
/* The version before text columns and profiles, read as version 3: its
 * states are those of version 3 without them, byte for byte */
#define STATE_VERSION_NO_TEXT 2
/* A column kind's bit in a state: the extremes' offsets follow. */
#define STATE_KIND_OFFSETS 0x80

/* Bounds a state is read within (man/colstat.1): a key of at most
 * STATE_MAX_KEY bytes, column names of at most STATE_MAX_NAME bytes, at
 * most STATE_MAX_BINS bins, and a payload of STATE_MAX_BYTES at most
 * (--mpi's ranks hand their states over with int lengths: no state past
 * 2 GiB could travel there either). state_write makes none past them. */
#define STATE_MAX_KEY (1u << 20)
#define STATE_MAX_NAME (1u << 16)
#define STATE_MAX_BINS (1u << 20)
#define STATE_MAX_COLS (1u << 24)
#define STATE_MAX_BYTES ((uint64_t)1 << 31)
/* The furthest UTC offset a datetime is written in, in minutes (23:59). */
#define STATE_MAX_OFFSET 1439
#define STATE_MAX_TOP 1000000 /* --top K's largest K */

/* The key of a run: the options that shape its state, as text. A state of
 * one key must not meet one of another. Returns a malloc'ed string, or
 * NULL when out of memory. */
char *state_key(const engine_config *cfg);

/* What a state says of itself. */
typedef struct state_info {
    char *key;     /* state_key's text */
    unsigned what; /* the STAT_* bits it holds */
    /* read from the key by state_read (state_write ignores them): the
       histograms' bins and, with have_range, their edges */
    int nbins, have_range;
    double lo, hi;
    size_t top; /* with STAT_TOP: --top K's K */
    /* --part: the parts first..last of n it covers (0 0 0: all of it) */
    uint32_t part_lo, part_hi, part_n;
    /* read from the key: a state of -g (its groups follow the columns),
       and how the keys' numbers are written (they order the groups) */
    int grouped;
    char key_decimal, key_thousands;
} state_info;

/* The most payload bytes a state of ncols columns may have, under the
 * key's statistics and bins (info's what and nbins): each column at its
 * longest (a name of STATE_MAX_NAME bytes). */
uint64_t state_max_bytes(const state_info *info, uint64_t ncols);

/* Writes r to f. */
int state_write(FILE *f, const state_info *info, const engine_result *r,
                cs_error *e);

/* Reads the next state in f (named name in messages), its line and no
 * more, into *info (its key malloc'ed) and r. CS_EDATA for a line that is
 * not a state, of another version (the binary states of version 1 are
 * named as such), cut short, corrupt, past the bounds above, or holding
 * what no run of colstat gives (state_check); f is read no further than
 * the header allows. */
int state_read(FILE *f, const char *name, state_info *info, engine_result *r,
               cs_error *e);

/* --merge, --mpi: the groups of a merged r (held in their table's
 * order) put in the answer's order, their numeric keys read as info's key
 * says. Nothing for a state without groups. */
int state_groups_arrange(engine_result *r, const state_info *info, cs_error *e);

/* The bytes r's distinct values' counts hold (held_raw, and its groups'). */
size_t state_profile_bytes(const engine_result *r);

/* Whether f holds more after a state: 1, or 0 at its end. */
int state_more(FILE *f);

/* Whether the key and the columns r holds are what a run of colstat
 * could give; CS_EDATA naming name and the first broken invariant. */
int state_check(const state_info *info, const engine_result *r,
                const char *name, cs_error *e);

/* Whether r is the state of a run over no rows: rows 0, and no columns
 * nor groups where the engine found no data (engine_config.no_rows_ok).
 * It merges with any state of its key, adding nothing; states of no rows
 * alone hold no data. */
int state_no_rows(const engine_result *r);

/* dst += src, src's rows after dst's, exactly as one run over both. The
 * columns must be the same (name, index, statistics, histogram edges),
 * unless src holds no rows (state_no_rows); dst must hold rows where src
 * does. CS_EDATA when the total would pass what the counters hold.
 * want (NULL: every column) marks the columns the caller keeps: the
 * others are checked for shape alone, may differ in kind (text in one
 * part's sample, numbers in another's), and are left unmerged. */
int state_merge(engine_result *dst, const engine_result *src,
                const unsigned char *want, cs_error *e);

#endif
