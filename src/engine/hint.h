/* Why no column of an input holds numbers, as a hint for the error that
 * says so: a binary file read as text, null spellings (--null), one field
 * per line (another delimiter), numbers with thousands separators or
 * units, no data rows. And why the default leaves a column out, for the
 * note that names every such column. */
#ifndef COLSTAT_SRC_ENGINE_HINT_H
#define COLSTAT_SRC_ENGINE_HINT_H

#include <stddef.h>

#include "src/engine/input.h"

/* Writes the message's text ("no column holds numbers: ...") to buf. */
void hint_no_numbers(const input *in, char *buf, size_t cap);

/* Why the default leaves out a column the sample showed text in (w):
 * "its fields are mostly 'NA': try --null NA", "numbers with a unit '%'",
 * "numbers with grouped digits ('1,234'): see --thousands", or "text". */
void hint_left_out(const csv_why *w, char *buf, size_t cap);

/* Why a tentative column is not reported (it held no more numbers than
 * other texts, st): "empty" without a field, else as hint_left_out for
 * its first invalid field (invalid, NULL when unknown). */
void hint_dropped(const col_stats *st, const char *invalid, char *buf,
                  size_t cap);

/* "--null NA", or "--null '\N'" where the shell needs the quotes. */
void hint_null_option(const char *spelling, char *buf, size_t cap);

#endif
