/* libFuzzer harness: parse_number_padded and _wide (io/num/number_fast.c)
 * against parse_number_fmt, the core's path. The first byte of an input picks
 * the format (bits 0-1 the point, bits 2-4 a thousands separator or none, bit
 * 5 null spellings); the rest is the text, copied to exactly its length
 * plus NUM_PAD bytes, which repeat the text's first byte (digits past a
 * field must not count). The kind, the double's bits and the correction
 * must be the core's; any difference aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/num/parse_number.h"

static void format_of(uint8_t b, num_format *f)
{
    static const char points[] = ".,'.";
    static const char seps[] = "\0,. _'e\0";
    num_format_init(f);
    f->decimal = points[b & 3];
    f->thousands = seps[(b >> 2) & 7];
    if (f->thousands == f->decimal)
        f->thousands = 0;
    if (b & 32) {
        num_format_add_null(f, "NA", 2);
        num_format_add_null(f, "-999", 4);
        num_format_add_null(f, "1.5", 3);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    num_format f;
    format_of(data[0], &f);
    size_t n = size - 1;
    char *text = malloc(n + NUM_PAD);
    if (!text)
        abort();
    if (n)
        memcpy(text, data + 1, n);
    memset(text + n, n ? text[0] : '7', NUM_PAD);
    double want = 0, got = 0;
    int32_t want_corr = 0, got_corr = 0;
    num_kind wk = parse_number_fmt(text, n, &f, &want, &want_corr);
    num_kind gk = parse_number_padded(text, n, &f, &got, &got_corr);
    double wide = 0;
    int32_t wide_corr = 0;
    num_kind wdk = parse_number_padded_wide(text, n, &f, &wide, &wide_corr);
    free(text);
    if (gk != wk || wdk != wk)
        abort();
    if (wk == NUM_OK &&
        (memcmp(&got, &want, sizeof got) != 0 || got_corr != want_corr ||
         memcmp(&wide, &want, sizeof wide) != 0 || wide_corr != want_corr))
        abort();
    return 0;
}
