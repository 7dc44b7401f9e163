#include "io/binary/binary_reader.h"

#include "io/base/row_keys.h"
#include "io/num/parse_number.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Private type codes stored in binary_spec.type. */

static const struct {
    const char *name;
    unsigned char code, size;
} types[] = {
    {"i8", BT_I8, 1},   {"u8", BT_U8, 1},   {"i16", BT_I16, 2},
    {"u16", BT_U16, 2}, {"i32", BT_I32, 4}, {"u32", BT_U32, 4},
    {"i64", BT_I64, 8}, {"u64", BT_U64, 8}, {"f32", BT_F32, 4},
    {"f64", BT_F64, 8},
};
#define NTYPES (sizeof types / sizeof types[0])
#define TYPE_LIST "i8 u8 i16 u16 i32 u32 i64 u64 f32 f64"

static int bad_spec(cs_error *e, const char *text, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int bad_spec(cs_error *e, const char *text, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return cs_fail(e, CS_EUSAGE, "", 0, "bad binary spec '%.200s': %s", text,
                   why);
}

static int find_type(const char *p, size_t len)
{
    for (size_t t = 0; t < NTYPES; t++)
        if (strlen(types[t].name) == len && memcmp(types[t].name, p, len) == 0)
            return (int)t;
    return -1;
}

/* Parses the repeat count after 'x': digits only, at least 1. Returns the
 * count, or 0 when it is not a number or too large to matter. */
static unsigned long parse_count(const char *p, size_t len)
{
    unsigned long n = 0;
    if (len == 0)
        return 0;
    for (size_t i = 0; i < len; i++) {
        if (p[i] < '0' || p[i] > '9')
            return 0;
        n = n * 10 + (unsigned long)(p[i] - '0');
        if (n > BINARY_MAX_FIELDS + 1)
            n = BINARY_MAX_FIELDS + 1; /* saturate: "too many" either way */
    }
    return n;
}

/* One comma-separated part, "TYPE" or "TYPExN": appends its fields. */
static int parse_part(const char *text, const char *p, size_t len,
                      binary_spec *s, cs_error *e)
{
    if (len == 0)
        return bad_spec(e, text, "empty field");
    /* No type name holds an 'x', so the first one starts the count. */
    const char *x = memchr(p, 'x', len);
    size_t tlen = x ? (size_t)(x - p) : len;
    int t = find_type(p, tlen);
    if (t < 0)
        return bad_spec(e, text, "unknown type '%.*s' (types: " TYPE_LIST ")",
                        (int)(tlen > 60 ? 60 : tlen), p);
    unsigned long n = 1;
    if (x) {
        n = parse_count(x + 1, len - tlen - 1);
        if (n == 0)
            return bad_spec(e, text,
                            "bad repeat count in '%.*s' (want xN, N >= 1)",
                            (int)(len > 60 ? 60 : len), p);
    }
    if (n > (unsigned long)(BINARY_MAX_FIELDS - s->nfields))
        return bad_spec(e, text, "more than %d fields", BINARY_MAX_FIELDS);
    for (unsigned long i = 0; i < n; i++) {
        s->type[s->nfields] = types[t].code;
        s->offset[s->nfields] = (unsigned short)s->record_size;
        s->record_size += types[t].size;
        s->nfields++;
    }
    return CS_OK;
}

int binary_spec_parse(const char *text, binary_spec *s, cs_error *e)
{
    s->nfields = 0;
    s->record_size = 0;
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int rc = parse_part(text, p, len, s, e);
        if (rc != CS_OK)
            return rc;
        if (!comma)
            return CS_OK;
        p = comma + 1;
    }
}

/* Loads are memcpy (no alignment or aliasing assumptions; compilers turn
 * them into plain moves) and the data is little-endian by definition. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define LE16(v) __builtin_bswap16(v)
#define LE32(v) __builtin_bswap32(v)
#define LE64(v) __builtin_bswap64(v)
#else
#define LE16(v) (v)
#define LE32(v) (v)
#define LE64(v) (v)
#endif

static inline uint16_t ld16(const unsigned char *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return LE16(v);
}

static inline uint32_t ld32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return LE32(v);
}

static inline uint64_t ld64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return LE64(v);
}

static inline double f64_of(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static inline float f32_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Copies one f64 field of n records (stride bytes apart) and returns how
 * many are NaN. The unit-stride case is the hot one (`-b f64`): the
 * constant stride lets the compiler vectorise it. */
