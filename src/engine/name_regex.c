#include "src/engine/name_regex.h"

#include <stdlib.h>
#include <string.h>

#ifdef COLSTAT_HAVE_PCRE2
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#else
#include <regex.h>
#endif

/* Bounds of one name's match (PCRE2's own defaults are ten million steps
 * and 20 MB of heap: a name list of 100000 names would take minutes). */
#define MATCH_STEPS 100000
#define MATCH_DEPTH 10000
#define MATCH_HEAP_KIB 8192

struct name_regex {
    const char *item; /* "/REGEX/" as given, for messages */
    int len;
    const char *file;
#ifdef COLSTAT_HAVE_PCRE2
    pcre2_code *code;
    pcre2_match_context *mctx;
    pcre2_match_data *md;
#else
    regex_t re;
    int compiled;
#endif
};

static int too_long(const char *item, cs_error *e)
{
    return cs_fail(e, CS_EUSAGE, "", 0,
                   "--columns: regular expression %.40s... is longer than "
                   "%d bytes",
                   item, NAME_REGEX_MAX_PATTERN);
}

static int bad(const name_regex *r, const char *why, cs_error *e)
{
    return cs_fail(e, CS_EUSAGE, "", 0,
                   "--columns: bad regular expression %.*s: %s", r->len,
                   r->item, why);
}

#ifdef COLSTAT_HAVE_PCRE2

static int compile(name_regex *r, const char *pat, size_t n, cs_error *e)
{
    int code;
    PCRE2_SIZE at;
    r->code = pcre2_compile((PCRE2_SPTR)pat, n, 0, &code, &at, NULL);
    if (!r->code) {
        char why[160];
        pcre2_get_error_message(code, (PCRE2_UCHAR *)why, sizeof why);
        return bad(r, why, e);
    }
    r->mctx = pcre2_match_context_create(NULL);
    r->md = pcre2_match_data_create_from_pattern(r->code, NULL);
    if (!r->mctx || !r->md)
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    pcre2_set_match_limit(r->mctx, MATCH_STEPS);
    pcre2_set_depth_limit(r->mctx, MATCH_DEPTH);
    pcre2_set_heap_limit(r->mctx, MATCH_HEAP_KIB);
    return CS_OK;
}

static int limit_error(int rc)
{
    return rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
           rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_NOMEMORY;
}

static int too_costly(const name_regex *r, const char *name, cs_error *e)
{
    cs_fail(e, CS_EUSAGE, r->file, 0,
            "--columns: matching %.*s against column '%.40s%s' takes more "
            "than colstat allows (a match limit): simplify the expression",
            r->len, r->item, name, strlen(name) > 40 ? "..." : "");
    return -1;
}

int name_regex_match(name_regex *r, const char *name, cs_error *e)
{
    int rc = pcre2_match(r->code, (PCRE2_SPTR)name, strlen(name), 0, 0, r->md,
                         r->mctx);
    if (rc >= 0)
        return 1;
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    if (limit_error(rc))
        return too_costly(r, name, e);
    char why[160];
    pcre2_get_error_message(rc, (PCRE2_UCHAR *)why, sizeof why);
    cs_fail(e, CS_EUSAGE, r->file, 0, "--columns: %.*s: %s", r->len, r->item,
            why);
    return -1;
}

static void release(name_regex *r)
{
    pcre2_match_data_free(r->md);
    pcre2_match_context_free(r->mctx);
    pcre2_code_free(r->code);
}

#else

/* glibc's matcher has no bound on time or memory: what it may see is
 * kept to expressions without a repetition of something repeated
 * ("(a+)+", "(a{100}){100}"), without back-references, and with counted
 * repetitions up to 255. */
static const char *too_complex(const char *p, size_t n)
{
    int has_rep[NAME_REGEX_MAX_PATTERN + 1] = {0}, depth = 0, last_rep = 0;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c == '\\' && i + 1 < n) {
            if (p[++i] >= '1' && p[i] <= '9')
                return "back-references need PCRE2";
            last_rep = 0;
        } else if (c == '(') {
            has_rep[++depth] = 0;
            last_rep = 0;
        } else if (c == ')' && depth > 0) {
            last_rep = has_rep[depth--];
            has_rep[depth] |= last_rep;
        } else if (c == '*' || c == '+' || c == '?' || c == '{') {
            if (last_rep)
                return "a repetition of a repetition needs PCRE2";
            if (c == '{' && strtol(p + i + 1, NULL, 10) > 255)
                return "a count past 255 needs PCRE2";
            has_rep[depth] = 1;
        } else {
            last_rep = 0;
        }
    }
    return NULL;
}

static int compile(name_regex *r, const char *pat, size_t n, cs_error *e)
{
    const char *why = too_complex(pat, n);
    if (why)
        return bad(r, why, e);
    int rc = regcomp(&r->re, pat, REG_EXTENDED | REG_NOSUB);
    if (rc) {
        char text[128];
        regerror(rc, &r->re, text, sizeof text);
        return bad(r, text, e);
    }
    r->compiled = 1;
    return CS_OK;
}

int name_regex_match(name_regex *r, const char *name, cs_error *e)
{
    if (strlen(name) > NAME_REGEX_MAX_NAME) {
        cs_fail(e, CS_EUSAGE, r->file, 0,
                "--columns: a column name is longer than %d bytes, the "
                "longest %.*s is matched against without PCRE2 ('%.40s...')",
                NAME_REGEX_MAX_NAME, r->len, r->item, name);
        return -1;
    }
    return regexec(&r->re, name, 0, NULL, 0) == 0;
}

static void release(name_regex *r)
{
    if (r->compiled)
        regfree(&r->re);
}

#endif

int name_regex_new(const char *item, size_t n, const char *file,
                   name_regex **out, cs_error *e)
{
    *out = NULL;
    if (n - 2 > NAME_REGEX_MAX_PATTERN)
        return too_long(item, e);
    name_regex *r = calloc(1, sizeof *r);
    char *pat = malloc(n - 1);
    if (!r || !pat) {
        free(r);
        free(pat);
        return cs_fail(e, CS_ENOMEM, "", 0, "out of memory");
    }
    r->item = item;
    r->len = (int)n;
    r->file = file;
    memcpy(pat, item + 1, n - 2);
    pat[n - 2] = '\0';
    int rc = compile(r, pat, n - 2, e);
    free(pat);
    if (rc != CS_OK) {
        name_regex_free(r);
        return rc;
    }
    *out = r;
    return CS_OK;
}

void name_regex_free(name_regex *r)
{
    if (!r)
        return;
    release(r);
    free(r);
}
