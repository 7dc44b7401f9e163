/* Raw input on the device, internal to gpu/: the state that runs from one
 * segment of an input to the next (rows, lines, the carried record, why the
 * device stopped), and the kernels that turn a segment of bytes into column
 * values. gpu/raw_input.cu drives them; gpu.h is the public side. */
#ifndef COLSTAT_GPU_RAW_CUH
#define COLSTAT_GPU_RAW_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

extern "C" {
#include "io/num/parse_number.h"
}

typedef unsigned long long ull;

/* Why the device stopped (0: it did not). raw_input.cu words them. */
enum raw_stop {
    RAW_GOING = 0,
    RAW_STRAY_QUOTE,   /* a quote libcsv takes literally */
    RAW_BARE_CR,       /* a CR that is not part of a CRLF */
    RAW_LONG_RECORD,   /* a record longer than the carry */
    RAW_STRICT,        /* an invalid field under --strict */
    RAW_HARD_NUMBER,   /* a hard number too long or too many to list */
    RAW_TOO_MANY_ROWS, /* more rows than the value buffer holds */
    RAW_ARENA_FULL,    /* values kept to the end past the device's room */
    RAW_GROUP_FULL,    /* --group-by: more groups than the device's table */
    RAW_GROUP_KEY,     /* --group-by: a key longer than the device takes */
    RAW_GROUP_SUM,     /* --group-by: a sum only the host's csum holds */
    RAW_GROUP_MEMORY   /* --group-by: no device memory for its buffers */
};

/* --group-by: a key field's length in csv_args.key_len, with flags: the
 * field was quoted (its blanks are its own), it holds doubled quotes;
 * KEY_ABSENT: the record has no such field. */
#define KEY_QUOTED 0x80000000u
#define KEY_ESCAPED 0x40000000u
#define KEY_LEN_MASK 0x3fffffffu
#define KEY_ABSENT 0xffffffffu

/* --group-by: a value that did not enter is a NaN that says why, so that
 * its group counts it (the low bits of a quiet NaN's payload). */
#define RAW_NAN_BASE 0x7ff8000000000000ull
#define RAW_NAN_KIND(bits) ((unsigned)((bits)&3u)) /* NUM_MISSING.. NAN */
__device__ __forceinline__ double raw_nan(int kind)
{
    return __longlong_as_double((long long)(RAW_NAN_BASE + (ull)kind));
}

/* A number only the host's exact fallback (strtod) can round: the device
 * leaves it out of the reductions and lists it; the host parses it and
 * adds it to the statistics at the end (gpu_backend.cu, finish). */
#define HARD_TEXT 248 /* tests/e2e_gpu_csv.py knows it */
struct hard_entry {
    ull row; /* absolute, once its segment is done; the record before */
    unsigned col, len;
    char text[HARD_TEXT];
};
#define HARD_CAP 65536 /* per input; more stops the device */

/* Per column counters, as the host's row batch keeps them. CNT_FIRST_KEY
 * (this segment's only) locates the first invalid field in the segment's
 * text: offset << 17 | doubled quotes in it << 16 | its length (at most
 * 65535); both FIRST counters take the least. */
enum {
    CNT_MISSING,
    CNT_INVALID,
    CNT_NAN,
    CNT_FIRST_LINE,
    CNT_FIRST_KEY,
    CNT_N
};

__host__ __device__ inline bool cnt_takes_min(int i)
{
    return i % CNT_N == CNT_FIRST_LINE || i % CNT_N == CNT_FIRST_KEY;
}

/* Bytes kept of each column's first invalid field, for the warning that
 * shows it (40 bytes of text, doubled quotes among them). */
#define RAW_FIELD_BYTES 96

/* Device-resident; one per backend. Fields marked (segment) are rewritten
 * for every segment. */
struct raw_state {
    ull row_base;  /* absolute row of the next row */
    ull line_base; /* physical line of the carry's first byte */
    ull consumed;  /* input bytes before the carry */
    ull n_row0[2]; /* (segment) rows, first row: the reductions read these */
    ull segment;   /* index of the segment being parsed */
    ull stop_segment;
    ull arena_used;       /* rows kept for an end-of-input histogram */
    ull segment_rows_max; /* the most rows of one segment so far */
    ull keep_at; /* (segment) where this segment's rows go in the arena */
    unsigned carry_len;
    unsigned text_start, text_len; /* (segment) text = buf + text_start */
    unsigned nrec;                 /* (segment) LFs outside quotes */
    unsigned first_blank;          /* (segment) lowest blank record, or ~0 */
    unsigned nonblank_end;         /* (segment) 1 + highest other record */
    unsigned rows;                 /* (segment) records that are rows */
    unsigned end_off;              /* (segment) just past the last record */
    int stop, stop_now;            /* enum raw_stop: sticky, (segment) */
    unsigned hard_n, hard_at;      /* entries listed; (segment) before it */
    unsigned repeats_segment;      /* (segment) repeated header lines */
    ull repeat_line_segment;       /* (segment) the first one's line, or ~0 */
    ull repeats, repeat_line;      /* the input's, the first one's line */
};

