/* Diagnostics travel up as values. The layer that sees a problem fills a
 * cs_error and returns its status; main prints it once, as
 *   colstat: FILE:LINE: message     (": LINE" omitted when line is 0,
 *                                    "FILE: " omitted when file is empty)
 * Nothing below main prints or exits. */
#ifndef COLSTAT_IO_BASE_ERROR_H
#define COLSTAT_IO_BASE_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

enum cs_status {
    CS_OK = 0,
    CS_EDATA = 1,  /* bad data or unreadable input: exit status 1 */
    CS_EUSAGE = 2, /* bad command line: exit status 2 */
    CS_ENOMEM = 3, /* out of memory: exit status 1, as a run that could not
                      finish; told apart so that no one reads it as bad data */
};

typedef struct cs_error {
    int status;     /* 0 until set */
    char file[512]; /* input as the user named it; "(standard input)" */
    unsigned long long line; /* 1-based physical line, 0 when none applies */
    char msg[512];
} cs_error;

/* Fills e (first error wins: a set error is kept) and returns its status. */
int cs_fail(cs_error *e, int status, const char *file, unsigned long long line,
            const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* The process's exit status for an error status (CS_ENOMEM exits 1). */
int cs_exit_status(int status);

#ifdef __cplusplus
}
#endif

#endif
