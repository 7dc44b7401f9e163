/* UTF-8 sequences (src/stats/utf8.h) against an encoder written from RFC
 * 3629's table: every scalar value encodes to bytes that decode to it, in
 * its length; random byte strings decode only where re-encoding the code
 * point gives the same bytes (no overlong form), the code point is a
 * scalar value (no surrogate, nothing past U+10FFFF), and the input holds
 * the whole sequence. Seed logged; COLSTAT_SEED replays it. */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "src/stats/utf8.h"
#include "tests/testlib.h"

static uint64_t g_seed;

/* RFC 3629, section 3. */
static size_t encode(uint32_t c, unsigned char *b)
{
    if (c < 0x80) {
        b[0] = (unsigned char)c;
        return 1;
    }
    if (c < 0x800) {
        b[0] = (unsigned char)(0xC0 | c >> 6);
        b[1] = (unsigned char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        b[0] = (unsigned char)(0xE0 | c >> 12);
        b[1] = (unsigned char)(0x80 | (c >> 6 & 0x3F));
        b[2] = (unsigned char)(0x80 | (c & 0x3F));
        return 3;
    }
    b[0] = (unsigned char)(0xF0 | c >> 18);
    b[1] = (unsigned char)(0x80 | (c >> 12 & 0x3F));
    b[2] = (unsigned char)(0x80 | (c >> 6 & 0x3F));
    b[3] = (unsigned char)(0x80 | (c & 0x3F));
    return 4;
}

static int scalar(uint32_t c)
{
    return c <= 0x10FFFF && !(c >= 0xD800 && c <= 0xDFFF);
}

START_TEST(every_scalar)
{
    for (uint32_t c = 0; c <= 0x10FFFF; c++) {
        if (!scalar(c))
            continue;
        unsigned char b[4];
        size_t n = encode(c, b);
        uint32_t got = ~0u;
        ck_assert_uint_eq(utf8_decode(b, n, &got), n);
        ck_assert_uint_eq(got, c);
        ck_assert_uint_eq(utf8_seq(b, n), n);
        if (n > 1) /* cut short: none */
            ck_assert_uint_eq(utf8_seq(b, n - 1), 0);
    }
}
END_TEST

/* The reference: the length of the first prefix of b (n bytes) that is
 * the encoding of a scalar value, its value in *v; 0 where none is. */
static size_t ref_len(const unsigned char *b, size_t n, uint32_t *v)
{
    for (size_t l = 1; l <= n && l <= 4; l++) {
        uint32_t c = l == 1 ? b[0] : b[0] & (0xFFu >> (l + 1));
        for (size_t i = 1; i < l; i++)
            c = c << 6 | (b[i] & 0x3Fu);
        unsigned char e[4];
        if (scalar(c) && encode(c, e) == l && !memcmp(e, b, l)) {
            *v = c;
            return l;
        }
    }
    return 0;
}

START_TEST(random_bytes)
{
    test_rng r = rng_for(g_seed, 1);
    int rounds = test_quick() ? 200000 : 2000000, accepted = 0;
    for (int k = 0; k < rounds; k++) {
        unsigned char b[4];
        for (int i = 0; i < 4; i++) /* continuation bytes often */
            b[i] = (unsigned char)(rng_below(&r, 4) ? 0x80 + rng_below(&r, 0x80)
                                                    : rng_below(&r, 256));
        size_t n = 1 + rng_below(&r, 4);
        uint32_t c = 0, v = 0;
        size_t len = utf8_decode(b, n, &c), want = ref_len(b, n, &v);
        ck_assert_msg(len == want && (!len || c == v),
                      "%02x %02x %02x %02x (n %zu): %zu, want %zu (seed %llu)",
                      b[0], b[1], b[2], b[3], n, len, want,
                      (unsigned long long)g_seed);
        ck_assert_uint_eq(utf8_seq(b, n), len);
        accepted += len > 1;
    }
    ck_assert_int_gt(accepted, rounds / 200); /* the test saw sequences */
}
END_TEST

int main(void)
{
    g_seed = test_seed("test_utf8");
    Suite *s = suite_create("utf8");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, every_scalar);
    tcase_add_test(tc, random_bytes);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_FORK_GETENV);
}
