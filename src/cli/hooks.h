/* The environment's hooks for tests and benchmarks (ARCHITECTURE.md). */
#ifndef COLSTAT_SRC_CLI_HOOKS_H
#define COLSTAT_SRC_CLI_HOOKS_H

#include "src/engine/engine.h"

/* Reads them, once, before a run. */
void read_hooks(engine_hooks *h);

#endif
