#include "qmulti.h"

#include <stdlib.h>

int qmulti_cmp(const qnum *a, const qnum *b)
{
    uint64_t ka = qsel_key(a->d), kb = qsel_key(b->d);
    if (ka != kb)
        return ka < kb ? -1 : 1;
    return (a->r > b->r) - (a->r < b->r);
}

static int cmp_void(const void *a, const void *b)
{
    return qmulti_cmp(a, b);
}

static void swap(qnum *a, qnum *b)
{
    qnum t = *a;
    *a = *b;
    *b = t;
}

static qnum median3(const qnum *a, const qnum *b, const qnum *c)
{
    if (qmulti_cmp(a, b) < 0)
        return qmulti_cmp(b, c) < 0 ? *b : qmulti_cmp(a, c) < 0 ? *c : *a;
    return qmulti_cmp(a, c) < 0 ? *a : qmulti_cmp(b, c) < 0 ? *c : *b;
}

/* Dijkstra's three ways: [0, *lt) below p, [*lt, *gt) equal, [*gt, n)
 * above. */
static void partition(qnum *x, size_t n, qnum p, size_t *lt, size_t *gt)
{
    size_t l = 0, i = 0, g = n;
    while (i < g) {
        int c = qmulti_cmp(&x[i], &p);
        if (c < 0)
            swap(&x[l++], &x[i++]);
        else if (c > 0)
            swap(&x[i], &x[--g]);
        else
            i++;
    }
    *lt = l;
    *gt = g;
}

#define SMALL 16

/* x holds the places [off, off + n); the ranks r[0, nr) are among them. */
static void select_at(qnum *x, size_t n, const size_t *r, size_t nr, size_t off,
                      int depth)
{
    while (nr > 0) {
        if (n <= SMALL || depth-- <= 0) {
            qsort(x, n, sizeof *x, cmp_void);
            return;
        }
        qnum p = median3(&x[0], &x[n / 2], &x[n - 1]);
        size_t lt, gt, a = 0;
        partition(x, n, p, &lt, &gt);
        while (a < nr && r[a] - off < lt) /* ranks in the part below */
            a++;
        size_t b = a;
        while (b < nr && r[b] - off < gt) /* among the equal: in place */
            b++;
        select_at(x, lt, r, a, off, depth);
        x += gt; /* the part above, in this loop */
        n -= gt;
        off += gt;
        r += b;
        nr -= b;
    }
}

void qmulti_select(qnum *x, size_t n, const size_t *r, size_t nr)
{
    int depth = 0;
    for (size_t m = n; m > 1; m /= 2)
        depth += 2;
    select_at(x, n, r, nr, 0, depth);
}
