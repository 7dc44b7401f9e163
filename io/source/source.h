/* A byte source: a file or standard input, gzip, zstd, xz and bzip2
 * decoded transparently. The format is recognised by its magic bytes, not
 * the file name; concatenated members, frames and streams are read whole;
 * a truncated stream, a bad checksum or trailing garbage is an error,
 * never a silent short read. Formats colstat does not read (archives,
 * Parquet, other compressors) are refused by their magic bytes, and so is
 * an archive or a second layer of compression inside compressed data. A
 * regular file whose size changes while it is read is an error. */
#ifndef COLSTAT_IO_SOURCE_SOURCE_H
#define COLSTAT_IO_SOURCE_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "io/base/error.h"
/* What an input is without opening it (probe_path): part of this contract. */
#include "io/source/probe.h"

typedef struct source source;

/* How compressed input is decoded. threads: how many threads a decoder
 * may use (gzip inflates with that many: io/gzip/gzip.h; 0 or 1: one
 * thread, ISA-L where built, zlib otherwise); gzip_piece: compressed
 * bytes per piece of the parallel gzip decoder (0: its default; small
 * ones are a test hook); raw_binary: the data is raw binary values
 * (-b), so an input that ends inside a format's magic number is data
 * (one i8 of 0xFD), not a cut stream: a compressed one holds its magic. */
typedef struct source_config {
    unsigned threads;
    size_t gzip_piece;
    int raw_binary;
} source_config;

/* path "-" is standard input. Returns CS_OK or CS_EDATA (e filled).
 * source_open decodes on one thread; cfg NULL means the same. */
int source_open(const char *path, source **out, cs_error *e);
int source_open_cfg(const char *path, const source_config *cfg, source **out,
                    cs_error *e);

/* Reads up to n bytes of (decoded) data. Returns the count, 0 at the end
 * of the data, -1 on error (e filled, status CS_EDATA). */
ssize_t source_read(source *s, void *buf, size_t n, cs_error *e);
/* Reads n bytes, fewer only at the end (then *eof = 1); -1 on error. */
ssize_t source_read_full(source *s, void *buf, size_t n, int *eof, cs_error *e);

/* The name to show in messages: the path, or "(standard input)". */
const char *source_name(const source *s);

int source_is_gzip(const source *s);

/* The compression being decoded: "gzip", "zstd", "xz" or "bzip2"; NULL
 * for plain input. */
const char *source_format_name(const source *s);

/* For -v: how the data was decoded so far, one line into buf (the
 * decoder, its threads, time and speed, whether in parallel and if not
 * why); "" for plain input and formats with nothing to say. */
void source_describe(const source *s, char *buf, size_t n);

/* Size in bytes of the underlying file when it is a regular file (the
 * compressed size for compressed input), else 0. For progress and
 * benchmarks. */
uint64_t source_file_size(const source *s);

/* Compressed bytes consumed so far (equals bytes read when plain). */
uint64_t source_raw_pos(const source *s);

/* Plain (not compressed) regular files can also be read by range, from several
 * threads at once, without moving the stream: what makes multi-reader I/O
 * possible. source_pread reads exactly n bytes at off; a short read (the
 * file shrank) or an I/O error returns -1 with e filled. */
int source_can_pread(const source *s);
ssize_t source_pread(const source *s, void *buf, size_t n, uint64_t off,
                     cs_error *e);

/* Plain regular files only: the next source_read starts at byte off.
 * Returns CS_OK or CS_EDATA (e filled). */
int source_seek(source *s, uint64_t off, cs_error *e);

/* Plain regular files only: the input is bytes [lo, hi) of the file, one
 * process's share of it (--mpi): reads start at lo and end at hi, and
 * source_file_size says hi. Returns CS_OK or CS_EDATA (e filled). */
int source_window(source *s, uint64_t lo, uint64_t hi, cs_error *e);

void source_close(source *s);

#endif
