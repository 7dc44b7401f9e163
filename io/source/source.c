#include "io/source/source.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/codec/codec.h"
#include "io/codec/magic.h"

/* Input is read in large blocks: few syscalls, and a decoder rarely stops
 * for input. */
#define IN_CAP ((size_t)1 << 20)

struct source {
    /* The descriptor and the bytes read from it: the sniffed head of a
     * plain file, or compressed input not yet decoded. The descriptor
     * stays here, with the regular-file flag and size, so a later reader
     * can split a plain regular file into pread ranges. */
    codec_in in;
    int own_fd;     /* 0 for standard input, which is not ours to close */
    uint64_t start; /* the descriptor's offset at open (standard input
                       need not be at 0) */
    char *name;
    const codec_ops *codec; /* NULL: plain */
    int raw_binary;         /* source_config's */
    void *codec_state;
    uint64_t delivered; /* plain: bytes handed to the caller */
    uint64_t end;       /* plain, windowed: the data ends here (0: none) */
    /* Compressed: the first decoded bytes, checked for a second layer of
     * compression or an archive, then handed out first. */
    unsigned char *head;
    size_t head_pos, head_len;
    int head_checked;
};

static const char stdin_name[] = "(standard input)";

static ssize_t read_retry(int fd, void *buf, size_t n)
{
    if (n > (size_t)SSIZE_MAX)
        n = (size_t)SSIZE_MAX;
    for (;;) {
        ssize_t r = read(fd, buf, n);
        if (r >= 0 || errno != EINTR)
            return r;
    }
}

static int fail_errno(const source *s, cs_error *e, const char *what, int err)
{
    return cs_fail(e, CS_EDATA, source_name(s), 0, "%s: %s", what,
                   strerror(err));
}

static int size_changed(const source *s, const char *how, uint64_t now,
                        const char *what, cs_error *e)
{
    return cs_fail(e, CS_EDATA, source_name(s), 0,
                   "file %s while being read (%llu bytes at open, %llu %s)",
                   how, (unsigned long long)s->in.size, (unsigned long long)now,
                   what);
}

/* Bytes read so far, counted from the start of the file. */
static uint64_t read_end(const source *s)
{
    return s->start + s->in.total;
}

/* A regular file must keep the size it had at open while it is read: a
 * file cut or appended to meanwhile would give a silently wrong answer.
 * Checked after each read (grown past its size) and at its end (the read
 * count, and the size once more). Files of size 0 are let be: /proc and
 * other pseudo-files say 0 and have content. */
static int check_size(const source *s, cs_error *e)
{
    if (!s->in.regular || s->in.size == 0)
        return CS_OK;
    if (read_end(s) > s->in.size)
        return size_changed(s, "grew", read_end(s), "read", e);
    if (!s->in.eof)
        return CS_OK;
    if (read_end(s) < s->in.size)
        return size_changed(s, "shrank", read_end(s), "read", e);
    struct stat st;
    if (fstat(s->in.fd, &st) != 0)
        return fail_errno(s, e, "cannot stat", errno);
    if ((uint64_t)st.st_size != s->in.size)
        return size_changed(
            s, (uint64_t)st.st_size < s->in.size ? "shrank" : "grew",
            (uint64_t)st.st_size, "now", e);
    return CS_OK;
}

/* Counts r bytes just read (0: the end). Returns CS_OK or CS_EDATA. */
static int account(source *s, ssize_t r, cs_error *e)
{
    if (r < 0)
        return fail_errno(s, e, "cannot read", errno);
    if (r == 0)
        s->in.eof = 1;
    s->in.total += (uint64_t)r;
    return check_size(s, e);
}

/* codec_in's refill: keeps the unconsumed bytes, reads once after them. */
static int refill(codec_in *in, cs_error *e)
{
    source *s = (source *)((char *)in - offsetof(source, in));
    if (in->eof)
        return 0;
    if (in->pos > 0) {
        memmove(in->buf, in->buf + in->pos, in->len - in->pos);
        in->len -= in->pos;
        in->pos = 0;
    }
    ssize_t r = read_retry(in->fd, in->buf + in->len, in->cap - in->len);
    if (account(s, r, e) != CS_OK)
        return -1;
    in->len += (size_t)r;
    return r > 0;
}

static int open_fd(source *s, const char *path, cs_error *e)
{
    if (strcmp(path, "-") == 0) {
        s->in.fd = STDIN_FILENO;
        return CS_OK;
    }
    do
        s->in.fd = open(path, O_RDONLY | O_CLOEXEC);
    while (s->in.fd < 0 && errno == EINTR);
    if (s->in.fd < 0)
        return fail_errno(s, e, "cannot open", errno);
    s->own_fd = 1;
    return CS_OK;
}

