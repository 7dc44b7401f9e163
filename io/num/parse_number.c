/* Decimal text to the nearest double. Three stages, cheapest first:
 * Clinger's exact fast path and the Eisel-Lemire 128-bit product, both in
 * io/num/number_core.h (shared with the device, gpu/parse_field.cuh), then here
 * strtod for the rare inputs neither can decide. */
#include "io/num/parse_number.h"

#include "io/num/number_core.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Halfway points between doubles have at most 767 significant digits, so
 * digits past this many only matter as "something nonzero follows". */
#define FALLBACK_DIGITS 800

static char *put_int(char *o, int64_t v)
{
    char tmp[24];
    int n = 0;
    uint64_t u = v < 0 ? (uint64_t)-v : (uint64_t)v;
    if (v < 0)
        *o++ = '-';
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (n)
        *o++ = tmp[--n];
    return o;
}

/* strtod on a canonical copy: at most FALLBACK_DIGITS significant digits, a
 * trailing '1' standing for any nonzero digits dropped, then the exponent.
 * Fits a stack buffer whatever the input length. */
static double fallback(const num_decimal *d)
{
    char buf[FALLBACK_DIGITS + 40];
    char *o = buf;
    int64_t kept = 0, frac = 0;
    bool dropped = false, seen = false, in_frac = false;
    for (const char *p = d->mant_begin; p < d->mant_end; p++) {
        if (*p == d->point) {
            in_frac = true;
            continue;
        }
        if (!num_is_digit(*p))
            continue; /* a thousands separator */
        seen |= *p != '0';
        if (!seen) {
            frac += in_frac; /* leading zeros only scale */
            continue;
        }
        if (kept < FALLBACK_DIGITS) {
            *o++ = *p;
            kept++;
            frac += in_frac;
        } else {
            dropped |= *p != '0';
            frac -= !in_frac;
        }
    }
    if (dropped) {
        *o++ = '1';
        frac++;
    }
    *o++ = 'e';
    o = put_int(o, d->exp10 - frac);
    *o = '\0';
    int saved = errno; /* ERANGE is not news to a caller that sees inf */
    double x = strtod(buf, NULL);
    errno = saved;
    return x;
}

/* Most inputs use the C locale's format: one copy for them all. */
static const num_format c_format = {.decimal = '.'};

num_kind parse_number_fmt(const char *s, size_t n, const num_format *f,
                          double *out, int32_t *corr)
{
    if (!f)
        f = &c_format;
    num_decimal d;
    int k = num_parse_core(s, s + n, f, out, &d);
    if (k == NUM_HARD) {
        double x = fallback(&d);
        *out = d.neg ? -x : x;
        k = NUM_OK;
    }
    *corr = k == NUM_OK ? num_int_corr(&d, *out) : 0;
    return (num_kind)k;
}

num_kind parse_number_corr(const char *s, size_t n, double *out, int32_t *corr)
{
    return parse_number_fmt(s, n, &c_format, out, corr);
}

num_kind parse_number(const char *s, size_t n, double *out)
{
    int32_t corr;
    return parse_number_fmt(s, n, &c_format, out, &corr);
}

void num_format_init(num_format *f)
{
    memset(f, 0, sizeof *f);
    f->decimal = '.';
}

int num_format_add_null(num_format *f, const char *s, size_t n)
{
    size_t used =
        f->nnull ? f->null_at[f->nnull - 1] + f->null_len[f->nnull - 1] : 0;
    if (n == 0 || n > NUM_NULL_LEN || f->nnull == NUM_NULL_MAX ||
        used + n > NUM_NULL_TEXT)
        return -1;
    memcpy(f->null_text + used, s, n);
    f->null_at[f->nnull] = (unsigned short)used;
    f->null_len[f->nnull++] = (unsigned char)n;
    f->null_lens |= UINT32_C(1) << n;
    return 0;
}
