/* Fixed-edge histograms; the bin formula is hist_bin.h's, shared with the
 * GPU so both backends bin every value identically. */
#include "hist_bin.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>

int hist_init(hist *h, int nbins, double lo, double hi)
{
    h->nbins = nbins;
    h->lo = lo;
    h->hi = hi;
    h->underflow = h->overflow = 0;
    h->bins = calloc((size_t)(nbins > 0 ? nbins : 1), sizeof *h->bins);
    return h->bins ? 0 : -1;
}

void hist_add_values(hist *h, const double *v, size_t n)
{
    hist_scale sc = hist_scale_make(h->lo, h->hi, h->nbins);
    uint64_t under = 0, over = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i]))
            continue;
        int b = hist_bin(&sc, v[i]);
        if (b < 0)
            under++;
        else if (b >= sc.nbins)
            over++;
        else
            h->bins[b]++;
    }
    h->underflow += under;
    h->overflow += over;
}

void hist_merge(hist *dst, const hist *src)
{
    for (int i = 0; i < dst->nbins; i++)
        dst->bins[i] += src->bins[i];
    dst->underflow += src->underflow;
    dst->overflow += src->overflow;
}

void hist_free(hist *h)
{
    free(h->bins);
    h->bins = NULL;
}