static uint64_t copy_f64(double *dst, const unsigned char *src, size_t n,
                         size_t stride)
{
    uint64_t nan = 0;
    if (stride == 8) {
        for (size_t r = 0; r < n; r++) {
            double v = f64_of(ld64(src + 8 * r));
            dst[r] = v;
            nan += v != v;
        }
        return nan;
    }
    for (size_t r = 0; r < n; r++) {
        double v = f64_of(ld64(src + stride * r));
        dst[r] = v;
        nan += v != v;
    }
    return nan;
}

static uint64_t copy_f32(double *dst, const unsigned char *src, size_t n,
                         size_t stride)
{
    uint64_t nan = 0;
    for (size_t r = 0; r < n; r++) {
        double v = f32_of(ld32(src + stride * r));
        dst[r] = v;
        nan += v != v;
    }
    return nan;
}

/* Integers up to 32 bits: the conversion to double is exact. */
#define COPY_INT(NAME, T, LOAD)                                                \
    static void NAME(double *dst, const unsigned char *src, size_t n,          \
                     size_t stride)                                            \
    {                                                                          \
        for (size_t r = 0; r < n; r++)                                         \
            dst[r] = (double)(T)LOAD(src + stride * r);                        \
    }
#define LD8(p) (*(p))
COPY_INT(copy_i8, int8_t, LD8)
COPY_INT(copy_u8, uint8_t, LD8)
COPY_INT(copy_i16, int16_t, ld16)
COPY_INT(copy_u16, uint16_t, ld16)
COPY_INT(copy_i32, int32_t, ld32)
COPY_INT(copy_u32, uint32_t, ld32)

/* i64 and u64 beyond 2^53 round to the nearest double; their corrections
 * (parse_number.h's integer view) are the exact differences, in wrapping
 * unsigned arithmetic, whose result is small. The copy only notes whether
 * a value is past 2^53 (a branch-free test per value), so that a block of
 * smaller ones costs no more than before. */
static int copy_i64(double *dst, const unsigned char *src, size_t n,
                    size_t stride)
{
    uint64_t big = 0;
    for (size_t r = 0; r < n; r++) {
        uint64_t u = ld64(src + stride * r);
        dst[r] = (double)(int64_t)u;
        big |= u + (UINT64_C(1) << 53) > UINT64_C(1) << 54; /* |v| > 2^53 */
    }
    return big != 0;
}

static int copy_u64(double *dst, const unsigned char *src, size_t n,
                    size_t stride)
{
    uint64_t big = 0;
    for (size_t r = 0; r < n; r++) {
        uint64_t u = ld64(src + stride * r);
        dst[r] = (double)u;
        big |= u > UINT64_C(1) << 53;
    }
    return big != 0;
}

/* The corrections of those n values; returns whether any is nonzero. */
static int corr_wide(int type, int32_t *corr, const double *d,
                     const unsigned char *src, size_t n, size_t stride)
{
    int any = 0;
    for (size_t r = 0; r < n; r++) {
        uint64_t u = ld64(src + stride * r), back;
        if (type == BT_I64) /* 2^63 is no int64 */
            back = d[r] >= 0x1p63 ? UINT64_C(1) << 63 : (uint64_t)(int64_t)d[r];
        else /* 2^64 wraps to 0 */
            back = d[r] >= 0x1p64 ? 0 : (uint64_t)d[r];
        corr[r] = (int32_t)(int64_t)(u - back);
        any |= corr[r] != 0;
    }
    return any;
}

static uint64_t copy_field(int type, double *dst, const unsigned char *src,
                           size_t n, size_t stride)
{
    switch (type) {
    case BT_F64:
        return copy_f64(dst, src, n, stride);
    case BT_F32:
        return copy_f32(dst, src, n, stride);
    case BT_I8:
        copy_i8(dst, src, n, stride);
        break;
    case BT_U8:
        copy_u8(dst, src, n, stride);
        break;
    case BT_I16:
        copy_i16(dst, src, n, stride);
        break;
    case BT_U16:
        copy_u16(dst, src, n, stride);
        break;
    case BT_I32:
        copy_i32(dst, src, n, stride);
        break;
    case BT_U32:
        copy_u32(dst, src, n, stride);
        break;
    default: /* i64, u64: copy_wide */
        break;
    }
    return 0;
}