static int probe_fd(source *s, cs_error *e)
{
    struct stat st;
    if (fstat(s->in.fd, &st) != 0)
        return fail_errno(s, e, "cannot stat", errno);
    /* Said here rather than left to read(2): not every system refuses to
     * read a directory. */
    if (S_ISDIR(st.st_mode))
        return fail_errno(s, e, "cannot read", EISDIR);
    if (S_ISREG(st.st_mode)) {
        s->in.regular = 1;
        s->in.size = (uint64_t)st.st_size;
        off_t at = lseek(s->in.fd, 0, SEEK_CUR);
        s->start = at > 0 ? (uint64_t)at : 0;
#ifdef POSIX_FADV_SEQUENTIAL
        (void)posix_fadvise(s->in.fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    }
#ifdef F_SETPIPE_SZ
    /* A pipe of 64 KiB (Linux's default) fills while the reader parses a
     * block, and the writer (zcat, a query) stops until it drains: 1 MiB,
     * the unprivileged limit, keeps it writing. Refused: left as it is. */
    if (S_ISFIFO(st.st_mode))
        (void)fcntl(s->in.fd, F_SETPIPE_SZ, (int)IN_CAP);
#endif
    return CS_OK;
}

/* The format is known by its magic bytes (io/codec/magic.c), never by the name,
 * so pipes and misnamed files work. A pipe may deliver a byte at a time,
 * hence the loop. */
static int sniff(source *s, cs_error *e)
{
    while (s->in.len < MAGIC_HEAD) {
        int r = refill(&s->in, e);
        if (r < 0)
            return CS_EDATA;
        if (r == 0)
            break;
    }
    const magic_format *f = magic_identify(s->in.buf, s->in.len);
    if (!f && s->in.eof && !s->raw_binary &&
        (f = magic_cut(s->in.buf, s->in.len)))
        return cs_fail(e, CS_EDATA, source_name(s), 0,
                       "truncated %s data: the input ends after %zu byte%s, "
                       "inside the format's magic number",
                       f->name, s->in.len, s->in.len > 1 ? "s" : "");
    if (!f)
        return CS_OK;
    if (!f->codec)
        return cs_fail(e, CS_EDATA, source_name(s), 0,
                       "%s, not read by colstat: %s", f->name, f->hint);
    s->codec = f->codec;
    return s->codec->open(&s->in, &s->codec_state, e);
}

int source_open(const char *path, source **out, cs_error *e)
{
    return source_open_cfg(path, NULL, out, e);
}

int source_open_cfg(const char *path, const source_config *cfg, source **out,
                    cs_error *e)
{
    *out = NULL;
    source *s = calloc(1, sizeof *s);
    if (!s)
        return cs_fail(e, CS_ENOMEM, path, 0, "out of memory");
    s->in.fd = -1;
    s->in.refill = refill;
    s->in.cap = IN_CAP;
    s->name = strdup(strcmp(path, "-") == 0 ? stdin_name : path);
    s->in.buf = malloc(IN_CAP);
    if (!s->name || !s->in.buf) {
        source_close(s);
        return cs_fail(e, CS_ENOMEM, path, 0, "out of memory");
    }
    s->in.name = s->name;
    if (cfg) {
        s->in.threads = cfg->threads;
        s->in.gzip_piece = cfg->gzip_piece;
        s->raw_binary = cfg->raw_binary;
    }
    if (open_fd(s, path, e) != CS_OK || probe_fd(s, e) != CS_OK ||
        sniff(s, e) != CS_OK) {
        source_close(s);
        return CS_EDATA;
    }
    *out = s;
    return CS_OK;
}

static ssize_t plain_read(source *s, unsigned char *buf, size_t n, cs_error *e)
{
    codec_in *in = &s->in;
    if (in->pos < in->len) {
        size_t k = in->len - in->pos;
        if (k > n)
            k = n;
        memcpy(buf, in->buf + in->pos, k);
        in->pos += k;
        s->delivered += k;
        return (ssize_t)k;
    }
    if (in->eof)
        return 0;
    if (s->end) {
        if (s->delivered >= s->end)
            return 0;
        if (n > s->end - s->delivered)
            n = (size_t)(s->end - s->delivered);
    }
    /* Straight into the caller's buffer: no copy for large reads. */
    ssize_t r = read_retry(in->fd, buf, n);
    if (account(s, r, e) != CS_OK)
        return -1;
    s->delivered += (uint64_t)r;
    return r;
}

/* The first decoded bytes of compressed input: a second layer of
 * compression or an archive inside it (a .tar.gz) would otherwise be read
 * as text. Returns CS_OK or CS_EDATA. */
static int check_head(source *s, cs_error *e)
{
    s->head_checked = 1;
    s->head = malloc(MAGIC_HEAD);
    if (!s->head)
        return cs_fail(e, CS_ENOMEM, source_name(s), 0, "out of memory");
    for (;;) {
        ssize_t r =
            s->codec->read(s->codec_state, &s->in, s->head + s->head_len,
                           MAGIC_HEAD - s->head_len, e);
        if (r < 0)
            return CS_EDATA;
        s->head_len += (size_t)r;
        if (r == 0 || s->head_len == MAGIC_HEAD)
            break;
    }
    const magic_format *f = magic_identify(s->head, s->head_len);
    if (f && f->codec)
        return cs_fail(e, CS_EDATA, source_name(s), 0,
                       "%s data inside %s data: colstat decodes one layer; "
                       "decode the outer one first: %s FILE | colstat",
                       f->name, s->codec->name, s->codec->cli);
    if (f)
        return cs_fail(e, CS_EDATA, source_name(s), 0,
                       "%s inside %s data, not read by colstat: %s", f->name,
                       s->codec->name, f->hint);
    return CS_OK;
}

static ssize_t decoded_read(source *s, unsigned char *buf, size_t n,
                            cs_error *e)
{
    if (!s->head_checked && check_head(s, e) != CS_OK)
        return -1;
    if (s->head_pos < s->head_len) {
        size_t k = s->head_len - s->head_pos;
        if (k > n)
            k = n;
        memcpy(buf, s->head + s->head_pos, k);
        s->head_pos += k;
        return (ssize_t)k;
    }
    return s->codec->read(s->codec_state, &s->in, buf, n, e);
}

ssize_t source_read(source *s, void *buf, size_t n, cs_error *e)
{
    if (n == 0)
        return 0;
    if (n > (size_t)SSIZE_MAX)
        n = (size_t)SSIZE_MAX;
    if (s->codec)
        return decoded_read(s, buf, n, e);
    return plain_read(s, buf, n, e);
}

const char *source_name(const source *s)
{
    return s->name ? s->name : stdin_name;
}

int source_is_gzip(const source *s)
{
    return s->codec == &codec_gzip_ops;
}

const char *source_format_name(const source *s)
{
    return s->codec ? s->codec->name : NULL;
}

void source_describe(const source *s, char *buf, size_t n)
{
    if (n == 0)
        return;
    buf[0] = 0;
    if (s->codec && s->codec->describe)
        s->codec->describe(s->codec_state, buf, n);
}

uint64_t source_file_size(const source *s)
{
    return s->end ? s->end : s->in.size;
}

uint64_t source_raw_pos(const source *s)
{
    if (s->codec)
        return read_end(s) - (s->in.len - s->in.pos);
    return s->delivered;
}

int source_can_pread(const source *s)
{
    return s->in.regular && !s->codec && s->start == 0;
}

ssize_t source_pread(const source *s, void *buf, size_t n, uint64_t off,
                     cs_error *e)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r =
            pread(s->in.fd, (char *)buf + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            cs_fail(e, CS_EDATA, s->name, 0, "cannot read: %s",
                    strerror(errno));
            return -1;
        }
        if (r == 0) {
            cs_fail(e, CS_EDATA, s->name, 0,
                    "file shrank while being read (%llu bytes expected)",
                    (unsigned long long)s->in.size);
            return -1;
        }
        got += (size_t)r;
    }
    return (ssize_t)got;
}

