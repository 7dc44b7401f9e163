/* The one-line spelling of column names shared by --list-columns and -c
 * (name_escape.h). */
#include "name_escape.h"

#include <string.h>

/* Whether a backslash before c would be read as the start of an escape. */
static int escapable(char c)
{
    return c == 'n' || c == 'r' || c == '\\' || c == '\n' || c == '\r';
}

void name_escape_write(FILE *f, const char *name)
{
    for (const char *p = name; *p; p++) {
        if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\r')
            fputs("\\r", f);
        else if (*p == '\\' && escapable(p[1]))
            fputs("\\\\", f);
        else
            putc(*p, f);
    }
}

static int blank(char c)
{
    return c == ' ' || c == '\t';
}

/* The end of the pattern item at p (after its blanks), as -c's grammar
 * ends it: the first '/' past the opening one followed by blanks and a
 * comma or the end of the list; NULL when p starts no pattern. */
static const char *pattern_end(const char *p)
{
    const char *q = p + (*p == '!');
    if (*q != '/')
        return NULL;
    for (const char *r = strchr(q + 1, '/'); r; r = strchr(r + 1, '/')) {
        const char *t = r + 1;
        while (blank(*t))
            t++;
        if (*t == ',' || *t == '\0')
            return t;
    }
    return NULL;
}

/* Copies the name item at in up to its comma, unescaped; returns where
 * it ends in in. */
static const char *unescape_item(const char *in, char **out)
{
    char *o = *out;
    for (; *in && *in != ','; in++) {
        if (*in == '\\' && (in[1] == 'n' || in[1] == 'r' || in[1] == '\\')) {
            in++;
            *o++ = *in == 'n' ? '\n' : *in == 'r' ? '\r' : '\\';
        } else {
            *o++ = *in;
        }
    }
    *out = o;
    return in;
}

void name_unescape_list(const char *in, char *out)
{
    while (*in) {
        const char *p = in;
        while (blank(*p))
            p++;
        const char *end = pattern_end(p);
        if (end) {
            memcpy(out, in, (size_t)(end - in));
            out += end - in;
            in = end;
        } else {
            in = unescape_item(in, &out);
        }
        if (*in == ',')
            *out++ = *in++;
    }
    *out = '\0';
}
