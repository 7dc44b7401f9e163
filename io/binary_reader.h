/* Raw little-endian fixed-width records, described by a spec such as
 * "f64", "f64x3" or "i32,u8,f64": comma-separated types among i8 u8 i16
 * u16 i32 u32 i64 u64 f32 f64, each optionally repeated with xN. Fields
 * are packed (no padding). Integers stay exact: i64 and u64 past 2^53 as
 * the nearest double plus a correction (row_batch.h); a float NaN counts as
 * nan. */
#ifndef COLSTAT_IO_BINARY_BINARY_READER_H
#define COLSTAT_IO_BINARY_BINARY_READER_H

#include <stddef.h>

#include "io/base/error.h"
#include "io/base/row_batch.h"

#define BINARY_MAX_FIELDS 1024

/* Field type codes of binary_spec.type (the GPU decodes them too). */
enum binary_type {
    BT_I8 = 1,
    BT_U8,
    BT_I16,
    BT_U16,
    BT_I32,
    BT_U32,
    BT_I64,
    BT_U64,
    BT_F32,
    BT_F64
};

typedef struct binary_spec {
    int nfields;
    size_t record_size;                       /* bytes */
    unsigned char type[BINARY_MAX_FIELDS];    /* enum binary_type */
    unsigned short offset[BINARY_MAX_FIELDS]; /* byte offset in a record */
} binary_spec;

/* Returns CS_OK, or CS_EUSAGE with e saying what is wrong with text. */
int binary_spec_parse(const char *text, binary_spec *s, cs_error *e);

/* Decodes nrec whole records from buf, appending them to out (which must
 * have room: out->cap - out->nrows >= nrec). map as in csv_parse_block. */
void binary_decode(const binary_spec *s, const unsigned char *buf, size_t nrec,
                   const int *map, int nmap, row_batch *out);

#endif
