/* The fused reduction: one pass over each column of a batch gives the
 * count, the exact sum (and sum of squares), the extrema with their first
 * row and the integrality flag. Batches that carry integer corrections
 * (io/base/row_batch.h) get a second pass over those: their sum, the squares'
 * cross terms and the integer view's extrema, as src/stats/stats.c computes
 * them.
 *
 * Exact sums follow S. Collange, D. Defour, S. Graillat, R. Iakymchuk,
 * "Numerical reproducibility for the parallel reduction on multi- and
 * many-core architectures", Parallel Computing 49 (2015): each thread keeps
 * a short floating-point expansion updated with Knuth's error-free TwoSum;
 * a residual the expansion cannot hold is added exactly, as integer digits,
 * to a superaccumulator in shared memory; at block end the expansions are
 * merged across the warp and flushed too, and the block's digits are added
 * to the column's global digits. Squares x*x = p + e exactly (TwoProduct by
 * fma) while neither can overflow or underflow; outside that range the
 * integer square m*m * 2^(2e) goes straight to the digits (R. M. Neal,
 * arXiv:1505.05571). Digit additions are integer and commutative, so the
 * result does not depend on block scheduling; extrema compare (value, row)
 * so ties go to the lower row whatever the order. */
#include "kernels.cuh"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

