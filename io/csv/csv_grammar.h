/* The CSV record grammar colstat relies on, in one source for the host (C11)
 * and the device (CUDA): where records and fields begin and end. It is
 * libcsv 3.0.3's non-strict parser (csv_parse in libcsv.c), which tokenizes
 * the fields on the host, reduced to the boundaries:
 *   - blanks (space, tab unless it is the delimiter) before a field are
 *     skipped, and a line holding only blanks is no record;
 *   - CR and LF both end a record outside quotes;
 *   - a quote opens a quoted field only at the start of a field; elsewhere
 *     in an unquoted field it is a literal;
 *   - after a quote inside a quoted field: a second quote is a literal
 *     quote, a delimiter or CR/LF ends the field, blanks wait, and any other
 *     byte goes back inside the quoted field (a quote after those blanks is
 *     a literal that keeps waiting).
 * The cutter (io/csv_cut.c: blocks for the jobs, the quote-state summaries
 * of --mpi, the line of a row) and the device's record parser
 * (gpu/csv_kernel.cu) step this machine; tests/io/test_csv_grammar.c holds
 * it to libcsv on random text.
 *
 * A step maps (state, byte class) to the next state and a set of actions.
 * Where no CSV_GA_LAX action fires and a CR only comes before an LF, a line
 * end outside quotes is one preceded by an even number of quotes: the
 * device splits records by that parity and checks the rest with this
 * machine.
 *
 * Header-only. An includer may define CSV_G_FN, the qualifiers of every
 * function (default static inline; under nvcc also __host__ __device__). */
#ifndef COLSTAT_IO_CSV_GRAMMAR_H
#define COLSTAT_IO_CSV_GRAMMAR_H

#include <stdint.h>

#ifndef CSV_G_FN
#ifdef __CUDACC__
#define CSV_G_FN static __host__ __device__ __forceinline__
#else
#define CSV_G_FN static inline
#endif
#endif

/* The bytes with a meaning of their own (the delimiter is the dialect's). */
#define CSV_G_QUOTE '"'
#define CSV_G_LF '\n'
#define CSV_G_CR '\r'

enum csv_g_state {
    CSV_G_ROW, /* between records: no field of the record seen yet */
    CSV_G_FNB, /* after a delimiter */
    CSV_G_UNQ, /* in an unquoted field */
    CSV_G_QUO, /* in a quoted field */
    CSV_G_MHE, /* just after a quote inside a quoted field */
    CSV_G_MHS, /* after that quote and blanks */
    CSV_G_NSTATES
};

enum csv_g_class {
    CSV_G_OTHER,
    CSV_G_BLANK, /* space, tab */
    CSV_G_TERM,  /* CR, LF */
    CSV_G_DELIM,
    CSV_G_QUOTED, /* the quote */
    CSV_G_NCLASSES
};

/* What a step does besides moving. */
enum csv_g_action {
    CSV_GA_START = 1,    /* this byte starts a field: its text or its quote */
    CSV_GA_FIELD = 2,    /* a delimiter ends the field before it */
    CSV_GA_END = 4,      /* a line end outside quotes: it ends the record,
                            unless it comes from CSV_G_ROW (a blank line) */
    CSV_GA_OPEN = 8,     /* the quote opens a quoted field */
    CSV_GA_QUOTE = 16,   /* a quote inside quotes: closes the field, unless
                            a quote follows at once */
    CSV_GA_LITERAL = 32, /* that quote and this one are one literal quote */
    CSV_GA_LAX = 64      /* libcsv reads on where RFC 4180 has no rule: a
                            quote inside an unquoted field, or anything but
                            a delimiter, blanks or a line end after a
                            closing quote */
};

/* A step's result: the next state in bits 0-2, the actions above them. */
#define CSV_G_BITS 10
#define CSV_G_E(next, acts) ((uint64_t)((next) | (acts) << 3))
/* One class's column of the table: the steps from the six states. */
#define CSV_G_COL(row, fnb, unq, quo, mhe, mhs)                                \
    ((row) | (fnb) << CSV_G_BITS | (unq) << 2 * CSV_G_BITS |                   \
     (quo) << 3 * CSV_G_BITS | (mhe) << 4 * CSV_G_BITS |                       \
     (mhs) << 5 * CSV_G_BITS)

/* The transition table, a class's column packed in a word so that neither
 * side needs a table in memory. By rows, for the reader:
 *          OTHER       BLANK  TERM     DELIM      QUOTE
 *   ROW    UNQ start   ROW    ROW end  FNB field  QUO start open
 *   FNB    UNQ start   FNB    ROW end  FNB field  QUO start open
 *   UNQ    UNQ         UNQ    ROW end  FNB field  UNQ lax
 *   QUO    QUO         QUO    QUO      QUO        MHE quote
 *   MHE    QUO lax     MHS    ROW end  FNB field  QUO literal
 *   MHS    QUO lax     MHS    ROW end  FNB field  MHE lax */
