#include "io/codec/codec.h"

ssize_t codec_pump(void *state, codec_step step, int *ended, codec_in *in,
                   unsigned char *out, size_t n, cs_error *e)
{
    codec_out o = {out, n, 0};
    while (o.done < n && !*ended) {
        /* On a pipe, hand over what is decoded instead of waiting for the
         * writer; on a file, fill the whole buffer. */
        if (o.done > 0 && !in->regular && in->pos == in->len && !in->eof)
            break;
        int r = step(state, in, &o, e);
        if (r < 0)
            return -1;
        if (r == 0)
            *ended = 1;
    }
    return (ssize_t)o.done;
}

int codec_truncated(const codec_in *in, const char *name, cs_error *e)
{
    cs_fail(e, CS_EDATA, in->name, 0, "unexpected end of %s data (truncated?)",
            name);
    return -1;
}

static int garbage(const codec_in *in, const char *name, cs_error *e)
{
    cs_fail(e, CS_EDATA, in->name, 0, "trailing garbage after %s data", name);
    return -1;
}

/* Makes at least k bytes available at in->pos, or all that is left.
 * Returns the count available, or (size_t)-1 on error. */
static size_t want_bytes(codec_in *in, size_t k, cs_error *e)
{
    while (in->len - in->pos < k && !in->eof)
        if (in->refill(in, e) < 0)
            return (size_t)-1;
    return in->len - in->pos;
}

/* Consumes a run of zero bytes at in->pos, across refills. Returns its
 * length, or (uint64_t)-1 on error. */
static uint64_t skip_zeros(codec_in *in, cs_error *e)
{
    uint64_t run = 0;
    for (;;) {
        while (in->pos < in->len && in->buf[in->pos] == 0) {
            in->pos++;
            run++;
        }
        if (in->pos < in->len || in->eof)
            return run;
        if (in->refill(in, e) < 0)
            return (uint64_t)-1;
    }
}

static size_t magic_len(const codec_next_rule *rule)
{
    size_t k = 0;
    for (size_t i = 0; i < rule->nstarts; i++)
        if ((size_t)rule->starts[i].off + rule->starts[i].len > k)
            k = (size_t)rule->starts[i].off + rule->starts[i].len;
    return k;
}

/* What the bytes at in->pos are: 1 a stream, 0 garbage, -1 the beginning
 * of a magic cut by the end of the input. */
static int classify(const codec_in *in, const codec_next_rule *rule)
{
    const unsigned char *p = in->buf + in->pos;
    size_t have = in->len - in->pos;
    int cut = 0;
    for (size_t i = 0; i < rule->nstarts; i++) {
        if (magic_match(&rule->starts[i], p, have))
            return 1;
        cut |= magic_prefix(&rule->starts[i], p, have);
    }
    return cut ? -1 : 0;
}

/* Garbage is an error rather than skipped: it may be a damaged stream
 * that would otherwise be silently left out. */
int codec_next_stream(codec_in *in, const codec_next_rule *rule, cs_error *e)
{
    size_t need = magic_len(rule);
    int padded = 0;
    for (;;) {
        size_t have = want_bytes(in, need, e);
        if (have == (size_t)-1)
            return -1;
        if (have == 0)
            return 0;
        if (in->buf[in->pos] == 0 && rule->zero_pad && !padded) {
            uint64_t run = skip_zeros(in, e);
            if (run == (uint64_t)-1)
                return -1;
            if (run % rule->zero_pad) {
                cs_fail(e, CS_EDATA, in->name, 0,
                        "corrupt %s data: %llu bytes of padding, not a "
                        "multiple of %zu",
                        rule->name, (unsigned long long)run, rule->zero_pad);
                return -1;
            }
            padded = 1;
            continue;
        }
        int what = padded && !rule->stream_after_pad ? 0 : classify(in, rule);
        if (what == 1)
            return 1;
        if (what < 0)
            return codec_truncated(in, rule->name, e);
        return garbage(in, rule->name, e);
    }
}