namespace
{

typedef unsigned long long ull;

constexpr int THREADS = 256;
constexpr int WARPS = THREADS / 32;
constexpr int EXP_TERMS = 2; /* fastest (kernel_bench); all are exact */
/* Squares carry 106-bit products: fewer terms spill nearly every value. */
constexpr int SQ_TERMS = 4;
constexpr unsigned FULL = 0xffffffffu;

/* Below this the expansion's terms cannot overflow, whatever the count. */
constexpr double SUM_DIRECT = 0x1p960;
/* Inside [SQ_LO, SQ_HI) x*x and its fma error are exact doubles. */
constexpr double SQ_LO = 0x1p-480, SQ_HI = 0x1p480;

__device__ __forceinline__ void digit_add(long long *acc, int i, ull v)
{
    if (v)
        atomicAdd(reinterpret_cast<ull *>(acc + i), v);
}

/* bit of the accumulator that bit 0 of the integer significand lands on */
__device__ __forceinline__ int split(ull bits, ull *m)
{
    int bexp = (int)((bits >> 52) & 0x7ff);
    *m = (bits & ((1ull << 52) - 1)) | ((ull)(bexp != 0) << 52);
    return bexp + (bexp == 0) - 1075 - SACC_LSB_EXP;
}

/* acc += x exactly; x finite. Three digits of < 2^32 each, as exact.c. */
__device__ void digits_add(long long *acc, double x)
{
    ull bits = (ull)__double_as_longlong(x), m;
    int shift = split(bits, &m);
    int i = shift >> 5, r = shift & 31;
    ull t = m >> (32 - r);
    ull p0 = (m << r) & 0xffffffffull, p1 = t & 0xffffffffull, p2 = t >> 32;
    if (bits >> 63) {
        p0 = 0 - p0;
        p1 = 0 - p1;
        p2 = 0 - p2;
    }
    digit_add(acc, i, p0);
    digit_add(acc, i + 1, p1);
    digit_add(acc, i + 2, p2);
}

/* acc += x*x exactly; x finite. The 106-bit m*m spans five digits. */
__device__ void digits_add_square(long long *acc, double x)
{
    ull bits = (ull)__double_as_longlong(x), m;
    int shift = 2 * split(bits, &m) + SACC_LSB_EXP;
    int i = shift >> 5, r = shift & 31, s = 32 - r;
    ull lo = m * m, hi = __umul64hi(m, m);
    ull tlo = (lo >> s) | (hi << (64 - s)), thi = hi >> s;
    digit_add(acc, i, (lo << r) & 0xffffffffull);
    digit_add(acc, i + 1, tlo & 0xffffffffull);
    digit_add(acc, i + 2, tlo >> 32);
    digit_add(acc, i + 3, thi & 0xffffffffull);
    digit_add(acc, i + 4, thi >> 32);
}

/* acc += x*k exactly; x finite, |k| < 2^32. m*|k| spans five digits, as
 * a square does. */
__device__ void digits_add_product(long long *acc, double x, long long k)
{
    ull bits = (ull)__double_as_longlong(x), m;
    int shift = split(bits, &m);
    int i = shift >> 5, r = shift & 31, s = 32 - r;
    ull uk = k < 0 ? 0 - (ull)k : (ull)k;
    ull lo = m * uk, hi = __umul64hi(m, uk);
    ull tlo = (lo >> s) | (hi << (64 - s)), thi = hi >> s;
    ull part[5] = {(lo << r) & 0xffffffffull, tlo & 0xffffffffull, tlo >> 32,
                   thi & 0xffffffffull, thi >> 32};
    bool neg = (bits >> 63) != (ull)(k < 0);
#pragma unroll
    for (int j = 0; j < 5; j++)
        digit_add(acc, i + j, neg ? 0 - part[j] : part[j]);
}

/* Adds x to the expansion a, one error-free sum per term; returns what is
 * left over (0 when a absorbed x exactly). TwoSum (Knuth, 6 additions), or
 * with FAST the operands ordered by magnitude and Fast2Sum (Dekker, 3
 * additions), exact for |big| >= |small|. Either way the sum is exact;
 * only the speed differs. */
template <int K, bool FAST>
__device__ __forceinline__ double absorb(double (&a)[K], double x)
{
#pragma unroll
    for (int k = 0; k < K; k++) {
        double s, e;
        if (FAST) {
            bool swap = fabs(a[k]) < fabs(x);
            double big = swap ? x : a[k], small = swap ? a[k] : x;
            s = big + small;
            e = small - (s - big);
        } else {
            s = a[k] + x;
            double bb = s - a[k];
            e = (a[k] - (s - bb)) + (x - bb);
        }
        a[k] = s;
        x = e;
    }
    return x;
}

/* Same test as stats.c: an integer of magnitude at most 2^64. */
__device__ __forceinline__ bool is_int_range(double v)
{
    double a = fabs(v);
    return (a <= 0x1p64) & ((a >= 0x1p52) | ((a + 0x1p52) - 0x1p52 == a));
}

/* (av, ar) comes before (bv, br) as a minimum; rows break ties. */
__device__ __forceinline__ bool min_first(double av, ull ar, double bv, ull br)
{
    return ar != DEV_NO_ROW &&
           (br == DEV_NO_ROW || av < bv || (av == bv && ar < br));
}

__device__ __forceinline__ bool max_first(double av, ull ar, double bv, ull br)
{
    return ar != DEV_NO_ROW &&
           (br == DEV_NO_ROW || av > bv || (av == bv && ar < br));
}

/* Finite extremes need no row: fmin and fmax, which no order can change
 * (zeros are made +0 on the host). */
__device__ __forceinline__ void ext_fold(dev_ext &e, const dev_ext &o)
{
    if (min_first(o.mn, o.mnr, e.mn, e.mnr)) {
        e.mn = o.mn;
        e.mnr = o.mnr;
    }
    if (max_first(o.mx, o.mxr, e.mx, e.mxr)) {
        e.mx = o.mx;
        e.mxr = o.mxr;
    }
    e.fmn = fmin(e.fmn, o.fmn);
    e.fmx = fmax(e.fmx, o.fmx);
}

__device__ __forceinline__ void ext_warp(dev_ext &e)
{
    for (int off = 16; off > 0; off >>= 1) {
        dev_ext o{__shfl_down_sync(FULL, e.mn, off),
                  __shfl_down_sync(FULL, e.mx, off),
                  __shfl_down_sync(FULL, e.mnr, off),
                  __shfl_down_sync(FULL, e.mxr, off),
                  __shfl_down_sync(FULL, e.fmn, off),
                  __shfl_down_sync(FULL, e.fmx, off)};
        ext_fold(e, o);
    }
}

/* An empty block's extrema. */
__device__ __forceinline__ dev_ext ext_none()
{
    return dev_ext{NAN, NAN, DEV_NO_ROW, DEV_NO_ROW, INFINITY, -INFINITY};
}

/* Block-wide fold of each thread's e; the result is valid in thread 0. */
__device__ dev_ext ext_block(dev_ext e)
{
    __shared__ dev_ext s_ext[WARPS];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    ext_warp(e);
    if (lane == 0)
        s_ext[warp] = e;
    __syncthreads();
    if (warp == 0) {
        e = lane < WARPS ? s_ext[lane] : ext_none();
        ext_warp(e);
    }
    return e;
}

/* One thread's running state; extrema as 32-bit indices into the column
 * (a launch holds fewer than 2^27 values), made rows at the end. */
template <int K> struct lane_acc {
    double es[K], eq[SQ_TERMS];
    double mn, mx;
    double fmn, fmx; /* finite values only */
    unsigned mni, mxi;
    unsigned count;
    bool all_int;
};

constexpr unsigned NO_IDX = 0xffffffffu;

/* Sums of a value that is infinite or beyond SUM_DIRECT: rare, kept out
 * of line (and off the thread's registers). */
template <bool SUMS, bool SQUARES>
__device__ __noinline__ void add_rare(double x, long long *s_sum,
                                      long long *s_sq, ull *s_inf)
{
    bool inf = fabs(x) == INFINITY;
    if (SUMS) {
        if (inf)
            atomicAdd(&s_inf[x < 0], 1ull);
        else
            digits_add(s_sum, x);
    }
    if (SQUARES) {
        if (inf)
            atomicAdd(&s_inf[2], 1ull);
        else
            digits_add_square(s_sq, x);
    }
}

/* Leftovers of one value that its thread's expansions could not hold. */
struct spill {
    double s, q1, q2;
};

/* Folds x into the thread's state. The residuals come back in r rather
 * than being flushed here: the caller tests a whole group at once, so no
 * branch waits on each value's chain of dependent additions. */
template <int K, bool FAST, bool SUMS, bool SQUARES>
__device__ __forceinline__ void visit(lane_acc<K> &t, double x, unsigned i,
                                      spill &r, long long *s_sum,
                                      long long *s_sq, ull *s_inf)
{
    /* indices rise within a thread, so strict tests keep the first; NaN
     * fails both; an all-+inf (all--inf) thread is settled at the end */
    if (x < t.mn) {
        t.mn = x;
        t.mni = i;
    }
    if (x > t.mx) {
        t.mx = x;
        t.mxi = i;
    }
    double ax = fabs(x);
    /* fmin and fmax skip NaN: infinities (and NaN) pass as NaN */
    double xf = ax <= DBL_MAX ? x : NAN;
    t.fmn = fmin(t.fmn, xf);
    t.fmx = fmax(t.fmx, xf);
    bool ok = ax < SUM_DIRECT; /* one test for NaN, inf and huge */
    double xs = ok ? x : 0.0;  /* adding 0 leaves an expansion exact */
    t.count += ok;
    if (!ok && x == x) {
        t.count++;
        t.all_int = false; /* |x| >= 2^960 */
        add_rare<SUMS, SQUARES>(x, s_sum, s_sq, s_inf);
    }
    if (t.all_int)
        t.all_int = is_int_range(xs);
    r.s = r.q1 = r.q2 = 0;
    if (SUMS)
        r.s = absorb<K, FAST>(t.es, xs);
    if (SQUARES) {
        bool fits = ax >= SQ_LO && ax < SQ_HI;
        double y = fits ? xs : 0.0;
        double p = y * y;
        double e = fma(y, y, -p);
        r.q1 = absorb<SQ_TERMS, FAST>(t.eq, p);
        r.q2 = absorb<SQ_TERMS, FAST>(t.eq, e);
        if (!fits && ok && x != 0)
            digits_add_square(s_sq, x);
    }
}

/* Flushes the residuals of a group of values, one test for the group. */
template <bool SUMS, bool SQUARES, int G>
__device__ __forceinline__ void flush_group(const spill (&r)[G],
                                            long long *s_sum, long long *s_sq)
{
    bool any = false;
#pragma unroll
    for (int j = 0; j < G; j++) {
        if (SUMS)
            any |= r[j].s != 0;
        if (SQUARES)
            any |= (r[j].q1 != 0) | (r[j].q2 != 0);
    }
    if (!any)
        return;
    for (int j = 0; j < G; j++) {
        if (SUMS && r[j].s != 0)
            digits_add(s_sum, r[j].s);
        if (SQUARES && r[j].q1 != 0)
            digits_add(s_sq, r[j].q1);
        if (SQUARES && r[j].q2 != 0)
            digits_add(s_sq, r[j].q2);
    }
}

/* Index of the first non-NaN value this thread visits, in visiting order;
 * only for a thread whose values were all +inf or all -inf. */
__device__ unsigned first_valid(const double *v, unsigned n, unsigned gid,
                                unsigned stride)
{
    for (unsigned p = gid; p < n / 2; p += stride) {
        if (v[2 * p] == v[2 * p])
            return 2 * p;
        if (v[2 * p + 1] == v[2 * p + 1])
            return 2 * p + 1;
    }
    return n - 1; /* the odd tail, visited last by thread 0 */
}

/* Merges the expansions of a warp into lane 0, then flushes it. */
template <int K, bool FAST>
__device__ void flush_warp(double (&a)[K], long long *acc)
{
    int lane = threadIdx.x & 31;
    for (int off = 16; off > 0; off >>= 1) {
#pragma unroll
        for (int k = 0; k < K; k++) {
            double y = __shfl_down_sync(FULL, a[k], off);
            if (lane < off) {
                double r = absorb<K, FAST>(a, y);
                if (r != 0)
                    digits_add(acc, r);
            }
        }
    }
    if (lane == 0)
#pragma unroll
        for (int k = 0; k < K; k++)
            if (a[k] != 0)
                digits_add(acc, a[k]);
}

/* Blocks that take part for n values: eight values a thread at least. A
 * parsed segment's rows are known only on the device, and its grid is
 * sized for the most it can hold; each block beyond these would clear and
 * flush its digits for a few values. 224,000 rows by 8 columns on the
 * H100 (ncu): 57 us with every block, 34 us with eight values a thread,
 * 44 us with sixteen. */
__device__ __forceinline__ unsigned blocks_used(unsigned n)
{
    unsigned want = (n + THREADS * 8 - 1) / (THREADS * 8);
    return want < 1 ? 1 : want < gridDim.x ? want : gridDim.x;
}

template <int K, bool FAST, bool SUMS, bool SQUARES>
__global__ void __launch_bounds__(THREADS) reduce_kernel(const reduce_args a)
{
    const int col = blockIdx.y;
    /* < 2^27: DEV_MAX_ROWS_PER_LAUNCH */
    const unsigned n = (unsigned)(a.dyn ? a.dyn[0] : a.n);
    const unsigned used = blocks_used(n);
    if (blockIdx.x >= used) { /* an empty block's part, as below */
        if (threadIdx.x == 0)
            a.part[(size_t)col * a.nblocks + blockIdx.x] =
                dev_ext{INFINITY,   -INFINITY, DEV_NO_ROW,
                        DEV_NO_ROW, INFINITY,  -INFINITY};
        return;
    }
    __shared__ long long s_sum[SACC_DIGITS], s_sq[SACC_DIGITS];
    __shared__ ull s_inf[3];
    __shared__ unsigned s_count;
    for (int i = threadIdx.x; i < SACC_DIGITS; i += THREADS) {
        s_sum[i] = 0;
        s_sq[i] = 0;
    }
    if (threadIdx.x < 3)
        s_inf[threadIdx.x] = 0;
    if (threadIdx.x == 0)
        s_count = 0;
    __syncthreads();

    lane_acc<K> t;
    for (int k = 0; k < K; k++)
        t.es[k] = 0;
    for (int k = 0; k < SQ_TERMS; k++)
        t.eq[k] = 0;
    t.mn = INFINITY;
    t.mx = -INFINITY;
    t.fmn = INFINITY;
    t.fmx = -INFINITY;
    t.mni = t.mxi = NO_IDX;
    t.count = 0;
    t.all_int = true;

    const double *v = a.col + (size_t)col * a.ld;
    const double2 *v2 = reinterpret_cast<const double2 *>(v);
    const unsigned npair = n / 2;
    const unsigned stride = used * THREADS;
    const unsigned gid = blockIdx.x * THREADS + threadIdx.x;
    unsigned p = gid;
    /* four independent 16-byte loads in flight per thread */
    for (; p + 3 * stride < npair; p += 4 * stride) {
        double2 x[4];
        spill r[8];
#pragma unroll
        for (int u = 0; u < 4; u++)
            x[u] = __ldcs(v2 + p + u * stride);
#pragma unroll
        for (int u = 0; u < 4; u++) {
            unsigned i = 2 * (p + u * stride);
            visit<K, FAST, SUMS, SQUARES>(t, x[u].x, i, r[2 * u], s_sum, s_sq,
                                          s_inf);
            visit<K, FAST, SUMS, SQUARES>(t, x[u].y, i + 1, r[2 * u + 1], s_sum,
                                          s_sq, s_inf);
        }
        flush_group<SUMS, SQUARES>(r, s_sum, s_sq);
    }
    for (; p < npair; p += stride) {
        double2 x = __ldcs(v2 + p);
        spill r[2];
        visit<K, FAST, SUMS, SQUARES>(t, x.x, 2 * p, r[0], s_sum, s_sq, s_inf);
        visit<K, FAST, SUMS, SQUARES>(t, x.y, 2 * p + 1, r[1], s_sum, s_sq,
                                      s_inf);
        flush_group<SUMS, SQUARES>(r, s_sum, s_sq);
    }
    if ((n & 1) && gid == 0) {
        spill r[1];
        visit<K, FAST, SUMS, SQUARES>(t, v[n - 1], n - 1, r[0], s_sum, s_sq,
                                      s_inf);
        flush_group<SUMS, SQUARES>(r, s_sum, s_sq);
    }
    if (t.count && (t.mni == NO_IDX || t.mxi == NO_IDX)) {
        unsigned f = first_valid(v, n, gid, stride);
        if (t.mni == NO_IDX)
            t.mni = f; /* every value was +inf */
        if (t.mxi == NO_IDX)
            t.mxi = f; /* every value was -inf */
    }
    const ull row0 = a.dyn ? a.dyn[1] : a.first_row;
    dev_ext mine{t.mn,
                 t.mx,
                 t.mni == NO_IDX ? DEV_NO_ROW : row0 + t.mni,
                 t.mxi == NO_IDX ? DEV_NO_ROW : row0 + t.mxi,
                 t.fmn,
                 t.fmx};

    if (SUMS)
        flush_warp<K, FAST>(t.es, s_sum);
    if (SQUARES)
        flush_warp<SQ_TERMS, FAST>(t.eq, s_sq);
    unsigned c = __reduce_add_sync(FULL, t.count);
    if ((threadIdx.x & 31) == 0 && c)
        atomicAdd(&s_count, c);
    int all_int = __syncthreads_and(t.all_int);
    dev_ext e = ext_block(mine); /* ends with the digits complete too */
    __syncthreads();

    dev_col *st = a.state + col;
    if (threadIdx.x == 0) {
        a.part[(size_t)col * a.nblocks + blockIdx.x] = e;
        if (s_count)
            atomicAdd(&st->count, (ull)s_count);
        if (!all_int)
            atomicAnd(&st->all_int, 0);
        if (s_inf[0])
            atomicAdd(&st->pos_inf, s_inf[0]);
        if (s_inf[1])
            atomicAdd(&st->neg_inf, s_inf[1]);
        if (s_inf[2])
            atomicAdd(&st->sq_inf, s_inf[2]);
    }
    for (int i = threadIdx.x; i < SACC_DIGITS; i += THREADS) {
        if (SUMS)
            digit_add(st->sum, i, (ull)s_sum[i]);
        if (SQUARES)
            digit_add(st->sumsq, i, (ull)s_sq[i]);
    }
}

/* The integer view's order of extrema: (value, correction), then the row;
 * an empty one (DEV_NO_ROW) comes last. */
__device__ __forceinline__ bool imin_first(double av, int ac, ull ar, double bv,
                                           int bc, ull br)
{
    return ar != DEV_NO_ROW &&
           (br == DEV_NO_ROW || av < bv ||
            (av == bv && (ac < bc || (ac == bc && ar < br))));
}

__device__ __forceinline__ bool imax_first(double av, int ac, ull ar, double bv,
                                           int bc, ull br)
{
    return ar != DEV_NO_ROW &&
           (br == DEV_NO_ROW || av > bv ||
            (av == bv && (ac > bc || (ac == bc && ar < br))));
}

__device__ __forceinline__ void iext_fold(dev_iext &e, const dev_iext &o)
{
    if (imin_first(o.mn, o.mnc, o.mnr, e.mn, e.mnc, e.mnr)) {
        e.mn = o.mn;
        e.mnc = o.mnc;
        e.mnr = o.mnr;
    }
    if (imax_first(o.mx, o.mxc, o.mxr, e.mx, e.mxc, e.mxr)) {
        e.mx = o.mx;
        e.mxc = o.mxc;
        e.mxr = o.mxr;
    }
}

__device__ __forceinline__ void iext_warp(dev_iext &e)
{
    for (int off = 16; off > 0; off >>= 1) {
        dev_iext o{__shfl_down_sync(FULL, e.mn, off),
                   __shfl_down_sync(FULL, e.mx, off),
                   __shfl_down_sync(FULL, e.mnc, off),
                   __shfl_down_sync(FULL, e.mxc, off),
                   __shfl_down_sync(FULL, e.mnr, off),
                   __shfl_down_sync(FULL, e.mxr, off)};
        iext_fold(e, o);
    }
}

/* Block-wide fold of each thread's e; the result is valid in thread 0. */
__device__ dev_iext iext_block(dev_iext e)
{
    __shared__ dev_iext s_e[WARPS];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    iext_warp(e);
    if (lane == 0)
        s_e[warp] = e;
    __syncthreads();
    if (warp == 0) {
        e = lane < WARPS ? s_e[lane]
                         : dev_iext{NAN, NAN, 0, 0, DEV_NO_ROW, DEV_NO_ROW};
        iext_warp(e);
    }
    return e;
}

/* The corrections of a column (src/stats/stats.c's add_corrections and
 * extremum): their sum, the squares' cross terms 2*d*r + r*r, the integer
 * view's extrema, CORR_NOT_INT beside an integral double clearing all_int.
 * A correction counts only beside an integral double of at most 2^64.
 * Each one read is cleared, and the finish kernel clears corr_on: the
 * buffers are zero between batches. */
template <bool SQUARES>
__global__ void __launch_bounds__(THREADS) corr_kernel(const reduce_args a)
{
    __shared__ long long s_sq[SQUARES ? SACC_DIGITS : 1];
    __shared__ ull s_sum_r;
    const int col = blockIdx.y;
    if (!a.corr_on[col])
        return; /* the whole block: no correction in this column */
    for (int i = threadIdx.x; SQUARES && i < SACC_DIGITS; i += THREADS)
        s_sq[i] = 0;
    if (threadIdx.x == 0)
        s_sum_r = 0;
    __syncthreads();
    const double *v = a.col + (size_t)col * a.ld;
    int *corr = a.corr + (size_t)col * a.corr_ld;
    const unsigned n = (unsigned)(a.dyn ? a.dyn[0] : a.n);
    const unsigned stride = gridDim.x * THREADS;
    long long sum_r = 0;
    bool not_int = false;
    double mn = INFINITY, mx = -INFINITY;
    int mnc = INT_MAX, mxc = INT_MIN;
    unsigned mni = NO_IDX, mxi = NO_IDX;
    /* indices rise within a thread: strict tests keep the first; NaN
       fails every test */
    for (unsigned i = blockIdx.x * THREADS + threadIdx.x; i < n; i += stride) {
        double x = v[i];
        int c = corr[i];
        if (c != 0)
            corr[i] = 0;
        bool in = is_int_range(x);
        not_int |= in && c == CORR_NOT_INT;
        int cc = in && c != CORR_NOT_INT ? c : 0;
        if (x < mn || (x == mn && cc < mnc)) {
            mn = x;
            mnc = cc;
            mni = i;
        }
        if (x > mx || (x == mx && cc > mxc)) {
            mx = x;
            mxc = cc;
            mxi = i;
        }
        if (cc == 0)
            continue;
        sum_r += cc;
        if (SQUARES) { /* (d + r)^2 = d^2 + (2*d*r + r*r) */
            digits_add_product(s_sq, x, 2 * (long long)cc);
            digits_add_product(s_sq, (double)cc, cc);
        }
    }
    for (int off = 16; off > 0; off >>= 1)
        sum_r += __shfl_down_sync(FULL, sum_r, off);
    if ((threadIdx.x & 31) == 0 && sum_r)
        atomicAdd(&s_sum_r, (ull)sum_r);
    int any_not_int = __syncthreads_or(not_int);
    const ull row0 = a.dyn ? a.dyn[1] : a.first_row;
    dev_iext e{mn,
               mx,
               mnc,
               mxc,
               mni == NO_IDX ? DEV_NO_ROW : row0 + mni,
               mxi == NO_IDX ? DEV_NO_ROW : row0 + mxi};
    e = iext_block(e); /* ends with the digits complete too */
    __syncthreads();
    dev_col *st = a.state + col;
    if (threadIdx.x == 0) {
        a.ipart[(size_t)col * DEV_CORR_BLOCKS + blockIdx.x] = e;
        if (s_sum_r)
            atomicAdd(reinterpret_cast<ull *>(&st->sum_r), s_sum_r);
        if (any_not_int)
            atomicAnd(&st->all_int, 0);
    }
    for (int i = threadIdx.x; SQUARES && i < SACC_DIGITS; i += THREADS)
        digit_add(st->sumsq_corr, i, (ull)s_sq[i]);
}

/* One carry pass: each digit keeps its low 32 bits plus the carry of the
 * one below, which brings every digit back within (-2^33, 2^33). */
__device__ void carry_pass(long long *d, long long *s)
{
    for (int i = threadIdx.x; i < SACC_DIGITS; i += THREADS)
        s[i] = d[i];
    __syncthreads();
    for (int i = threadIdx.x; i < SACC_DIGITS; i += THREADS) {
        long long own = i == SACC_DIGITS - 1 ? s[i] : (s[i] & 0xffffffffll);
        d[i] = own + (i ? s[i - 1] >> 32 : 0);
    }
    __syncthreads();
}

/* Per column: folds the block extrema into the state (the integer view's
 * from the corrections' pass where the column had corrections, else the
 * doubles' with correction 0), carries digits, clears corr_on. */
__global__ void __launch_bounds__(THREADS)
    reduce_finish_kernel(dev_col *state, const dev_ext *part, int nblocks,
                         const dev_iext *ipart, int cblocks, int *corr_on,
                         int sums, int squares)
{
    __shared__ long long s_d[SACC_DIGITS];
    dev_col *st = state + blockIdx.x;
    const bool on = corr_on && corr_on[blockIdx.x];
    const dev_ext *pp = part + (size_t)blockIdx.x * nblocks;
    dev_ext e = ext_none();
    for (int j = threadIdx.x; j < nblocks; j += THREADS)
        ext_fold(e, pp[j]);
    e = ext_block(e);
    dev_iext ie{NAN, NAN, 0, 0, DEV_NO_ROW, DEV_NO_ROW};
    if (on) { /* the same for every thread of the block */
        const dev_iext *ip = ipart + (size_t)blockIdx.x * DEV_CORR_BLOCKS;
        for (int j = threadIdx.x; j < cblocks; j += THREADS)
            iext_fold(ie, ip[j]);
        ie = iext_block(ie);
    }
    if (threadIdx.x == 0) {
        if (!on)
            ie = dev_iext{e.mn, e.mx, 0, 0, e.mnr, e.mxr};
        dev_iext gi{st->min,      st->max,         st->min_corr,
                    st->max_corr, st->min_row_int, st->max_row_int};
        iext_fold(gi, ie);
        st->min_corr = gi.mnc;
        st->min_row_int = gi.mnr;
        st->max_corr = gi.mxc;
        st->max_row_int = gi.mxr;
        dev_ext g{st->min,     st->max,  st->min_row,
                  st->max_row, st->fmin, st->fmax};
        ext_fold(g, e);
        st->min = g.mn;
        st->min_row = g.mnr;
        st->max = g.mx;
        st->max_row = g.mxr;
        st->fmin = g.fmn;
        st->fmax = g.fmx;
    }
    if (sums)
        carry_pass(st->sum, s_d);
    if (squares)
        carry_pass(st->sumsq, s_d);
    if (squares && on)
        carry_pass(st->sumsq_corr, s_d);
    /* every thread read corr_on before ext_block's barrier */
    if (on && threadIdx.x == 0)
        corr_on[blockIdx.x] = 0;
}

/* Resident blocks per multiprocessor of one variant, times the count of
 * multiprocessors: the grid that fills the device once. */
template <int K, bool FAST, bool SUMS, bool SQUARES> int full_grid()
{
    static int blocks;
    if (!blocks) {
        int dev = 0, nsm = 0, per = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev) !=
                cudaSuccess ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &per, reduce_kernel<K, FAST, SUMS, SQUARES>, THREADS, 0) !=
                cudaSuccess) {
            (void)cudaGetLastError();
            return 1;
        }
        blocks = (nsm > 0 ? nsm : 1) * (per > 0 ? per : 1);
    }
    return blocks;
}

