/* What an input is, found without reading it: a regular file's size and
 * whether its first bytes say it is compressed. For choosing a backend
 * before the first byte is parsed; the real open (io/source/source.h) reports
 * any problem. */
#ifndef COLSTAT_IO_SOURCE_PROBE_H
#define COLSTAT_IO_SOURCE_PROBE_H

#include <stdint.h>

typedef enum probe_kind {
    PROBE_STREAM,    /* a pipe, a terminal, or unreadable: size unknown */
    PROBE_PLAIN,     /* a regular file, not compressed */
    PROBE_GZIP,      /* a regular file in gzip */
    PROBE_COMPRESSED /* a regular file in another compressed format */
} probe_kind;

typedef struct probe_info {
    probe_kind kind;
    uint64_t bytes; /* the file's size; 0 for a stream */
} probe_info;

/* path "-" is standard input. Never fails: what cannot be looked at is a
 * stream. */
void probe_path(const char *path, probe_info *out);

#endif
