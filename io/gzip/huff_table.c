#include "io/gzip/huff_table.h"

#include <pthread.h>
#include <string.h>

/* RFC 1951, 3.2.5: length codes 257..285 and distance codes 0..29. */
static const uint16_t len_base[29] = {
    3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
    31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1,
                                      1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
                                      4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {
    1,    2,    3,    4,    5,    7,    9,    13,    17,    25,
    33,   49,   65,   97,   129,  193,  257,  385,   513,   769,
    1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0,  0,  1,  1,  2,  2,  3,  3,
                                       4, 4, 5,  5,  6,  6,  7,  7,  8,  8,
                                       9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

static uint32_t entry(uint32_t kind, unsigned value, unsigned extra,
                      unsigned len)
{
    return kind | (uint32_t)value << 8 | (uint32_t)extra << 4 | len;
}

/* What symbol sym of a code of this kind decodes to, with code length
 * len. Symbols the format does not define (286, 287; distances 30, 31)
 * are invalid, as in zlib. */
static uint32_t symbol_entry(enum huff_kind kind, unsigned sym, unsigned len)
{
    if (kind == HUFF_T_CODELEN)
        return entry(HUFF_LIT, sym, 1, len);
    if (kind == HUFF_T_DIST)
        return sym < 30 ? entry(HUFF_LEN, dist_base[sym], dist_extra[sym], len)
                        : entry(HUFF_BAD, 0, 0, len);
    if (sym < 256)
        return entry(HUFF_LIT, sym, 1, len);
    if (sym == 256)
        return entry(HUFF_EOB, 0, 0, len);
    if (sym < 286)
        return entry(HUFF_LEN, len_base[sym - 257], len_extra[sym - 257], len);
    return entry(HUFF_BAD, 0, 0, len);
}

static unsigned reverse(unsigned code, unsigned len)
{
    unsigned r = 0;
    for (unsigned i = 0; i < len; i++, code >>= 1)
        r = r << 1 | (code & 1);
    return r;
}

/* zlib's acceptance (inftrees.c): over-subscribed never; incomplete only
 * for a literal/length or distance code whose longest code has length 1;
 * no codes at all for distances (and code lengths, which zlib lets
 * through but which always ends in an error later: refused here). */
static int acceptable(enum huff_kind kind, const unsigned count[16],
                      unsigned max)
{
    if (max == 0)
        return kind == HUFF_T_DIST;
    int left = 1;
    for (unsigned len = 1; len <= 15; len++) {
        left = 2 * left - (int)count[len];
        if (left < 0)
            return 0;
    }
    return left == 0 || (kind != HUFF_T_CODELEN && max == 1);
}

static unsigned primary_bits(enum huff_kind kind)
{
    return kind == HUFF_T_LITLEN ? HUFF_LITLEN_BITS
           : kind == HUFF_T_DIST ? HUFF_DIST_BITS
                                 : HUFF_CODELEN_BITS;
}

/* Places symbol sym's code (reversed: deflate sends codes most significant
 * bit first into a least-significant-first bit stream) in the primary
 * table, or in the subtable of its first `bits` bits. */
static void place(uint32_t *table, unsigned bits, unsigned sub_bits,
                  unsigned *next_sub, unsigned rev, unsigned len, uint32_t e)
{
    if (len <= bits) {
        for (unsigned i = rev; i < (1u << bits); i += 1u << len)
            table[i] = e;
        return;
    }
    unsigned head = rev & ((1u << bits) - 1);
    if (!(table[head] & HUFF_SUB)) {
        unsigned at = *next_sub;
        *next_sub += 1u << sub_bits;
        for (unsigned i = 0; i < (1u << sub_bits); i++)
            table[at + i] = entry(HUFF_BAD, 0, 0, len);
        table[head] = entry(HUFF_SUB, at, sub_bits, bits);
    }
    uint32_t *sub = table + huff_value(table[head]);
    for (unsigned i = rev >> bits; i < (1u << sub_bits);
         i += 1u << (len - bits))
        sub[i] = e;
}

int huff_build(uint32_t *table, enum huff_kind kind, const uint8_t *lens,
               unsigned n)
{
    unsigned count[16] = {0}, max = 0;
    for (unsigned s = 0; s < n; s++) {
        count[lens[s]]++;
        if (lens[s] > max)
            max = lens[s];
    }
    count[0] = 0;
    if (!acceptable(kind, count, max))
        return -1;
    unsigned bits = primary_bits(kind);
    for (unsigned i = 0; i < (1u << bits); i++)
        table[i] = entry(HUFF_BAD, 0, 0, 1);
    /* First code of each length (RFC 1951, 3.2.2, step 2). */
    unsigned next[16], code = 0;
    for (unsigned len = 1; len <= 15; len++) {
        code = (code + count[len - 1]) << 1;
        next[len] = code;
    }
    unsigned sub_bits = max > bits ? max - bits : 0;
    unsigned next_sub = 1u << bits;
    for (unsigned s = 0; s < n; s++) {
        unsigned len = lens[s];
        if (len == 0)
            continue;
        unsigned rev = reverse(next[len]++, len);
        place(table, bits, sub_bits, &next_sub, rev, len,
              symbol_entry(kind, s, len));
    }
    return 0;
}

void huff_pair_literals(uint32_t *table)
{
    enum { N = 1 << HUFF_LITLEN_BITS };
    uint32_t one[N];
    memcpy(one, table, sizeof one);
    for (unsigned i = 0; i < N; i++) {
        uint32_t a = one[i];
        if (!(a & HUFF_LIT))
            continue;
        unsigned la = huff_len(a);
        /* The bits after the first code, as far as the lookup saw them:
         * the second code must lie wholly inside them. */
        uint32_t b = one[i >> la];
        unsigned lb = huff_len(b);
        if (!(b & HUFF_LIT) || la + lb > HUFF_LITLEN_BITS)
            continue;
        table[i] =
            entry(HUFF_LIT, huff_value(a) | huff_value(b) << 8, 2, la + lb);
    }
}

static uint32_t fixed_litlen[HUFF_LITLEN_SIZE];
static uint32_t fixed_dist[HUFF_DIST_SIZE];
static pthread_once_t fixed_once = PTHREAD_ONCE_INIT;

static void build_fixed(void)
{
    uint8_t lens[288];
    memset(lens, 8, 144);
    memset(lens + 144, 9, 112);
    memset(lens + 256, 7, 24);
    memset(lens + 280, 8, 8);
    huff_build(fixed_litlen, HUFF_T_LITLEN, lens, 288);
    huff_pair_literals(fixed_litlen);
    memset(lens, 5, 32);
    huff_build(fixed_dist, HUFF_T_DIST, lens, 32);
}

const uint32_t *huff_fixed_litlen(void)
{
    pthread_once(&fixed_once, build_fixed);
    return fixed_litlen;
}

const uint32_t *huff_fixed_dist(void)
{
    pthread_once(&fixed_once, build_fixed);
    return fixed_dist;
}