/* i64 and u64 fields: values, and corrections of rows [row0, row0 + n)
 * once the column has any. */
static void copy_wide(int type, row_batch *out, int c, size_t row0,
                      const unsigned char *src, size_t n, size_t stride)
{
    double *dst = out->col[c] + row0;
    int big = type == BT_I64 ? copy_i64(dst, src, n, stride)
                             : copy_u64(dst, src, n, stride);
    if (!big && !out->has_corr[c])
        return;
    int any = corr_wide(type, out->corr[c] + row0, dst, src, n, stride);
    if (any && !out->has_corr[c])
        row_batch_corr_start(out, c, row0);
}

/* --group-by: an integer field's value as its decimal text. */
static uint64_t int_field(int type, const unsigned char *p, int *neg)
{
    int64_t v;
    *neg = 0;
    switch (type) {
    case BT_U8:
        return *p;
    case BT_U16:
        return ld16(p);
    case BT_U32:
        return ld32(p);
    case BT_U64:
        return ld64(p);
    case BT_I8:
        v = (int8_t)*p;
        break;
    case BT_I16:
        v = (int16_t)ld16(p);
        break;
    case BT_I32:
        v = (int32_t)ld32(p);
        break;
    default: /* BT_I64 */
        v = (int64_t)ld64(p);
        break;
    }
    *neg = v < 0;
    /* the magnitude in unsigned arithmetic: -INT64_MIN is no int64 */
    return v < 0 ? UINT64_C(0) - (uint64_t)v : (uint64_t)v;
}

static void put_key(row_keys *k, size_t row, int i, int type,
                    const unsigned char *p)
{
    char buf[24], *e = buf + sizeof buf, *s = e;
    int neg;
    uint64_t u = int_field(type, p, &neg);
    do
        *--s = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (neg)
        *--s = '-';
    row_keys_put(k, row, i, s, (size_t)(e - s));
}

/* The key fields' text of records [0, nrec) (batch rows row0...), and
 * each NaN of a column, so that a group counts its own. */
static void decode_keys(const binary_spec *s, const unsigned char *buf,
                        size_t nrec, const int *map, int nmap, row_batch *out)
{
    row_keys *k = out->keys;
    int nk = s->nfields < k->nkmap ? s->nfields : k->nkmap;
    int nf = s->nfields < nmap ? s->nfields : nmap;
    size_t row0 = out->nrows, rs = s->record_size;
    for (size_t r = 0; r < nrec; r++) {
        const unsigned char *rec = buf + r * rs;
        for (int f = 0; f < nk; f++)
            if (k->kmap[f] >= 0)
                put_key(k, row0 + r, k->kmap[f], s->type[f],
                        rec + s->offset[f]);
    }
    for (int f = 0; f < nf; f++) {
        if (map[f] < 0 || (s->type[f] != BT_F64 && s->type[f] != BT_F32))
            continue;
        const double *d = out->col[map[f]] + row0;
        for (size_t r = 0; r < nrec; r++)
            if (d[r] != d[r])
                row_keys_bad(k, row0 + r, map[f], NUM_NAN);
    }
}

/* Records per pass: a block of input stays in L2 while each field of it is
 * copied out column by column. */
#define BLOCK_BYTES ((size_t)128 << 10)

void binary_decode(const binary_spec *s, const unsigned char *buf, size_t nrec,
                   const int *map, int nmap, row_batch *out)
{
    size_t rs = s->record_size;
    int nf = s->nfields < nmap ? s->nfields : nmap;
    size_t block = rs ? BLOCK_BYTES / rs : nrec;
    if (block == 0)
        block = 1;
    for (size_t r0 = 0; r0 < nrec; r0 += block) {
        size_t n = nrec - r0 < block ? nrec - r0 : block;
        const unsigned char *src = buf + r0 * rs;
        for (int f = 0; f < nf; f++) {
            int c = map[f];
            if (c < 0)
                continue;
            int t = s->type[f];
            if (t == BT_I64 || t == BT_U64) {
                copy_wide(t, out, c, out->nrows + r0, src + s->offset[f], n,
                          rs);
                continue;
            }
            double *dst = out->col[c] + out->nrows + r0;
            out->nan[c] += copy_field(t, dst, src + s->offset[f], n, rs);
        }
    }
    if (out->keys)
        decode_keys(s, buf, nrec, map, nf, out);
    out->nrows += nrec;
}
