/* A gzip stream decoded in the caller's thread by the fast one-thread
 * inflater (io/gzip/inflate.h: ISA-L or zlib): member after member, zero
 * padding to the end accepted, anything else after a member an error.
 * What io/gzip/gzip.h falls back to with one thread or a small
 * input. */
#ifndef COLSTAT_IO_GZIP_SERIAL_H
#define COLSTAT_IO_GZIP_SERIAL_H

#include <stddef.h>
#include <sys/types.h>

#include "io/base/error.h"
#include "io/gzip/input.h"

typedef struct gzs gzs;

/* Reads the stream of in from offset 0. NULL when out of memory. */
gzs *gzs_new(gzin *in, const char *name);
void gzs_free(gzs *s);

/* Up to n inflated bytes; 0 once the stream ended and every member's
 * trailer checked out; -1 on an error (e filled). */
ssize_t gzs_read(gzs *s, void *buf, size_t n, cs_error *e);

/* Compressed bytes used so far. */
uint64_t gzs_used(const gzs *s);

/* Members seen so far. */
unsigned long long gzs_members(const gzs *s);

#endif
