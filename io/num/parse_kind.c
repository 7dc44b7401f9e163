/* parse_kind.h on the host: the shared core (kind_core.h) over
 * parse_number_fmt. */
#include "io/num/parse_kind.h"

static int host_number(const char *s, const char *e, const num_format *f,
                       double *out, int32_t *corr)
{
    return (int)parse_number_fmt(s, (size_t)(e - s), f, out, corr);
}

#define KIND_PARSE_NUMBER host_number
#include "io/num/kind_core.h"

num_kind parse_kind_fmt(const char *s, size_t n, const num_format *f,
                        unsigned k, double *out, int32_t *corr)
{
    return (num_kind)kind_parse_field(s, s + n, f, k, out, corr);
}

int parse_kind_date(const char *s, size_t n, int64_t *us)
{
    return kind_parse_date(s, s + n, us);
}

int parse_kind_offset(const char *s, size_t n)
{
    const char *e = s + n;
    while (s < e && kind_blank(*s))
        s++;
    while (e > s && kind_blank(e[-1]))
        e--;
    if (e > s && (e[-1] == 'Z' || e[-1] == 'z'))
        return 0;
    /* a zone's sign is among the last six bytes (+hh:mm), past the date
       and the hour and minute ("YYYY-MM-DDTHH:MM"); a time holds none */
    ptrdiff_t len = e - s;
    const char *p = len > 16 + 6 ? e - 6 : len > 16 ? s + 16 : e;
    while (p < e && *p != '+' && *p != '-')
        p++;
    int off = p < e ? kind_scan_zone(p, e) : 0;
    return off == KIND_NO_ZONE ? 0 : off;
}

int parse_kind_unit(const char *s, size_t n, const num_format *f)
{
    for (int u = 0; u < KIND_NUNITS; u++) {
        const char *p = s, *q = s + n;
        int neg;
        double v;
        int32_t r;
        while (p < q && kind_blank(*p))
            p++;
        while (q > p && kind_blank(q[-1]))
            q--;
        if (kind_cut_unit(&p, &q, u, &neg) &&
            parse_number_fmt(p, (size_t)(q - p), f, &v, &r) == NUM_OK)
            return u;
    }
    return -1;
}

const char *kind_unit_name(unsigned k)
{
    int len, prefix;
    return k >= KIND_UNIT && k < KIND_UNIT + KIND_NUNITS
               ? kind_unit_text((int)(k - KIND_UNIT), &len, &prefix)
               : "";
}