int source_seek(source *s, uint64_t off, cs_error *e)
{
    if (!source_can_pread(s))
        return cs_fail(e, CS_EDATA, s->name, 0, "cannot seek in this input");
    if (lseek(s->in.fd, (off_t)off, SEEK_SET) < 0)
        return fail_errno(s, e, "cannot seek", errno);
    s->in.pos = s->in.len; /* the sniffed head is behind us now */
    s->in.eof = 0;
    s->delivered = off;
    s->in.total = off;
    return CS_OK;
}

int source_window(source *s, uint64_t lo, uint64_t hi, cs_error *e)
{
    if (hi > s->in.size)
        hi = s->in.size;
    if (lo > hi)
        lo = hi;
    if (source_seek(s, lo, e) != CS_OK)
        return CS_EDATA;
    s->end = hi;
    return CS_OK;
}

void source_close(source *s)
{
    if (!s)
        return;
    if (s->codec)
        s->codec->close(s->codec_state);
    if (s->own_fd && s->in.fd >= 0)
        close(s->in.fd);
    free(s->head);
    free(s->in.buf);
    free(s->name);
    free(s);
}

ssize_t source_read_full(source *s, void *buf, size_t n, int *eof, cs_error *e)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = source_read(s, (char *)buf + got, n - got, e);
        if (r < 0)
            return -1;
        if (r == 0) {
            *eof = 1;
            break;
        }
        got += (size_t)r;
    }
    return (ssize_t)got;
}