template <int K, bool FAST, bool SUMS, bool SQUARES>
cudaError_t launch_variant(reduce_args *a, int ncols, cudaStream_t s)
{
    int full = full_grid<K, FAST, SUMS, SQUARES>();
    if (a->nblocks > full)
        a->nblocks = full;
    dim3 grid((unsigned)a->nblocks, (unsigned)ncols);
    reduce_kernel<K, FAST, SUMS, SQUARES><<<grid, THREADS, 0, s>>>(*a);
    return cudaGetLastError();
}

template <int K, bool FAST>
cudaError_t launch_terms(reduce_args *a, int ncols, cudaStream_t s)
{
    if (a->squares)
        return launch_variant<K, FAST, true, true>(a, ncols, s);
    if (a->sums)
        return launch_variant<K, FAST, true, false>(a, ncols, s);
    return launch_variant<K, FAST, false, false>(a, ncols, s);
}

} // namespace

int reduce_grid(int nsm, size_t n)
{
    size_t per_block = (size_t)THREADS * 8; /* four pairs per thread */
    size_t want = (n + per_block - 1) / per_block;
    size_t cap = (size_t)nsm * (2048 / THREADS); /* no variant fits more */
    if (want > cap)
        want = cap;
    return want ? (int)want : 1;
}

void dev_col_empty(dev_col *c)
{
    for (int i = 0; i < SACC_DIGITS; i++)
        c->sum[i] = c->sumsq[i] = c->sumsq_corr[i] = 0;
    c->count = c->pos_inf = c->neg_inf = c->sq_inf = 0;
    c->min = c->max = NAN;
    c->fmin = INFINITY;
    c->fmax = -INFINITY;
    c->min_row = c->max_row = DEV_NO_ROW;
    c->min_row_int = c->max_row_int = DEV_NO_ROW;
    c->sum_r = 0;
    c->min_corr = c->max_corr = 0;
    c->all_int = 1;
    c->pad = 0;
}

