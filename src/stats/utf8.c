#include "utf8.h"

size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *c)
{
    size_t len;
    unsigned lo = 0x80, hi = 0xBF;
    if (s[0] < 0x80) {
        *c = s[0];
        return 1;
    }
    if (s[0] >= 0xC2 && s[0] <= 0xDF) {
        len = 2;
        *c = s[0] & 0x1F;
    } else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        len = 3;
        lo = s[0] == 0xE0 ? 0xA0 : 0x80;
        hi = s[0] == 0xED ? 0x9F : 0xBF;
        *c = s[0] & 0x0F;
    } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        len = 4;
        lo = s[0] == 0xF0 ? 0x90 : 0x80;
        hi = s[0] == 0xF4 ? 0x8F : 0xBF;
        *c = s[0] & 0x07;
    } else {
        return 0;
    }
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        *c = *c << 6 | (s[i] & 0x3F);
    }
    return len;
}

size_t utf8_seq(const unsigned char *s, size_t n)
{
    uint32_t c;
    return utf8_decode(s, n, &c);
}
