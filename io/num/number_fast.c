/* parse_number_padded: the host's fast path for the commonest spellings,
 * [-]digits[point digits] in at most 8 bytes after the sign, before the
 * core of io/num/number_core.h. The digits are read 8 bytes at a time from a
 * padded field (SWAR, as in Lemire, "Number Parsing at a Gigabyte per
 * Second", Software: Practice and Experience 51(8), 2021): at most 8 of
 * them make w < 2^53 and q in [-7, 0], where Clinger's one operation
 * (Clinger, "How to Read Floating Point Numbers Accurately", PLDI 1990)
 * rounds correctly, as the core does for them, and the integer correction
 * is 0, as num_int_corr's first test says; then the same mantissa with
 * an exponent of at most 3 digits, as C's %e prints it (short8_exp).
 * Every other text goes to parse_number_fmt whole: a general scan here,
 * and the same for up to 16 bytes, were tried and were slower than the
 * core's (its branches on the shape mispredict as lengths vary from row
 * to row). */
#include "io/num/parse_number.h"

#include "io/num/number_core.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The short spellings from one load of the padded field (the core's
 * num_short8, which the device shares). */
static inline bool short8(const char *s, size_t n, char point, double *out)
{
    bool neg = s[0] == '-';
    return num_short8(num_load8(s + neg), n - neg, neg, point, out);
}

/* The same mantissa with an exponent (num_short8_exp). */
static inline bool short8_exp(const char *s, size_t n, char point, double *out)
{
    bool neg = s[0] == '-';
    return num_short8_exp(num_load8(s + neg), s + neg, s + n, neg, point, out);
}

static const num_format c_format = {.decimal = '.'};

num_kind parse_number_padded(const char *s, size_t n, const num_format *f,
                             double *out, int32_t *corr)
{
    if (!f)
        f = &c_format;
    bool plain = num_short8_plain(f->decimal, f->thousands, f->nnull);
    /* 8 bytes after a sign: longer texts skip short8's checks */
    size_t len = n - (s[0] == '-');
    if (plain && len - 1 < 8 && short8(s, n, f->decimal, out)) {
        *corr = 0;
        return NUM_OK;
    }
    /* with an exponent: 8 mantissa bytes, 'e', a sign, 3 digits at most;
       not where 'e' separates thousands (the API allows it) */
    if (plain && len - 3 < 11 && num_short8_exp_plain(f->thousands) &&
        short8_exp(s, n, f->decimal, out)) {
        *corr = 0;
        return NUM_OK;
    }
    return parse_number_fmt(s, n, f, out, corr);
}
