#include "src/engine/worker.h"

#include <stdlib.h>

#include "io/base/row_keys.h"
#include "src/engine/backend.h"
#include "src/engine/jobs.h"

/* The next row batch to fill: a backend that reduces at once reuses one; one
 * that keeps a job's row batches until job_done gets a fresh one each time. */
static row_batch *next_batch(job *j)
{
    const backend *be = j->params->be;
    if (!be->keeps_batches || j->nbatches_used < j->nbatches) {
        row_batch *c = &j->batches[be->keeps_batches ? j->nbatches_used : 0];
        j->nbatches_used++;
        row_batch_clear(c);
        return c;
    }
    if (j->nbatches == j->nbatches_cap) {
        int cap = j->nbatches_cap ? 2 * j->nbatches_cap : 2;
        row_batch *p = realloc(j->batches, (size_t)cap * sizeof *p);
        if (!p)
            return NULL;
        j->batches = p;
        j->nbatches_cap = cap;
    }
    row_batch *c = &j->batches[j->nbatches];
    if (row_batch_init(c, j->params->ncols, be->batch_rows, NULL))
        return NULL;
    j->nbatches++;
    j->nbatches_used++;
    return c;
}

static int batch_full(job *j, const row_batch *c)
{
    if (!j->repeats)
        j->repeat_line = c->repeat_line;
    j->repeats += c->repeats;
    for (int k = 0; k < c->ncols; k++)
        if (!j->first_invalid[k] && c->first_invalid[k])
            j->first_invalid[k] = j->rows + c->first_invalid[k];
    backend *be = j->params->be;
    double t0 = account_now();
    int rc = be->ops->batch_done(be, j, c, &j->err);
    j->t_reduce += account_now() - t0;
    j->rows += c->nrows;
    return rc;
}

/* --group-by: the row batch gathers the input's key fields too. */
static int bind_keys(const input *in, row_batch *c)
{
    if (!in->kmap)
        return 0;
    if (!c->keys && !(c->keys = row_keys_new(in->nkeys, c->cap)))
        return -1;
    c->keys->kmap = in->kmap;
    c->keys->nkmap = in->nkmap;
    return 0;
}

static void run_csv(job *j)
{
    const input *in = j->in;
    size_t pos = 0;
    uint64_t line = j->first_line;
    while (pos < j->len) {
        row_batch *c = next_batch(j);
        if (!c || bind_keys(in, c)) {
            cs_fail(&j->err, CS_ENOMEM, "", 0, "out of memory for row batches");
            return;
        }
        size_t used = 0;
        uint64_t lines = 0;
        double t0 = account_now();
        int rc = csv_parse_block(
            &in->dialect, j->buf + j->skip + pos, j->len - pos, line, in->map,
            in->nmap, j->params->strict, in->name, c, &used, &lines, &j->err);
        j->t_parse += account_now() - t0;
        if (rc != CS_OK || batch_full(j, c) != CS_OK)
            return;
        if (used == 0) {
            cs_fail(&j->err, CS_EDATA, in->name, line,
                    "internal error: the CSV parser made no progress");
            return;
        }
        pos += used;
        line += lines;
    }
}

static void run_binary(job *j)
{
    const binary_spec *spec = j->params->spec;
    if (j->pread) {
        double t0 = account_now();
        if (source_pread(j->in->src, j->buf, j->len, j->off, &j->err) < 0)
            return;
        j->t_read += account_now() - t0;
    }
    size_t rs = spec->record_size;
    size_t nrec = j->len / rs, done = 0;
    while (done < nrec) {
        row_batch *c = next_batch(j);
        if (!c || bind_keys(j->in, c)) {
            cs_fail(&j->err, CS_ENOMEM, "", 0, "out of memory for row batches");
            return;
        }
        size_t k = nrec - done < c->cap ? nrec - done : c->cap;
        double t0 = account_now();
        binary_decode(spec, (const unsigned char *)j->buf + done * rs, k,
                      j->in->map, j->in->nmap, c);
        j->t_parse += account_now() - t0;
        if (batch_full(j, c) != CS_OK)
            return;
        done += k;
    }
}

void worker_run(wq_item *it)
{
    job *j = (job *)it;
    if (j->params->spec)
        run_binary(j);
    else
        run_csv(j);
    backend *be = j->params->be;
    double t0 = account_now();
    if (be->ops->job_done)
        be->ops->job_done(be, j, &j->err);
    j->t_handoff = account_now() - t0;
}