cudaError_t reduce_launch_terms(const reduce_args *args, int ncols,
                                cudaStream_t s, int terms)
{
    reduce_args a = *args; /* the launch may use fewer blocks */
    cudaError_t err;
    switch (terms) {
    case 2:
        err = launch_terms<2, false>(&a, ncols, s);
        break;
    case 3:
        err = launch_terms<3, false>(&a, ncols, s);
        break;
    case 4:
        err = launch_terms<4, false>(&a, ncols, s);
        break;
    case -2:
        err = launch_terms<2, true>(&a, ncols, s);
        break;
    default:
        err = launch_terms<3, true>(&a, ncols, s);
        break;
    }
    if (err != cudaSuccess)
        return err;
    int cblocks = a.nblocks < DEV_CORR_BLOCKS ? a.nblocks : DEV_CORR_BLOCKS;
    if (a.corr) {
        dim3 grid((unsigned)cblocks, (unsigned)ncols);
        if (a.squares)
            corr_kernel<true><<<grid, THREADS, 0, s>>>(a);
        else
            corr_kernel<false><<<grid, THREADS, 0, s>>>(a);
        if ((err = cudaGetLastError()) != cudaSuccess)
            return err;
    }
    reduce_finish_kernel<<<ncols, THREADS, 0, s>>>(
        a.state, a.part, a.nblocks, a.ipart, cblocks,
        a.corr ? a.corr_on : nullptr, a.sums, a.squares);
    return cudaGetLastError();
}

cudaError_t reduce_launch(const reduce_args *a, int ncols, cudaStream_t s)
{
    return reduce_launch_terms(a, ncols, s, a->terms ? a->terms : EXP_TERMS);
}
