/* CSV (RFC 4180) into row batches, over libcsv. Quoted fields may hold
 * delimiters, doubled quotes and newlines; CRLF or LF; a UTF-8 BOM; ragged
 * rows (missing trailing fields count as missing, extra ones are ignored).
 * Or whitespace-separated text (-W): a record is a line, its fields the
 * runs of bytes other than blanks (space, tab, CR), blanks at either end
 * ignored, a blank line no record; there is no quoting (a field wrapped in
 * double quotes only loses them), as in awk and datamash -W.
 *
 * The engine reads a file as: detect the dialect on its first bytes, read
 * the head (header names, numeric sample), then cut the rest of the stream
 * into record-aligned blocks that worker threads parse independently. */
#ifndef COLSTAT_IO_CSV_CSV_READER_H
#define COLSTAT_IO_CSV_CSV_READER_H

#include <stddef.h>
#include <stdint.h>

#include "io/base/error.h"
#include "io/base/row_batch.h"
#include "io/num/parse_number.h"

typedef struct csv_dialect {
    char delim;            /* 0: detect among , TAB ; | */
    int header;            /* 1 yes, 0 no, -1 detect */
    int whitespace;        /* -W: fields separated by runs of blanks */
    const num_format *num; /* how numbers are written; NULL: C locale */
    /* Per row batch column, its kind (io/num/parse_kind.h): how its fields
       are read; NULL: every column holds plain numbers. */
    const unsigned char *kinds;
    /* The header line, its line end left out (set once the head is read;
       NULL: none). A line identical to it, at a record's start, a UTF-8
       BOM before it allowed, is a repeated header (files concatenated):
       no record, and no row (csv_repeats). */
    const char *repeat;
    size_t repeat_len;
    /* The longest record read (0: CSV_MAX_RECORD): a record must be held
       whole, so a longer one is an error, never an allocation that grows
       with the input. */
    size_t max_record;
} csv_dialect;

#define CSV_MAX_RECORD ((size_t)256 << 20)

/* d's record limit, and its text for messages ("256 MiB", "1000 bytes"). */
size_t csv_max_record(const csv_dialect *d);
void csv_size_text(size_t n, char *buf, size_t cap);

/* For a line that starts at s, between records (n bytes follow): its
 * length, its CR and LF included, when it repeats d's header; else 0. */
size_t csv_repeat_at(const csv_dialect *d, const char *s, size_t n);

/* Fills what d leaves to detection, from the first bytes of a file (at_eof
 * when buf holds the whole file). Delimiter (not with whitespace): the
 * candidate most frequent outside quotes on the first line; a candidate
 * that is the numbers' decimal or thousands separator loses to any other
 * that occurs; when none occurs, ',' (';' if the numbers hold commas).
 * Header: the first record holds
 * non-numbers in fields where later records hold numbers. */
void csv_detect(const char *buf, size_t n, int at_eof, csv_dialect *d);

/* What the sampled records show of a field (csv_head.numeric): more
 * numbers than other texts; no number, or no more numbers than other
 * texts; nothing but empty fields. */
enum { CSV_TEXT = 0, CSV_NUMBERS = 1, CSV_UNSEEN = 2 };

/* The head of one file. */
typedef struct csv_head {
    int nfields;            /* fields of the first record */
    char **names;           /* header names, or "1", "2", ... without one */
    unsigned char *numeric; /* per field: CSV_TEXT, CSV_NUMBERS, CSV_UNSEEN */
    size_t skip_bytes;      /* BOM plus header record, to skip before data */
    uint64_t skip_lines;    /* physical lines those bytes span */
} csv_head;

/* Reads the head from the first bytes of a file. Returns CS_OK or CS_EDATA
 * (e filled; file names the input in messages). */
int csv_read_head(const char *buf, size_t n, int at_eof, const csv_dialect *d,
                  const char *file, csv_head *h, cs_error *e);
void csv_head_free(csv_head *h);

/* Why a text is not a number (csv_text_kind): other text; a usual
 * spelling of a missing value (NA, N/A, null, None, NaN, -, \N, any
 * case: csv_null_spelling); a number with a unit before or after it
 * ('$12', '-6%', '12 ms'); digits grouped by a separator ('31,359'). */
