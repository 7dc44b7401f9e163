#include "src/dist/state_codec.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

void sc_put(sc_out *o, const void *b, size_t n)
{
    if (o->oom)
        return;
    if (o->n + n > o->cap) {
        size_t cap = o->cap ? o->cap : 256;
        while (cap < o->n + n)
            cap *= 2;
        unsigned char *q = realloc(o->p, cap);
        if (!q) {
            o->oom = 1;
            return;
        }
        o->p = q;
        o->cap = cap;
    }
    memcpy(o->p + o->n, b, n);
    o->n += n;
}

void sc_put_u64(sc_out *o, uint64_t v)
{
    unsigned char b[10];
    int n = 0;
    do {
        b[n] = (unsigned char)(v & 0x7f);
        v >>= 7;
        b[n] |= v ? 0x80 : 0;
        n++;
    } while (v);
    sc_put(o, b, (size_t)n);
}

/* zigzag: 0, -1, 1, -2, ... as 0, 1, 2, 3, ... */
void sc_put_i64(sc_out *o, int64_t v)
{
    uint64_t u = (uint64_t)v;
    sc_put_u64(o, (u << 1) ^ (v < 0 ? UINT64_MAX : 0));
}

void sc_put_f64(sc_out *o, double v)
{
    uint64_t u;
    unsigned char b[8];
    memcpy(&u, &v, 8);
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(u >> (8 * i));
    sc_put(o, b, 8);
}

void sc_put_text(sc_out *o, const char *s)
{
    size_t n = strlen(s);
    sc_put_u64(o, n);
    sc_put(o, s, n);
}

static uLong crc_of(const unsigned char *p, size_t n)
{
    uLong crc = crc32(0, Z_NULL, 0);
    /* crc32 takes a uInt length */
    for (size_t at = 0; at < n; at += 1u << 30) {
        size_t k = n - at < (1u << 30) ? n - at : (1u << 30);
        crc = crc32(crc, p + at, (uInt)k);
    }
    return crc;
}

void sc_put_crc(sc_out *o)
{
    uLong crc = o->oom ? 0 : crc_of(o->p, o->n);
    unsigned char b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (unsigned char)(crc >> (8 * i));
    sc_put(o, b, 4);
}

void sc_bad(sc_in *i, const char *why)
{
    if (!i->bad)
        i->why = why;
    i->bad = 1;
}

const unsigned char *sc_take(sc_in *i, size_t n)
{
    if (i->bad || i->n - i->at < n) {
        i->bad = 1;
        return NULL;
    }
    i->at += n;
    return i->p + i->at - n;
}

uint64_t sc_get_u64(sc_in *i)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        const unsigned char *b = sc_take(i, 1);
        if (!b)
            return 0;
        uint64_t part = *b & 0x7fu;
        /* the tenth byte holds one bit; a last byte of 0 after others
           is an overlong form of a shorter encoding */
        if ((shift == 63 && part > 1) || (shift && !*b)) {
            sc_bad(i, "a number not in its one encoding");
            return 0;
        }
        v |= part << shift;
        if (!(*b & 0x80))
            return v;
    }
    sc_bad(i, "a number past 64 bits");
    return 0;
}

int64_t sc_get_i64(sc_in *i)
{
    uint64_t u = sc_get_u64(i);
    return (int64_t)((u >> 1) ^ (0 - (u & 1)));
}

uint32_t sc_get_u32(sc_in *i)
{
    uint64_t v = sc_get_u64(i);
    if (v > UINT32_MAX) {
        sc_bad(i, "a count past 32 bits");
        return 0;
    }
    return (uint32_t)v;
}

double sc_get_f64(sc_in *i)
{
    const unsigned char *b = sc_take(i, 8);
    uint64_t u = 0;
    for (int k = 7; b && k >= 0; k--)
        u = u << 8 | b[k];
    double v;
    memcpy(&v, &u, 8);
    return v;
}

char *sc_get_text(sc_in *i, uint32_t max)
{
    uint64_t n = sc_get_u64(i);
    const unsigned char *b = n <= max ? sc_take(i, (size_t)n) : NULL;
    if (b && memchr(b, 0, (size_t)n))
        sc_bad(i, "a NUL byte in a name or the key");
    char *s = b && !i->bad ? malloc((size_t)n + 1) : NULL;
    if (!s) {
        i->bad = 1;
        return NULL;
    }
    memcpy(s, b, (size_t)n);
    s[n] = 0;
    return s;
}

int sc_crc_ok(const unsigned char *p, size_t n)
{
    if (n < 4)
        return 0;
    uLong crc = crc_of(p, n - 4);
    const unsigned char *c = p + n - 4;
    uLong got = c[0] | (uLong)c[1] << 8 | (uLong)c[2] << 16 | (uLong)c[3] << 24;
    return crc == got;
}

static const char B64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int sc_line_write(FILE *f, const char *prefix, const unsigned char *p, size_t n)
{
    if (fputs(prefix, f) < 0)
        return -1;
    char buf[4096];
    size_t k = 0;
    for (size_t at = 0; at < n; at += 3) {
        uint32_t g = (uint32_t)p[at] << 16;
        size_t left = n - at;
        if (left > 1)
            g |= (uint32_t)p[at + 1] << 8;
        if (left > 2)
            g |= p[at + 2];
        size_t chars = left >= 3 ? 4 : left + 1;
        for (size_t c = 0; c < chars; c++)
            buf[k++] = B64[(g >> (18 - 6 * c)) & 63];
        if (k > sizeof buf - 4) {
            if (fwrite(buf, 1, k, f) != k)
                return -1;
            k = 0;
        }
    }
    buf[k++] = '\n';
    return fwrite(buf, 1, k, f) == k ? 0 : -1;
}

static int b64_value(int c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

int sc_b64_feed(sc_b64 *b, sc_out *out, int c)
{
    int v = b64_value(c);
    if (v < 0)
        return 0;
    b->acc = b->acc << 6 | (uint32_t)v;
    b->nbits += 6;
    b->k = (b->k + 1) & 3;
    if (b->nbits >= 8) {
        b->nbits -= 8;
        unsigned char byte = (unsigned char)(b->acc >> b->nbits);
        b->acc &= (1u << b->nbits) - 1;
        sc_put(out, &byte, 1);
        if (out->oom)
            return -1;
    }
    return 1;
}

int sc_b64_end(const sc_b64 *b)
{
    return b->k == 1 || b->acc ? -1 : 0;
}
