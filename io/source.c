#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* Compressed input is read in large blocks: few syscalls, and inflate
 * rarely stops for input. */
#define IN_CAP ((size_t)1 << 20)

struct source {
    /* The descriptor stays here, with the regular-file flag and size, so a
     * later reader can split a plain regular file into pread ranges. */
    int fd;
    int own_fd; /* 0 for standard input, which is not ours to close */
    int regular;
    uint64_t file_size;
    char *name;
    int gzip;
    int eof;             /* read(2) has returned 0 */
    int finished;        /* no more data will come */
    uint64_t read_total; /* bytes read(2) from fd */
    uint64_t delivered;  /* plain: bytes handed to the caller */
    /* Bytes read but not yet used: the sniffed head of a plain file, or
     * compressed input not yet inflated (then z.next_in/avail_in rule). */
    unsigned char *in;
    size_t in_pos, in_len;
    z_stream z;
    int z_ready;
    int between_members; /* the last member ended; what follows is open */
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

static int fail_errno(source *s, cs_error *e, const char *what, int err)
{
    return cs_fail(e, CS_EDATA, source_name(s), 0, "%s: %s", what,
                   strerror(err));
}

/* Reads once into the free end of the input buffer. Returns 1 with new
 * bytes, 0 at end of file, -1 on error (e filled). */
static int fill(source *s, cs_error *e)
{
    if (s->eof)
        return 0;
    ssize_t r = read_retry(s->fd, s->in + s->in_len, IN_CAP - s->in_len);
    if (r < 0) {
        fail_errno(s, e, "cannot read", errno);
        return -1;
    }
    if (r == 0) {
        s->eof = 1;
        return 0;
    }
    s->in_len += (size_t)r;
    s->read_total += (uint64_t)r;
    return 1;
}

static int open_fd(source *s, const char *path, cs_error *e)
{
    if (strcmp(path, "-") == 0) {
        s->fd = STDIN_FILENO;
        return CS_OK;
    }
    do
        s->fd = open(path, O_RDONLY | O_CLOEXEC);
    while (s->fd < 0 && errno == EINTR);
    if (s->fd < 0)
        return fail_errno(s, e, "cannot open", errno);
    s->own_fd = 1;
    return CS_OK;
}

static int probe_fd(source *s, cs_error *e)
{
    struct stat st;
    if (fstat(s->fd, &st) != 0)
        return fail_errno(s, e, "cannot stat", errno);
    /* Said here rather than left to read(2): not every system refuses to
     * read a directory. */
    if (S_ISDIR(st.st_mode))
        return fail_errno(s, e, "cannot read", EISDIR);
    if (S_ISREG(st.st_mode)) {
        s->regular = 1;
        s->file_size = (uint64_t)st.st_size;
#ifdef POSIX_FADV_SEQUENTIAL
        (void)posix_fadvise(s->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    }
    return CS_OK;
}

/* gzip is known by its magic bytes 1f 8b (RFC 1952, 2.3.1), never by the
 * name, so pipes and misnamed files work. A pipe may deliver one byte at a
 * time, hence the loop. */
static int sniff(source *s, cs_error *e)
{
    while (s->in_len < 2) {
        int r = fill(s, e);
        if (r < 0)
            return CS_EDATA;
        if (r == 0)
            break;
    }
    s->gzip = s->in_len >= 2 && s->in[0] == 0x1f && s->in[1] == 0x8b;
    if (!s->gzip)
        return CS_OK;
    /* 16 + MAX_WBITS: gzip wrapper only, so inflate itself rejects a
     * following member that is not gzip, and checks CRC-32 and ISIZE. */
    s->z.next_in = s->in;
    s->z.avail_in = (uInt)s->in_len;
    if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK)
        return cs_fail(e, CS_EDATA, source_name(s), 0,
                       "cannot start gzip decoder: out of memory");
    s->z_ready = 1;
    return CS_OK;
}

int source_open(const char *path, source **out, cs_error *e)
{
    *out = NULL;
    source *s = calloc(1, sizeof *s);
    if (!s)
        return cs_fail(e, CS_EDATA, path, 0, "out of memory");
    s->fd = -1;
    s->name = strdup(strcmp(path, "-") == 0 ? stdin_name : path);
    s->in = malloc(IN_CAP);
    if (!s->name || !s->in) {
        source_close(s);
        return cs_fail(e, CS_EDATA, path, 0, "out of memory");
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
    if (s->in_pos < s->in_len) {
        size_t k = s->in_len - s->in_pos;
        if (k > n)
            k = n;
        memcpy(buf, s->in + s->in_pos, k);
        s->in_pos += k;
        s->delivered += k;
        return (ssize_t)k;
    }
    if (s->eof)
        return 0;
    /* Straight into the caller's buffer: no copy for large reads. */
    ssize_t r = read_retry(s->fd, buf, n);
    if (r < 0) {
        fail_errno(s, e, "cannot read", errno);
        return -1;
    }
    if (r == 0)
        s->eof = 1;
    s->read_total += (uint64_t)r;
    s->delivered += (uint64_t)r;
    return r;
}

/* Refills the compressed input once it is used up. Returns as fill(). */
static int gz_refill(source *s, cs_error *e)
{
    s->in_len = 0;
    int r = fill(s, e);
    s->z.next_in = s->in;
    s->z.avail_in = (uInt)s->in_len;
    return r;
}

static int garbage(source *s, cs_error *e)
{
    cs_fail(e, CS_EDATA, source_name(s), 0, "trailing garbage after gzip data");
    return -1;
}

/* After the end of a member. What may follow: nothing; another member
 * (concatenated gzip, as pigz, bgzip and `cat a.gz b.gz` make); or zero
 * bytes to the end of the file. Zero padding is accepted because tape and
 * block devices pad that way and GNU gzip accepts it too; zeros cannot start
 * a member, so nothing is lost by it. Anything else is trailing garbage and
 * an error: it may be a damaged member we would otherwise silently skip.
 * Returns as gz_step. */
static int gz_next_member(source *s, cs_error *e)
{
    if (s->z.avail_in == 0) {
        int r = gz_refill(s, e);
        if (r <= 0) {
            s->finished = r == 0;
            return r;
        }
    }
    if (s->z.next_in[0] == 0) {
        for (;;) {
            for (uInt i = 0; i < s->z.avail_in; i++)
                if (s->z.next_in[i] != 0)
                    return garbage(s, e);
            s->z.next_in += s->z.avail_in;
            s->z.avail_in = 0;
            int r = gz_refill(s, e);
            if (r <= 0) {
                s->finished = r == 0;
                return r;
            }
        }
    }
    /* The second magic byte may not have arrived yet; inflate checks it. */
    if (s->z.next_in[0] != 0x1f ||
        (s->z.avail_in > 1 && s->z.next_in[1] != 0x8b))
        return garbage(s, e);
    inflateReset(&s->z);
    s->between_members = 0;
    return 1;
}

static int gz_fail(source *s, int ret, cs_error *e)
{
    if (ret == Z_MEM_ERROR)
        return cs_fail(e, CS_EDATA, source_name(s), 0,
                       "out of memory in gzip decoder");
    /* Z_DATA_ERROR covers a bad header, bad deflate data and a CRC-32 or
     * length mismatch; zlib's message says which. */
    return cs_fail(e, CS_EDATA, source_name(s), 0, "corrupt gzip data: %s",
                   s->z.msg ? s->z.msg : "unknown error");
}

/* One step of decoding: more input, a member boundary, or inflate.
 * Returns 1 to go on, 0 at the end of the data, -1 on error. */
static int gz_step(source *s, cs_error *e)
{
    if (s->between_members)
        return gz_next_member(s, e);
    if (s->z.avail_in == 0) {
        int r = gz_refill(s, e);
        if (r < 0)
            return -1;
        if (r == 0) {
            cs_fail(e, CS_EDATA, source_name(s), 0,
                    "unexpected end of gzip data (truncated?)");
            return -1;
        }
    }
    int ret = inflate(&s->z, Z_NO_FLUSH);
    if (ret == Z_STREAM_END) {
        s->between_members = 1;
        return 1;
    }
    if (ret == Z_OK)
        return 1;
    /* Z_BUF_ERROR means no progress: fine when input or output ran out;
     * with room on both sides it would loop forever, so it is an error. */
    if (ret == Z_BUF_ERROR && (s->z.avail_in == 0 || s->z.avail_out == 0))
        return 1;
    gz_fail(s, ret == Z_NEED_DICT ? Z_DATA_ERROR : ret, e);
    return -1;
}

static ssize_t gz_read(source *s, unsigned char *buf, size_t n, cs_error *e)
{
    if (n > (size_t)1 << 30)
        n = (size_t)1 << 30; /* avail_out is a 32-bit uInt */
    s->z.next_out = buf;
    s->z.avail_out = (uInt)n;
    while (s->z.avail_out > 0 && !s->finished) {
        size_t got = n - s->z.avail_out;
        /* On a pipe, hand over what is decoded instead of waiting for the
         * writer; on a file, fill the whole buffer. */
        if (got > 0 && !s->regular && s->z.avail_in == 0 && !s->eof)
            break;
        if (gz_step(s, e) < 0)
            return -1;
    }
    return (ssize_t)(n - s->z.avail_out);
}

ssize_t source_read(source *s, void *buf, size_t n, cs_error *e)
{
    if (n == 0)
        return 0;
    if (n > (size_t)SSIZE_MAX)
        n = (size_t)SSIZE_MAX;
    if (s->gzip)
        return gz_read(s, buf, n, e);
    return plain_read(s, buf, n, e);
}

const char *source_name(const source *s)
{
    return s->name ? s->name : stdin_name;
}

int source_is_gzip(const source *s)
{
    return s->gzip;
}

uint64_t source_file_size(const source *s)
{
    return s->file_size;
}

uint64_t source_raw_pos(const source *s)
{
    if (s->gzip)
        return s->read_total - s->z.avail_in;
    return s->delivered;
}

int source_can_pread(const source *s)
{
    return s->regular && !s->gzip;
}

ssize_t source_pread(const source *s, void *buf, size_t n, uint64_t off,
                     cs_error *e)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r =
            pread(s->fd, (char *)buf + got, n - got, (off_t)(off + got));
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
                    (unsigned long long)s->file_size);
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
    if (lseek(s->fd, (off_t)off, SEEK_SET) < 0)
        return fail_errno(s, e, "cannot seek", errno);
    s->in_pos = s->in_len; /* the sniffed head is behind us now */
    s->eof = 0;
    s->delivered = off;
    s->read_total = off;
    return CS_OK;
}

void source_close(source *s)
{
    if (!s)
        return;
    if (s->z_ready)
        inflateEnd(&s->z);
    if (s->own_fd && s->fd >= 0)
        close(s->fd);
    free(s->in);
    free(s->name);
    free(s);
}
