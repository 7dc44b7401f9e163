/* What the first bytes of an input say it is, private to io/: the
 * compressed formats colstat decodes, and formats it recognises only to
 * refuse them with a hint (archives, columnar files, other compressors). */
#ifndef COLSTAT_IO_CODEC_MAGIC_H
#define COLSTAT_IO_CODEC_MAGIC_H

#include <stddef.h>

struct codec_ops;

/* Bytes at offset off that must equal bytes[i] where mask[i] is set
 * (mask NULL: every bit). */
typedef struct magic_pattern {
    unsigned short off;
    unsigned char len;
    const char *bytes;
    const char *mask;
} magic_pattern;

/* 1 when p[0, n) holds the whole pattern, else 0. */
int magic_match(const magic_pattern *m, const unsigned char *p, size_t n);

/* 1 when the n bytes at p (n short of the pattern's end) could be its
 * beginning: an input cut inside a magic. */
int magic_prefix(const magic_pattern *m, const unsigned char *p, size_t n);

typedef struct magic_format {
    const char *name;              /* "zstd", "zip archive" */
    const struct codec_ops *codec; /* its decoder; NULL: refused */
    const char *hint;              /* refused: what to do instead */
} magic_format;

/* Bytes an input's head needs for magic_identify to see every pattern. */
#define MAGIC_HEAD 512

/* The format p[0, n) begins, or NULL for none (plain data). n may be
 * short of MAGIC_HEAD only when the input is. */
const magic_format *magic_identify(const unsigned char *p, size_t n);

/* The decoded format whose magic the whole input p[0, n) begins and ends
 * inside (a compressed file cut to a few bytes), or NULL. Bytes that are
 * all text count only from 3 on ("BZh"): a file "B" is text. */
const magic_format *magic_cut(const unsigned char *p, size_t n);

#endif