/* What the host reads without a copy (mapped page-locked memory). */
struct raw_status {
    volatile ull segments_done;
    volatile int stop;
    volatile ull stop_segment;
    /* As of segment segments_done (written before it): the arena's rows, the
       input bytes consumed, and the most rows one segment kept, so that the
       host grows the arena ahead of the device without waiting for it. */
    volatile ull arena_used, consumed, segment_rows_max;
    /* --group-by: the groups and key bytes the device's table holds, and
       the most groups one segment made (after segments_done, perhaps one
       segment later) */
    volatile ull groups, key_bytes, new_groups_max;
};

struct csv_args {
    char *buf;      /* [carry region][segment bytes][64 bytes of padding] */
    unsigned carry; /* carry region bytes: the longest carried record */
    unsigned n;     /* segment bytes after the carry region */
    char delim;
    int strict;                 /* columns below it: an invalid field stops the
                                   device */
    const num_format *num;      /* how numbers are written (device) */
    const unsigned char *kinds; /* per column its kind (device; NULL: all
                                   plain numbers) */
    const int *map;             /* field -> column or -1 (device) */
    /* the header line (device; NULL: none): a record identical to it, a
       UTF-8 BOM before it allowed, is a repeated header, no row */
    const char *repeat;
    unsigned repeat_len;
    int nmap, ncols;
    int nsm;     /* multiprocessors: sizes the grids */
    double *col; /* column j at col + j * ld */
    size_t ld;
    raw_state *st;
    raw_status *status;     /* device view of the mapped status */
    char *carry_buf;        /* [carry] */
    ull *cnt, *cnt_segment; /* [ncols][CNT_N]: totals, this segment's */
    /* per column: the first invalid field's first bytes, and its length
       (bit 31: doubled quotes in it), written with the totals */
    char *inv_text; /* [ncols][RAW_FIELD_BYTES] */
    unsigned *inv_len;
    /* scratch, sized by csv_scratch_bytes */
    ull *seg, *pre;
    unsigned *rec_end, *rec_inlf;
    unsigned char *row_flag; /* record is a row (not blank) */
    unsigned *row_of;        /* record -> row, when blank lines intervene */
    double *moved;           /* [ncols][ld]: rows while compacting */
    /* the integer corrections (io/base/row_batch.h): nonzero ones written, and
       the column flagged; the reductions clear both */
    int *corr, *corr_on; /* [ncols][ld], [ncols] */
    int *moved_corr;     /* [ncols][ld]: their rows while compacting */
    void *scan_tmp;
    size_t scan_bytes;
    /* histogram values kept to the end (keep): column j at arena + j *
       arena_ld */
    hard_entry *hard; /* [HARD_CAP] */
    int keep;
    /* --group-by (nkeys > 0): per record and key column, where the key's
       field starts in the segment's text and its length (KEY_* flags);
       values that did not enter are RAW_NAN_BASE + their num_kind, and a
       number only the host rounds stops the device */
    int nkeys;
    const int *kmap; /* field -> key column or -1 (device) */
    int nkmap;
    unsigned *key_at, *key_len; /* [records][nkeys] */
    double *arena;
    int *corr_arena; /* the rows' corrections, or NULL (no quantiles) */
    size_t arena_ld;
};

/* Device bytes of scratch for segments of carry + n bytes; fills a's scratch
 * pointers from base when base is not NULL. */
size_t csv_scratch(csv_args *a, void *base);

/* Parses one segment into a->col (csv_parse_launch), then judges it
 * (csv_end_launch): leaves the rows and first row in st->n_row0 for the
 * reductions (0 rows once the device stopped). */
cudaError_t csv_parse_launch(const csv_args *a, cudaStream_t s);
cudaError_t csv_end_launch(const csv_args *a, cudaStream_t s);

/* Between the two: whether the segment will stop the device, and its
 * rows (the records that are rows) when it will not: end_kernel's
 * judgement, for what runs before it. */
__device__ __forceinline__ int raw_judge(const csv_args &a, ull *rows)
{
    const raw_state *st = a.st;
    int why = st->stop ? st->stop : st->stop_now;
    bool moved = st->first_blank < st->nonblank_end;
    *rows = moved ? st->rows : st->nonblank_end;
    if (!why && st->text_len - st->end_off > a.carry)
        why = RAW_LONG_RECORD;
    if (!why && st->nonblank_end > a.ld)
        why = RAW_TOO_MANY_ROWS;
    if (!why && a.keep && (!a.arena || st->arena_used + *rows > a.arena_ld))
        why = RAW_ARENA_FULL;
    return why;
}

/* Before the reductions (which clear the corrections): copies this
 * segment's rows, and their corrections, into the arena. */
cudaError_t raw_keep_launch(const csv_args *a, cudaStream_t s);

/* Binary records: n whole records of record_size bytes into columns, i64
 * and u64 exact as the double plus a correction. */
struct bin_args {
    const unsigned char *buf;
    size_t nrec, record_size;
    const unsigned char *type;    /* per column: enum binary_type */
    const unsigned short *offset; /* per column */
    int ncols;
    double *col;
    size_t ld;
    ull *cnt;  /* [ncols][CNT_N]: NaNs counted */
    int *corr; /* i64, u64: nonzero corrections at corr + c * corr_ld */
    size_t corr_ld;
    int *corr_on; /* [ncols]: set where one was written */
};

cudaError_t bin_segment_launch(const bin_args *a, cudaStream_t s);

#endif
