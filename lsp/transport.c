/* The base protocol: `Content-Length: N\r\n\r\n` then N bytes of JSON. */
#include "transport.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "memory.h"

enum { READ_CHUNK = 64 * 1024 };

void lsp_reader_init_fd(LspReader *r, int fd)
{
    memset(r, 0, sizeof *r);
    r->fd = fd;
    r->cap = READ_CHUNK;
    r->data = xmalloc(r->cap);
    r->owned = true;
    r->body_length = -1;
    r->wait_ms = -1;
}

void lsp_reader_init_buffer(LspReader *r, const char *data, size_t len)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    r->data = (char *)data;   /* only read: a buffer reader never fills or moves it */
    r->end = r->cap = len;
    r->eof = true;
    r->body_length = -1;
    r->wait_ms = -1;
}

void lsp_reader_free(LspReader *r)
{
    if (r->owned)
        free(r->data);
    memset(r, 0, sizeof *r);
}

static FrameStatus broken(LspReader *r, const char *why)
{
    snprintf(r->error, sizeof r->error, "%s", why);
    return FRAME_BROKEN;
}

/* The value of a `Content-Length` header: digits only, at most LSP_MAX_BODY. */
static bool parse_length(const char *value, const char *end, long *out)
{
    while (value < end && (*value == ' ' || *value == '\t'))
        value++;
    while (end > value && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    if (value == end)
        return false;
    long n = 0;
    for (; value < end; value++) {
        if (*value < '0' || *value > '9')
            return false;
        n = n * 10 + (*value - '0');
        if (n > LSP_MAX_BODY)
            return false;
    }
    *out = n;
    return true;
}

/* Reads the header block at data[start, end) if it is complete: sets body_length and
 * moves start past it. Lines end with "\r\n" (a bare "\n" is accepted too); an empty line
 * ends the block. Headers other than Content-Length (Content-Type) are ignored. */
static FrameStatus parse_header(LspReader *r)
{
    const char *p = r->data + r->start, *end = r->data + r->end;
    long length = -1;
    for (;;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) {
            if ((size_t)(end - (r->data + r->start)) > LSP_MAX_HEADER)
                return broken(r, "a header longer than 8 KiB");
            return FRAME_PENDING;
        }
        const char *line_end = nl > p && nl[-1] == '\r' ? nl - 1 : nl;
        if (line_end == p) {                    /* the empty line */
            if (length < 0)
                return broken(r, "a message without a Content-Length header");
            r->start = (size_t)(nl + 1 - r->data);
            r->body_length = length;
            return FRAME_OK;
        }
        const char *colon = memchr(p, ':', (size_t)(line_end - p));
        if (!colon)
            return broken(r, "a header line without a colon");
        if (colon - p == 14 && strncasecmp(p, "Content-Length", 14) == 0 &&
            !parse_length(colon + 1, line_end, &length))
            return broken(r, "an invalid Content-Length (digits, at most 512 MiB)");
        p = nl + 1;
        if ((size_t)(p - (r->data + r->start)) > LSP_MAX_HEADER)
            return broken(r, "a header longer than 8 KiB");
    }
}

/* Room for at least `want` more bytes after data[end]; consumed bytes are dropped. */
static void make_room(LspReader *r, size_t want)
{
    if (r->start > 0) {
        memmove(r->data, r->data + r->start, r->end - r->start);
        r->end -= r->start;
        r->start = 0;
    }
    if (r->cap - r->end >= want)
        return;
    size_t cap = r->cap;
    while (cap - r->end < want)
        cap *= 2;
    r->data = xrealloc(r->data, cap);
    r->cap = cap;
}

/* Whether the descriptor has bytes (or its end) to read within timeout_ms (-1: waits as
 * long as it takes). */
static bool readable_within(int fd, int timeout_ms)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    int n;
    do
        n = poll(&p, 1, timeout_ms);
    while (n < 0 && errno == EINTR);
    return n != 0;           /* an error other than EINTR: let read() report it */
}

/* Reads what is there (or, with `wait`, blocks for at least one byte, at most wait_ms).
 * False when nothing was read. */
static bool fill(LspReader *r, bool wait)
{
    if (r->fd < 0 || r->eof)
        return false;
    if (!readable_within(r->fd, wait ? r->wait_ms : 0))
        return false;
    size_t want = READ_CHUNK;
    if (r->body_length > 0 && (size_t)r->body_length > r->end - r->start)
        want = (size_t)r->body_length - (r->end - r->start);
    make_room(r, want < READ_CHUNK ? READ_CHUNK : want);
    for (;;) {
        ssize_t n = read(r->fd, r->data + r->end, r->cap - r->end);
        if (n > 0) {
            r->end += (size_t)n;
            return true;
        }
        if (n == 0) {
            r->eof = true;
            return true;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (!wait || !readable_within(r->fd, r->wait_ms))
                return false;
            continue;
        }
        snprintf(r->error, sizeof r->error, "cannot read: %s", strerror(errno));
        r->eof = true;
        return true;
    }
}

FrameStatus lsp_read_frame(LspReader *r, bool wait, const char **body, size_t *len)
{
    for (;;) {
        if (r->body_length < 0) {
            FrameStatus s = r->start < r->end ? parse_header(r) : FRAME_PENDING;
            if (s == FRAME_BROKEN)
                return s;
        }
        if (r->body_length >= 0 && r->end - r->start >= (size_t)r->body_length) {
            *body = r->data + r->start;
            *len = (size_t)r->body_length;
            r->start += (size_t)r->body_length;
            r->body_length = -1;
            return FRAME_OK;
        }
        if (r->eof) {
            if (r->body_length < 0 && r->start == r->end)
                return r->error[0] ? FRAME_BROKEN : FRAME_END;
            return r->error[0] ? FRAME_BROKEN
                               : broken(r, "the stream ended inside a message");
        }
        if (!fill(r, wait))
            return FRAME_PENDING;
    }
}

bool lsp_write_frame(LspWrite write, void *context, const char *body, size_t len)
{
    char header[64];
    int n = snprintf(header, sizeof header, "Content-Length: %zu\r\n\r\n", len);
    char *frame = xmalloc((size_t)n + len);
    memcpy(frame, header, (size_t)n);
    memcpy(frame + n, body, len);
    bool ok = write(context, frame, (size_t)n + len);
    free(frame);
    return ok;
}

bool lsp_write_fd(void *context, const char *bytes, size_t len)
{
    int fd = *(const int *)context;
    while (len > 0) {
        ssize_t n = write(fd, bytes, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        bytes += n;
        len -= (size_t)n;
    }
    return true;
}

void lsp_log_vprintf(const char *fmt, va_list ap)
{
    fputs("orbitc lsp: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    fflush(stderr);
}
