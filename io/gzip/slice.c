#include "io/gzip/slice.h"

#include <stdlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "io/gzip/crc.h"
#include "io/gzip/deflate_dec.h"

gz_slice *gzslice_new(size_t cap)
{
    gz_slice *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    /* Two bytes an element: the same memory serves either width. */
    s->mem = malloc((cap + DDEC_OUT_SLACK) * 2);
    if (!s->mem) {
        free(s);
        return NULL;
    }
    s->cap = cap + DDEC_OUT_SLACK;
    return s;
}

void gzslice_free(gz_slice *s)
{
    if (!s)
        return;
    free(s->mem);
    free(s->cuts);
    free(s->seg_crc);
    free(s);
}

void gzslice_reset(gz_slice *s)
{
    s->hist = s->n = s->ncut = 0;
    s->wide = s->crc_done = 0;
    s->next = NULL;
    s->busy = s->bad = s->orphan = 0;
}

int gzslice_cut(gz_slice *s, uint32_t crc, uint32_t isize)
{
    if (s->ncut == s->cut_cap) {
        size_t cap = s->cut_cap ? 2 * s->cut_cap : 4;
        gz_cut *c = realloc(s->cuts, cap * sizeof *c);
        if (!c)
            return -1;
        s->cuts = c;
        s->cut_cap = cap;
    }
    s->cuts[s->ncut++] = (gz_cut){.at = s->n, .crc = crc, .isize = isize};
    return 0;
}

int gzslice_finish(gz_slice *s)
{
    if (s->seg_cap < s->ncut + 1) {
        uint32_t *c = realloc(s->seg_crc, (s->ncut + 1) * sizeof *c);
        if (!c)
            return -1;
        s->seg_crc = c;
        s->seg_cap = s->ncut + 1;
    }
    const uint8_t *out = s->mem + s->hist;
    size_t from = 0;
    for (size_t i = 0; i <= s->ncut; i++) {
        size_t to = i < s->ncut ? s->cuts[i].at : s->n;
        s->seg_crc[i] = gzcrc_update(0, out + from, to - from);
        from = to;
    }
    s->crc_done = 1;
    return 0;
}

/* Elements [from, to) of s, narrowed in place to bytes. Returns nonzero
 * when a marker stands for a byte before the member. */
static unsigned narrow_run(uint8_t *mem, size_t from, size_t to,
                           const uint8_t *window, unsigned lowest)
{
    const uint16_t *in = (const uint16_t *)(const void *)mem;
    unsigned bad = 0;
    size_t i = from;
#ifdef __SSE2__
    /* Sixteen at a time: packed to bytes, then the markers among them
     * (a few percent of elements in text) looked up one by one. */
    const __m128i hi = _mm_set1_epi16((short)0xff00);
    const __m128i zero = _mm_setzero_si128();
    for (; i + 16 <= to; i += 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(in + i));
        __m128i b =
            _mm_loadu_si128((const __m128i *)(const void *)(in + i + 8));
        __m128i ma = _mm_cmpeq_epi16(_mm_and_si128(a, hi), zero);
        __m128i mb = _mm_cmpeq_epi16(_mm_and_si128(b, hi), zero);
        unsigned markers =
            ~(unsigned)_mm_movemask_epi8(_mm_packs_epi16(ma, mb)) & 0xffff;
        uint16_t v[16];
        if (markers) {
            _mm_storeu_si128((__m128i *)(void *)v, a);
            _mm_storeu_si128((__m128i *)(void *)(v + 8), b);
        }
        _mm_storeu_si128((__m128i *)(void *)(mem + i), _mm_packus_epi16(a, b));
        while (markers) {
            unsigned k = (unsigned)__builtin_ctz(markers);
            markers &= markers - 1;
            bad |= v[k] < lowest;
            mem[i + k] = window[v[k] - 256];
        }
    }
#endif
    for (; i < to; i++) {
        unsigned v = in[i];
        bad |= (v >= 256) & (v < lowest);
        mem[i] = v < 256 ? (uint8_t)v : window[(v - 256) & 0x7fff];
    }
    return bad;
}

int gzslice_narrow(gz_slice *s, const uint8_t *window, size_t valid)
{
    /* Markers below this one stand for bytes before the member. In place,
     * front to back: byte i is written after element i / 2 <= i was read
     * (sixteen at a time: bytes i..i+15 after elements i..i+15). The
     * history is only copied: it is not output. */
    unsigned lowest = 256 + DDEC_WINDOW - (unsigned)valid;
    narrow_run(s->mem, 0, s->hist, window, 256);
    unsigned bad = narrow_run(s->mem, s->hist, s->hist + s->n, window, lowest);
    s->wide = 0;
    return bad != 0;
}

int gzslice_resolve(gz_slice *s, const uint8_t *window, size_t valid)
{
    if (gzslice_narrow(s, window, valid) != 0)
        return 1;
    return gzslice_finish(s);
}
