/* Why no column of an input holds numbers, as a hint for the error that
 * says so: a binary file read as text, one field per line (another
 * delimiter), numbers with thousands separators or units, no data rows. */
#ifndef COLSTAT_SRC_ENGINE_HINT_H
#define COLSTAT_SRC_ENGINE_HINT_H

#include <stddef.h>

#include "src/engine/input.h"

/* Writes the message's text ("no column holds numbers: ...") to buf. */
void hint_no_numbers(const input *in, char *buf, size_t cap);

#endif
