/* What a run writes on stdout: the report, or --emit-state's state. */
#ifndef COLSTAT_SRC_CLI_OUTPUT_H
#define COLSTAT_SRC_CLI_OUTPUT_H

#include "io/base/error.h"
#include "src/dist/state.h"
#include "src/engine/engine.h"
#include "src/options.h"

/* The report of res as o asks. */
int write_result(const options *o, const engine_result *res, cs_error *e);

/* --emit-state: the exact partial state instead of the report (of part
 * K/N with --part). */
int write_state(const options *o, const engine_result *res, cs_error *e);

/* A state that says info of itself (a merged one: --merge --emit-state). */
int write_state_as(const options *o, const state_info *info,
                   const engine_result *res, cs_error *e);

#endif
