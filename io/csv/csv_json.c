/* JSON read as CSV gives misleading errors (an unterminated quoted field,
 * one field a line): the head is recognised and refused by name, as
 * io/codec/magic.c refuses columnar files. Only what no CSV plausibly begins
 * with counts: '{' then '"' or '}', or '[' then '{', '[', '"' or ']'. */
#include "io/csv/csv_reader.h"

#include <string.h>

static size_t skip_blank(const char *s, size_t n, size_t i)
{
    while (i < n && strchr(" \t\r\n", s[i]) && s[i])
        i++;
    return i;
}

/* The next line after position i begins an object too. */
static int next_line_object(const char *s, size_t n, size_t i)
{
    const char *nl = memchr(s + i, '\n', n - i);
    if (!nl)
        return 0;
    size_t j = skip_blank(s, n, (size_t)(nl - s) + 1);
    return j < n && s[j] == '{';
}

int csv_json_kind(const char *s, size_t n)
{
    size_t i = n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    i = skip_blank(s, n, i);
    if (i >= n || (s[i] != '{' && s[i] != '['))
        return CSV_NOT_JSON;
    size_t j = skip_blank(s, n, i + 1);
    if (j >= n)
        return CSV_NOT_JSON;
    if (s[i] == '[')
        return strchr("{[\"]", s[j]) && s[j] ? CSV_JSON : CSV_NOT_JSON;
    if (s[j] != '"' && s[j] != '}')
        return CSV_NOT_JSON;
    return next_line_object(s, n, i) ? CSV_JSON_LINES : CSV_JSON;
}
