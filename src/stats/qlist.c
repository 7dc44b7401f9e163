/* Quantile lists: "0.5,0.9,0.99" into exact decimals, their shortest text
 * and where each falls among n sorted values (see quantile.h). */
#include "quantile.h"

#include <stdio.h>
#include <stdlib.h>

__extension__ typedef unsigned __int128 u128;

static uint64_t ten_to(uint32_t k)
{
    uint64_t p = 1;
    while (k--)
        p *= 10;
    return p;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* What one element's characters say, before the range checks. */
typedef struct decimal {
    int neg, ok;
    unsigned ip;     /* integer part, 2 standing for "2 or more" */
    uint64_t frac;   /* the first QLIST_MAX_DIGITS decimals */
    uint32_t digits; /* decimals up to the last nonzero one */
} decimal;

static decimal read_decimal(const char *s, size_t len)
{
    decimal v = {0, 0, 0, 0, 0};
    size_t i = 0, ndig = 0;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        v.neg = s[i++] == '-';
    for (; i < len && is_digit(s[i]); i++, ndig++) {
        unsigned d = (unsigned)(s[i] - '0');
        v.ip = v.ip * 10 + d > 2 ? 2 : v.ip * 10 + d;
    }
    if (i < len && s[i] == '.')
        for (uint32_t k = 1; ++i < len && is_digit(s[i]); k++, ndig++) {
            unsigned d = (unsigned)(s[i] - '0');
            if (d && k <= QLIST_MAX_DIGITS)
                v.frac += d * ten_to(QLIST_MAX_DIGITS - k);
            if (d)
                v.digits = k;
        }
    v.ok = ndig > 0 && i == len;
    return v;
}

/* One trimmed element s[0..len) into q; pos is its 1-based place. */
static int parse_one(const char *s, size_t len, size_t pos, qfrac *q,
                     cs_error *e)
{
    while (len > 0 && is_blank(*s))
        s++, len--;
    while (len > 0 && is_blank(s[len - 1]))
        len--;
    int w = len > 40 ? 40 : (int)len; /* quote at most this much */
    if (len == 0)
        return cs_fail(e, CS_EUSAGE, "", 0, "--quantiles: element %zu is empty",
                       pos);
    decimal v = read_decimal(s, len);
    if (!v.ok)
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--quantiles: '%.*s' is not a decimal like 0.25", w, s);
    int nonzero = v.ip > 0 || v.digits > 0;
    if ((v.neg && nonzero) || v.ip > 1 || (v.ip == 1 && v.digits > 0))
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--quantiles: '%.*s' is not in [0, 1]", w, s);
    if (v.digits > QLIST_MAX_DIGITS)
        return cs_fail(e, CS_EUSAGE, "", 0,
                       "--quantiles: '%.*s' has more than %d decimals", w, s,
                       QLIST_MAX_DIGITS);
    q->digits = v.digits;
    q->num = v.ip ? 1 : v.frac / ten_to(QLIST_MAX_DIGITS - v.digits);
    return CS_OK;
}

static int seen(const qlist *l, qfrac q)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->q[i].num == q.num && l->q[i].digits == q.digits)
            return 1;
    return 0;
}

int qlist_parse(const char *text, qlist *out, cs_error *e)
{
    out->n = 0;
    out->q = NULL;
    size_t cap = 1;
    for (const char *p = text; *p; p++)
        cap += *p == ',';
    const char *p = text;
    while (*p && is_blank(*p))
        p++;
    if (!*p)
        return cs_fail(e, CS_EUSAGE, "", 0, "--quantiles: the list is empty");
    out->q = malloc(cap * sizeof *out->q);
    if (!out->q)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    p = text;
    for (size_t pos = 1;; pos++) {
        const char *end = p;
        while (*end && *end != ',')
            end++;
        qfrac q;
        if (parse_one(p, (size_t)(end - p), pos, &q, e)) {
            qlist_free(out);
            return e->status;
        }
        if (!seen(out, q))
            out->q[out->n++] = q;
        if (!*end)
            return CS_OK;
        p = end + 1;
    }
}

void qlist_free(qlist *l)
{
    free(l->q);
    l->q = NULL;
    l->n = 0;
}

int qlist_text(qfrac q, char *buf, size_t len)
{
    if (q.digits == 0)
        return snprintf(buf, len, "%llu", (unsigned long long)q.num);
    return snprintf(buf, len, "0.%0*llu", (int)q.digits,
                    (unsigned long long)q.num);
}

qrank qlist_rank(qfrac q, uint64_t n)
{
    u128 p = (u128)(n - 1) * q.num;
    uint64_t den = ten_to(q.digits);
    qrank r = {(uint64_t)(p / den) + 1, (uint64_t)(p % den), den};
    if (r.fnum == 0)
        r.fden = 1;
    return r;
}
