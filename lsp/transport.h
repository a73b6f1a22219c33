/* The base protocol of LSP: messages framed by a `Content-Length` header, read from a file
 * descriptor (stdin) or from a buffer (the fuzz target), written through a callback.
 *
 * The reader never blocks unless asked to: the server reads every message that has
 * already arrived before it re-checks a program, so that a check is not spent on a text
 * that a queued change has made stale, and a `$/cancelRequest` can reach a queued request. */
#ifndef ORBIT_LSP_TRANSPORT_H
#define ORBIT_LSP_TRANSPORT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

enum {
    /* The largest header block and message body accepted. A body this large is a
     * document of hundreds of megabytes: far above the compiler's own limits. */
    LSP_MAX_HEADER = 8192,
    LSP_MAX_BODY = 512 * 1024 * 1024,
};

typedef enum FrameStatus {
    FRAME_OK,          /* a whole message body is available */
    FRAME_PENDING,     /* not all of it has arrived yet (when blocking: only after
                          wait_ms without a byte) */
    FRAME_END,         /* the stream ended between two messages */
    FRAME_BROKEN,      /* a header that cannot be read, or the stream ended inside a
                          message: the connection cannot be resynchronised */
} FrameStatus;

typedef struct LspReader {
    int fd;                /* -1: read from the buffer only */
    char *data;            /* bytes read and not yet consumed: data[start, end) */
    size_t start, end, cap;
    bool owned;            /* data is malloc'd by the reader */
    bool eof;
    long body_length;      /* of the frame whose header was read, or -1 */
    int wait_ms;           /* the longest a blocking read waits for bytes before it
                              returns FRAME_PENDING; -1 (the default): no limit */
    char error[160];       /* why, after FRAME_BROKEN */
} LspReader;

/* A reader of a file descriptor (stdin). */
void lsp_reader_init_fd(LspReader *r, int fd);
/* A reader of a whole stream held in memory (not copied; must outlive the reader). */
void lsp_reader_init_buffer(LspReader *r, const char *data, size_t len);
void lsp_reader_free(LspReader *r);

/* The next message body. With `wait`, blocks until a whole message has arrived or the
 * stream ends, or until no byte arrived for r->wait_ms (then FRAME_PENDING); without,
 * returns FRAME_PENDING when that would mean waiting. The body is valid until the next
 * call: (*body)[*len] is a NUL. */
FrameStatus lsp_read_frame(LspReader *r, bool wait, const char **body, size_t *len);

/* Where messages go: one call per framed message (header and body together). Returns
 * false when the other side is gone. */
typedef bool (*LspWrite)(void *context, const char *bytes, size_t len);

/* Frames `body` and hands it to `write`. */
bool lsp_write_frame(LspWrite write, void *context, const char *body, size_t len);

/* An LspWrite to a file descriptor (stdout); context is a pointer to the int. */
bool lsp_write_fd(void *context, const char *bytes, size_t len);

/* The server's log: "orbitc lsp: MESSAGE" on standard error, flushed (the protocol owns
 * standard output). The one place of the server that prints. */
void lsp_log_vprintf(const char *fmt, va_list ap);

#endif