CSV_G_FN uint64_t csv_g_column(unsigned cls)
{
    switch (cls) {
    case CSV_G_OTHER:
        return CSV_G_COL(
            CSV_G_E(CSV_G_UNQ, CSV_GA_START), CSV_G_E(CSV_G_UNQ, CSV_GA_START),
            CSV_G_E(CSV_G_UNQ, 0), CSV_G_E(CSV_G_QUO, 0),
            CSV_G_E(CSV_G_QUO, CSV_GA_LAX), CSV_G_E(CSV_G_QUO, CSV_GA_LAX));
    case CSV_G_BLANK:
        return CSV_G_COL(CSV_G_E(CSV_G_ROW, 0), CSV_G_E(CSV_G_FNB, 0),
                         CSV_G_E(CSV_G_UNQ, 0), CSV_G_E(CSV_G_QUO, 0),
                         CSV_G_E(CSV_G_MHS, 0), CSV_G_E(CSV_G_MHS, 0));
    case CSV_G_TERM:
        return CSV_G_COL(
            CSV_G_E(CSV_G_ROW, CSV_GA_END), CSV_G_E(CSV_G_ROW, CSV_GA_END),
            CSV_G_E(CSV_G_ROW, CSV_GA_END), CSV_G_E(CSV_G_QUO, 0),
            CSV_G_E(CSV_G_ROW, CSV_GA_END), CSV_G_E(CSV_G_ROW, CSV_GA_END));
    case CSV_G_DELIM:
        return CSV_G_COL(
            CSV_G_E(CSV_G_FNB, CSV_GA_FIELD), CSV_G_E(CSV_G_FNB, CSV_GA_FIELD),
            CSV_G_E(CSV_G_FNB, CSV_GA_FIELD), CSV_G_E(CSV_G_QUO, 0),
            CSV_G_E(CSV_G_FNB, CSV_GA_FIELD), CSV_G_E(CSV_G_FNB, CSV_GA_FIELD));
    default: /* CSV_G_QUOTED */
        return CSV_G_COL(
            CSV_G_E(CSV_G_QUO, CSV_GA_START | CSV_GA_OPEN),
            CSV_G_E(CSV_G_QUO, CSV_GA_START | CSV_GA_OPEN),
            CSV_G_E(CSV_G_UNQ, CSV_GA_LAX), CSV_G_E(CSV_G_MHE, CSV_GA_QUOTE),
            CSV_G_E(CSV_G_QUO, CSV_GA_LITERAL), CSV_G_E(CSV_G_MHE, CSV_GA_LAX));
    }
}

/* The step from state in a column (csv_g_column, or a byte's word). */
CSV_G_FN unsigned csv_g_take(uint64_t column, unsigned state)
{
    return (unsigned)(column >> (CSV_G_BITS * state)) & 0x3ffu;
}

CSV_G_FN unsigned csv_g_step(unsigned state, unsigned cls)
{
    return csv_g_take(csv_g_column(cls), state);
}

CSV_G_FN unsigned csv_g_next(unsigned step)
{
    return step & 7u;
}

CSV_G_FN unsigned csv_g_acts(unsigned step)
{
    return step >> 3;
}

/* The class of byte c under delimiter delim (never 0); quotes 0: a quote
 * is an ordinary byte (whitespace-separated text). */
CSV_G_FN unsigned csv_g_class(unsigned char c, unsigned char delim, int quotes)
{
    if (c == CSV_G_QUOTE && !quotes)
        return CSV_G_OTHER;
    if (c == delim)
        return CSV_G_DELIM;
    if (c == CSV_G_QUOTE)
        return CSV_G_QUOTED;
    if (c == CSV_G_CR || c == CSV_G_LF)
        return CSV_G_TERM;
    if (c == ' ' || c == '\t')
        return CSV_G_BLANK;
    return CSV_G_OTHER;
}

/* Every byte's column, for loops that step one byte at a time: one load
 * a byte. */
typedef struct csv_g_bytes {
    uint64_t col[256];
} csv_g_bytes;

CSV_G_FN void csv_g_bytes_init(csv_g_bytes *b, unsigned char delim, int quotes)
{
    for (unsigned c = 0; c < 256; c++)
        b->col[c] = csv_g_column(csv_g_class((unsigned char)c, delim, quotes));
}

#endif
