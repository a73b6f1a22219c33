/* The growable string (textbuf.h). */
#include "textbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"

void text_append(TextBuffer *buffer, const char *text, size_t len)
{
    if (buffer->len + len + 1 > buffer->cap) {
        size_t cap = buffer->cap ? buffer->cap * 2 : 256;
        while (cap < buffer->len + len + 1)
            cap *= 2;
        buffer->data = xrealloc(buffer->data, cap);
        buffer->cap = cap;
    }
    if (len)
        memcpy(buffer->data + buffer->len, text, len);
    buffer->len += len;
    buffer->data[buffer->len] = '\0';
}

void text_append_str(TextBuffer *buffer, const char *text)
{
    text_append(buffer, text, strlen(text));
}

/* Formats into a small buffer on the stack, and only a longer text into the heap. */
void text_printf(TextBuffer *buffer, const char *fmt, ...)
{
    char small[256];
    va_list args;
    va_start(args, fmt);
    int len = vsnprintf(small, sizeof small, fmt, args);
    va_end(args);
    if (len <= 0)
        return;
    if ((size_t)len < sizeof small) {
        text_append(buffer, small, (size_t)len);
        return;
    }
    char *text = xmalloc((size_t)len + 1);
    va_start(args, fmt);
    vsnprintf(text, (size_t)len + 1, fmt, args);
    va_end(args);
    text_append(buffer, text, (size_t)len);
    free(text);
}

void text_free(TextBuffer *buffer)
{
    free(buffer->data);
    memset(buffer, 0, sizeof *buffer);
}
