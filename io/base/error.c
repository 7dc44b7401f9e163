#include "io/base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int cs_fail(cs_error *e, int status, const char *file, unsigned long long line,
            const char *fmt, ...)
{
    /* The first error is the cause; later ones are usually its echoes. */
    if (e->status != CS_OK)
        return e->status;
    e->status = status;
    e->line = line;
    snprintf(e->file, sizeof e->file, "%s", file ? file : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return status;
}

int cs_exit_status(int status)
{
    return status == CS_ENOMEM ? CS_EDATA : status;
}
