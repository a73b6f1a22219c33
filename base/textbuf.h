/* A growable string, malloc'd: the one text buffer of every layer (diagnostics' machine
 * formats, the formatter, the runtime's JSON and history). When memory runs out, the
 * program stops (memory.h). */
#ifndef ORBIT_TEXTBUF_H
#define ORBIT_TEXTBUF_H

#include <stddef.h>

/* `data` is NUL-terminated once anything was appended; a zeroed buffer is empty. */
typedef struct TextBuffer {
    char *data;
    size_t len;
    size_t cap;
} TextBuffer;

void text_append(TextBuffer *buffer, const char *text, size_t len);
void text_append_str(TextBuffer *buffer, const char *text);
void text_printf(TextBuffer *buffer, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void text_free(TextBuffer *buffer);

#endif
