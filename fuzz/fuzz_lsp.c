/* libFuzzer target: bytes as the message stream of a whole language server session
 * (lsp/lsp.h), read from memory, in memory-only mode (no file is read or written).
 * Any crash, hang, sanitizer report or leak is a bug, and so is any message the server
 * writes that is not one well-formed frame of valid JSON.
 *
 * The custom mutator keeps most inputs a sequence of well-formed frames, so that the
 * fuzzer reaches the handlers: it mutates one message body and fixes its Content-Length,
 * or repeats or drops a message; one mutation in eight works on the raw bytes and breaks
 * the framing (broken headers, truncated bodies). */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lsp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* Every message written must be "Content-Length: N\r\n\r\n" and N bytes of JSON. */
static bool check_frame(void *context, const char *bytes, size_t len)
{
    (void)context;
    static const char HEADER[] = "Content-Length: ";
    if (len < sizeof HEADER || memcmp(bytes, HEADER, sizeof HEADER - 1) != 0)
        abort();
    char *end;
    unsigned long n = strtoul(bytes + sizeof HEADER - 1, &end, 10);
    if (strncmp(end, "\r\n\r\n", 4) != 0 || (size_t)(end + 4 - bytes) + n != len)
        abort();
    json_error_t error;
    json_t *json = json_loadb(end + 4, n, 0, &error);
    if (!json || !json_is_object(json))
        abort();
    json_decref(json);
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    LspReader reader;
    lsp_reader_init_buffer(&reader, (const char *)data, size);
    LspOptions options = { .memory_only = true };
    lsp_serve(&reader, check_frame, NULL, &options);
    lsp_reader_free(&reader);
    return 0;
}

/* ---- The mutator ------------------------------------------------------------------ */

enum { MAX_FRAMES = 256 };

typedef struct Frame {
    size_t start;      /* of the header */
    size_t body;       /* of the body */
    size_t end;        /* one past the body */
} Frame;

/* The frames of a well-formed input; 0 when it is not one. */
static size_t split_frames(const uint8_t *data, size_t size, Frame *frames)
{
    size_t n = 0, at = 0;
    while (at < size && n < MAX_FRAMES) {
        static const char HEADER[] = "Content-Length: ";
        if (size - at < sizeof HEADER || memcmp(data + at, HEADER, sizeof HEADER - 1) != 0)
            return 0;
        size_t i = at + sizeof HEADER - 1, length = 0;
        while (i < size && data[i] >= '0' && data[i] <= '9' && length < (1u << 24))
            length = length * 10 + (size_t)(data[i++] - '0');
        if (size - i < 4 || memcmp(data + i, "\r\n\r\n", 4) != 0 || size - i - 4 < length)
            return 0;
        frames[n++] = (Frame){ at, i + 4, i + 4 + length };
        at = i + 4 + length;
    }
    return at == size ? n : 0;
}

/* Appends a frame of `body` to out[*len]; false when it does not fit. */
static bool put_frame(uint8_t *out, size_t *len, size_t max, const uint8_t *body, size_t n)
{
    char header[48];
    int h = snprintf(header, sizeof header, "Content-Length: %zu\r\n\r\n", n);
    if (*len + (size_t)h + n > max)
        return false;
    memcpy(out + *len, header, (size_t)h);
    memcpy(out + *len + h, body, n);
    *len += (size_t)h + n;
    return true;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    static Frame frames[MAX_FRAMES];
    size_t count = split_frames(data, size, frames);
    unsigned choice = seed % 16;
    if (count == 0 || choice < 2)
        return LLVMFuzzerMutate(data, size, max_size);
    size_t pick = (seed / 16) % count;
    uint8_t *out = malloc(max_size);
    uint8_t *body = malloc(max_size);
    if (!out || !body)
        abort();
    size_t len = 0;
    bool ok = true;
    for (size_t i = 0; i < count && ok; i++) {
        const uint8_t *b = data + frames[i].body;
        size_t n = frames[i].end - frames[i].body;
        if (i != pick) {
            ok = put_frame(out, &len, max_size, b, n);
        } else if (choice == 2) {                         /* drop it */
        } else if (choice == 3) {                         /* repeat it */
            ok = put_frame(out, &len, max_size, b, n) && put_frame(out, &len, max_size, b, n);
        } else {                                          /* mutate its body */
            size_t room = len + 48 < max_size ? max_size - len - 48 : 0;
            ok = room >= n && n > 0;
            if (ok) {
                memcpy(body, b, n);
                ok = put_frame(out, &len, max_size, body, LLVMFuzzerMutate(body, n, room));
            }
        }
    }
    if (ok) {
        memcpy(data, out, len);
        size = len;
    } else {
        size = LLVMFuzzerMutate(data, size, max_size);
    }
    free(out);
    free(body);
    return size;
}
