/* A one-thread streaming inflater behind one interface: ISA-L's
 * isal_inflate (Intel's hand-tuned decoder, about twice zlib's speed)
 * when the build found it (COLSTAT_HAVE_ISAL), zlib's inflate otherwise.
 *
 * Two modes. INFL_RAW: a raw deflate stream (RFC 1951), optionally
 * resumed at a block boundary with the window before it preset. INFL_GZIP:
 * one gzip member (RFC 1952): its header is parsed by io/gzip/member.h (the
 * same rules whatever the backend), its data inflated raw, and its CRC-32
 * and ISIZE checked against the trailer.
 *
 * Either backend gives the same output and the same error classes; the
 * messages are fixed per class, not the backend's own. */
#ifndef COLSTAT_IO_GZIP_INFLATE_H
#define COLSTAT_IO_GZIP_INFLATE_H

#include <stddef.h>
#include <stdint.h>

enum infl_mode { INFL_RAW, INFL_GZIP };

enum infl_status {
    INFL_OK = 0,  /* progress; call again with more input or room */
    INFL_END = 1, /* the stream (member) ended; *in is just after it */
    INFL_ERROR = -1,
};

enum infl_error {
    INFL_E_DATA = 1, /* invalid deflate data */
    INFL_E_HEADER,   /* invalid gzip header (inflater_message says how) */
    INFL_E_CRC,      /* CRC-32 differs from the trailer's */
    INFL_E_LENGTH,   /* ISIZE differs from the trailer's */
    INFL_E_MEMORY,
};

typedef struct inflater inflater;

inflater *inflater_new(void);
void inflater_free(inflater *z);

/* "ISA-L" or "zlib". */
const char *inflater_backend(void);

/* Whether the backend inflates faster than io/gzip/deflate_dec.h on one thread
 * (ISA-L does; zlib does not). */
int inflater_is_fastest(void);

/* Starts a stream; dict: up to 32768 bytes of output before it (INFL_RAW
 * only), or NULL. Returns 0, or -1 when out of memory. */
int inflater_reset(inflater *z, enum infl_mode mode, const uint8_t *dict,
                   size_t dict_len);

/* Inflates from in[0..*in_len) into out[0..*out_len); on return *in_len
 * and *out_len say how much was used. Input that ends before INFL_END is
 * a truncated stream when no more will come. */
int inflater_run(inflater *z, const uint8_t *in, size_t *in_len, uint8_t *out,
                 size_t *out_len);

/* After INFL_END: input the backend had taken in beyond the end (ISA-L
 * reads ahead) that inflater_run could no longer give back as unused: at
 * most 8 bytes, copied to out; they come before the caller's next input.
 * Returns their count. */
size_t inflater_carry(inflater *z, uint8_t *out);

/* After INFL_END of a member: its trailer's CRC-32 and ISIZE. */
void inflater_trailer(const inflater *z, uint32_t *crc, uint32_t *isize);

/* After INFL_ERROR. */
int inflater_error(const inflater *z);
const char *inflater_message(const inflater *z);

#endif