enum { CSV_WHY_TEXT, CSV_WHY_NULL, CSV_WHY_UNIT, CSV_WHY_GROUPED };
int csv_null_spelling(const char *s, size_t n);
/* s[0, n) (blanks around it ignored); a unit goes to unit[cap]. */
int csv_text_kind(const char *s, size_t n, char *unit, size_t cap);

/* A field's non-numbers in a sample (csv_sample): how many were null
 * spellings, numbers with a unit, grouped digits, and the first of each
 * kind as an example (cut to CSV_WHY_SHOWN bytes). */
#define CSV_WHY_SHOWN 24
typedef struct csv_why {
    unsigned numbers, texts; /* the caller's: csv_sample's num, bad, */
    int whole;               /* and whether that was the whole input */
    unsigned nulls, units, grouped;
    char null_text[CSV_WHY_SHOWN + 1], unit[CSV_WHY_SHOWN + 1],
        grouped_text[CSV_WHY_SHOWN + 1];
    /* ISO 8601 dates, datetimes (those with a zone), numbers with one of
       parse_kind.h's units (bit u of unit_set: unit u seen) */
    unsigned dates, datetimes, zoned, with_unit;
    uint32_t unit_set;
    unsigned char unit_first; /* 1 + the first unit seen, 0: none */
} csv_why;

/* The kind (io/num/parse_kind.h) a field's sample shows, by majority as
 * numbers are chosen (usual null spellings left out of the count): a
 * date or datetime column when its dates outnumber its other fields
 * (numbers among them: those are then invalid); a unit column when its
 * numbers with a unit are no fewer than its bare numbers and outnumber
 * its other texts, in the first unit seen (where the sample saw several,
 * the others' fields are invalid); else KIND_NUMBER. */
unsigned char csv_why_kind(const csv_why *why);

/* Samples the whole records of buf[0, n) (the last one only at_eof;
 * repeated headers are none),
 * stopping once max were counted (a few more may be): per field
 * f < nfields, num[f] += the numbers (or NaN) among them and bad[f] +=
 * the other non-empty texts. from_middle: buf starts anywhere in a file:
 * the bytes up to its first LF are skipped, and only records of exactly
 * nfields fields count, which leaves out most of what a start inside a
 * quoted field misreads; else buf starts at a record (a BOM skipped).
 * num NULL: records are only counted. why (NULL: not asked): per field,
 * what its other texts are (csv_why). Returns the records counted, or -1
 * when out of memory. */
int csv_sample(const char *buf, size_t n, int at_eof, const csv_dialect *d,
               int from_middle, int max, int nfields, unsigned *num,
               unsigned *bad, csv_why *why);

/* Whether the first bytes of a text input are JSON rather than CSV: a
 * document ('{' then '"' or '}', '[' then '{', '[', '"' or ']', blanks and
 * a BOM allowed before each), or JSON lines (an object, and the next line
 * begins another). */
enum { CSV_NOT_JSON = 0, CSV_JSON = 1, CSV_JSON_LINES = 2 };
int csv_json_kind(const char *buf, size_t n);

/* Cuts a stream into blocks that end on a record boundary, following the
 * same quote rules as the parser, so a cut never falls inside a field. */
typedef struct csv_cutter {
    char delim;
    int plain;           /* whitespace text: no quotes, records end at LF */
    int in_quotes;       /* inside a quoted field at the cut position */
    int at_field_start;  /* next byte starts a field */
    int quote_pending;   /* a quote seen inside quotes: closes or doubles */
    uint64_t line;       /* physical line (1-based) at the cut position */
    uint64_t quote_line; /* line where the open quoted field began */
    size_t max_record;   /* csv_max_record of the dialect */
} csv_cutter;

void csv_cutter_init(csv_cutter *c, const csv_dialect *d, uint64_t first_line);

/* Returns the length of the longest prefix of buf[0, n) that ends just
 * after a record terminator outside quotes (0 if there is none), and
 * advances c over it. With at_eof, the whole buffer is taken (the last
 * record needs no newline), and an open quote is an error naming the line
 * where the field began: returns (size_t)-1 with e filled. Without
 * at_eof, more bytes after the cut than the record limit are an error
 * too (the record they start is too long), naming the line it starts on. */
