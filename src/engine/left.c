/* The columns an answer leaves out, named in one note with why: every
 * column of the input is either in the answer or named (doc/CONTRACT.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/engine/engine.h"
#include "src/engine/hint.h"

/* Names listed for one reason before "and N more". */
enum { NAMES_SHOWN = 8 };

int engine_leave_out(engine_result *r, const char *label, int index,
                     const col_stats *st, const char *invalid, cs_error *e)
{
    char why[256];
    engine_left *grown =
        realloc(r->left, (size_t)(r->nleft + 1) * sizeof *r->left);
    if (!grown)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    r->left = grown;
    hint_dropped(st, invalid, why, sizeof why);
    engine_left *l = &r->left[r->nleft++];
    l->index = index;
    l->label = strdup(label);
    l->why = strdup(why);
    if (!l->label || !l->why)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    return CS_OK;
}

static int by_index(const void *a, const void *b)
{
    const engine_left *x = *(const engine_left *const *)a,
                      *y = *(const engine_left *const *)b;
    return (x->index > y->index) - (x->index < y->index);
}

/* The names of every column left out for the reason of order[i] (the
 * first of them), then the reason; each column once (done). */
static void put_reason(FILE *f, const engine_left *const *order, int n, int i,
                       unsigned char *done)
{
    const char *why = order[i]->why;
    int shown = 0, more = 0;
    for (int j = i; j < n; j++) {
        if (done[j] || strcmp(order[j]->why, why))
            continue;
        done[j] = 1;
        if (shown < NAMES_SHOWN)
            fprintf(f, "%s%s", shown++ ? ", " : "", order[j]->label);
        else
            more++;
    }
    if (more)
        fprintf(f, " and %d more", more);
    fprintf(f, " (%s)", why);
}

void engine_say_left(const engine_result *r, const engine_sink *sink)
{
    char *text = NULL;
    size_t len = 0;
    const engine_left **order = malloc((size_t)(r->nleft + 1) * sizeof *order);
    unsigned char *done = calloc((size_t)(r->nleft + 1), 1);
    FILE *f = r->nleft && order && done ? open_memstream(&text, &len) : NULL;
    if (f) {
        for (int i = 0; i < r->nleft; i++)
            order[i] = &r->left[i];
        qsort(order, (size_t)r->nleft, sizeof *order, by_index);
        fputs("note: left out: ", f);
        for (int i = 0, first = 1; i < r->nleft; i++)
            if (!done[i]) {
                fputs(first ? "" : ", ", f);
                put_reason(f, order, r->nleft, i, done);
                first = 0;
            }
        if (fclose(f) == 0)
            sink->say(sink->ctx, ENGINE_WARNING, "", 0, text);
    }
    free(text);
    free(order);
    free(done);
}
