/* lanes.h's two scans: portable loops in four independent lanes of
 * branch-free selects (NaN compares false, so it is skipped without a
 * test), and the same four lanes as one AVX2 register. Both keep C's
 * `x < m ? x : m`, which is what MINPD and MAXPD compute (the second
 * operand when either is NaN), so the two give the same bits. */
#include "src/stats/lanes.h"

#include <math.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define LANES_X86 1
#endif

static int portable_only;

void lanes_force_portable(int on)
{
    portable_only = on;
}

typedef struct acc4 {
    double mn[4], mx[4];
    uint64_t cnt[4];
    int ok[4];
} acc4;

static inline void take_one(acc4 *a, int k, double x)
{
    int real = x == x;
    a->cnt[k] += (uint64_t)real;
    a->mn[k] = x < a->mn[k] ? x : a->mn[k];
    a->mx[k] = x > a->mx[k] ? x : a->mx[k];
    a->ok[k] &= lanes_int_range(x) | (real ^ 1);
}

static lanes combine(const acc4 *a)
{
    lanes r = {a->cnt[0], a->mn[0], a->mx[0], a->ok[0]};
    for (int k = 1; k < 4; k++) {
        r.count += a->cnt[k];
        r.min = a->mn[k] < r.min ? a->mn[k] : r.min;
        r.max = a->mx[k] > r.max ? a->mx[k] : r.max;
        r.all_int &= a->ok[k];
    }
    return r;
}

static void acc4_init(acc4 *a)
{
    for (int k = 0; k < 4; k++) {
        a->mn[k] = INFINITY;
        a->mx[k] = -INFINITY;
        a->cnt[k] = 0;
        a->ok[k] = 1;
    }
}

static lanes scan_portable(const double *v, size_t n)
{
    acc4 a;
    acc4_init(&a);
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int k = 0; k < 4; k++)
            take_one(&a, k, v[i + (size_t)k]);
    for (; i < n; i++)
        take_one(&a, 0, v[i]);
    return combine(&a);
}

#ifdef LANES_X86
__attribute__((target("avx2"))) static lanes scan_avx2(const double *v,
                                                       size_t n)
{
    const __m256d sign = _mm256_set1_pd(-0.0), two52 = _mm256_set1_pd(0x1p52),
                  two64 = _mm256_set1_pd(0x1p64);
    __m256d mn = _mm256_set1_pd(INFINITY), mx = _mm256_set1_pd(-INFINITY);
    __m256d bad = _mm256_setzero_pd(); /* a real value that is no integer */
    __m256i cnt = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256d x = _mm256_loadu_pd(v + i);
        __m256d real = _mm256_cmp_pd(x, x, _CMP_ORD_Q);
        cnt = _mm256_sub_epi64(cnt, _mm256_castpd_si256(real));
        mn = _mm256_min_pd(x, mn);
        mx = _mm256_max_pd(x, mx);
        __m256d a = _mm256_andnot_pd(sign, x);
        __m256d r = _mm256_sub_pd(_mm256_add_pd(a, two52), two52);
        __m256d in =
            _mm256_and_pd(_mm256_cmp_pd(a, two64, _CMP_LE_OQ),
                          _mm256_or_pd(_mm256_cmp_pd(a, two52, _CMP_GE_OQ),
                                       _mm256_cmp_pd(r, a, _CMP_EQ_OQ)));
        bad = _mm256_or_pd(bad, _mm256_andnot_pd(in, real));
    }
    acc4 acc;
    uint64_t c[4];
    _mm256_storeu_pd(acc.mn, mn);
    _mm256_storeu_pd(acc.mx, mx);
    _mm256_storeu_si256((__m256i *)(void *)c, cnt);
    int badbits = _mm256_movemask_pd(bad);
    for (int k = 0; k < 4; k++) {
        acc.cnt[k] = c[k];
        acc.ok[k] = !((badbits >> k) & 1);
    }
    for (; i < n; i++)
        take_one(&acc, 0, v[i]);
    return combine(&acc);
}

__attribute__((target("avx2"))) static size_t
first_equal_avx2(const double *v, size_t n, double x)
{
    const __m256d want = _mm256_set1_pd(x);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        int m = _mm256_movemask_pd(
            _mm256_cmp_pd(_mm256_loadu_pd(v + i), want, _CMP_EQ_OQ));
        if (m)
            return i + (size_t)__builtin_ctz((unsigned)m);
    }
    while (!(v[i] == x))
        i++;
    return i;
}

static int use_avx2(void)
{
    return !portable_only && __builtin_cpu_supports("avx2");
}
#endif

lanes lanes_scan(const double *v, size_t n)
{
#ifdef LANES_X86
    if (use_avx2())
        return scan_avx2(v, n);
#endif
    return scan_portable(v, n);
}

size_t lanes_first_equal(const double *v, size_t n, double x)
{
#ifdef LANES_X86
    if (use_avx2())
        return first_equal_avx2(v, n, x);
#endif
    (void)n;
    size_t i = 0;
    while (!(v[i] == x))
        i++;
    return i;
}