size_t csv_cut(csv_cutter *c, const char *buf, size_t n, int at_eof,
               const char *file, cs_error *e);

/* --strict: the row batch columns [0, ncols) in which an invalid field is an
 * error, and how a message names each ("'price'"). */
typedef struct csv_strict {
    int ncols;
    const char *const *labels;
    const unsigned char *exempt; /* NULL, or per column 1 where no field is
                                    an error (a text column's) */
} csv_strict;

/* Splitting one file between processes: the cutter's state machine over a
 * range of bytes, summarised for every state the range could start in, so
 * that each process can learn, from the summaries of the ranges before its
 * own, whether its range starts inside a quoted field (the two-state quote
 * parity of ParPaRaw, Stehle & Jacobsen, PVLDB 2020, here over the cutter's
 * six states), and its first line. */
#define CSV_NSTATES 6
typedef struct csv_summary {
    unsigned char end[CSV_NSTATES]; /* state after the range, by start */
    uint64_t lfs;                   /* LFs in the range */
} csv_summary;

/* The state at the start of the data (after a header). */
int csv_start_state(void);
void csv_summarize(const csv_dialect *d, const char *buf, size_t n,
                   csv_summary *s);
/* a := a followed by b. */
void csv_summary_then(csv_summary *a, const csv_summary *b);
/* The first place in buf[0, n] between records, buf starting in state
 * (from the summaries): where a part of a file that starts at buf begins,
 * and where the part before it ends. (size_t)-1 when there is none. */
size_t csv_first_record(const csv_dialect *d, const char *buf, size_t n,
                        int state);
/* The first place in buf[1, n] between records whatever the state buf
 * starts in: where the parses from all six states have met at a record's
 * end (after a quote that one of them reads as closing and another as a
 * literal, the next line end outside quotes usually). A boundary there is
 * right without knowing the state at buf. (size_t)-1 when there is none. */
size_t csv_common_record(const csv_dialect *d, const char *buf, size_t n);

/* Parses a record-aligned block into out, appending rows. map[f] is the
 * row batch column for field f (f < nmap), or -1 to skip it. first_line is the
 * physical line of buf[0]. Stops early, at a record boundary, when out is
 * full: *consumed and *lines say how far it got (bytes, physical lines).
 * An invalid field in a strict column is an error (CS_EDATA, e names its
 * line, the column and the field); otherwise it is counted. strict NULL:
 * no column is. Returns CS_OK or CS_EDATA. */
int csv_parse_block(const csv_dialect *d, const char *buf, size_t n,
                    uint64_t first_line, const int *map, int nmap,
                    const csv_strict *strict, const char *file, row_batch *out,
                    size_t *consumed, uint64_t *lines, cs_error *e);

/* A field as messages show it: blanks around it left out, at most 40
 * bytes (cut between UTF-8 sequences), "..." after a cut; into dst (cap
 * bytes, CSV_SHOWN enough). A NUL shows as \0; other control bytes stay:
 * main escapes them. */
#define CSV_SHOWN 48
void csv_show_field(const char *s, size_t len, char *dst, size_t cap);

/* A field wanted for a message: the row-th (1-based) record of a block,
 * its field-th (0-based) field; found, the physical lines where it and
 * its record start (0: not there) and its text (csv_show_field). */
typedef struct csv_spot {
    uint64_t row;
    int field;
    uint64_t line, record_line;
    char text[CSV_SHOWN];
} csv_spot;

/* Finds spots[0, n), sorted by row then field, in a block whose first
 * byte is on first_line: the block parsed again, a line at a time (the
 * rare path of messages). */
void csv_locate(const csv_dialect *d, const char *buf, size_t n,
                uint64_t first_line, csv_spot *spots, int nspots);

/* Physical line on which the row-th (1-based) record of a block starts
 * (repeated headers are no rows): for messages about a row found after
 * parsing. */
uint64_t csv_line_of_row(const csv_dialect *d, const char *buf, size_t n,
                         uint64_t first_line, uint64_t row);

#endif
