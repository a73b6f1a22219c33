/* A growable string, malloc'd: the one text buffer of every layer (diagnostics' machine
 * formats, the formatter, the runtime's JSON and history). When memory runs out, the
 * program stops (memory.h). */
#ifndef ORBIT_TEXTBUF_H
#define ORBIT_TEXTBUF_H

#include <stdbool.h>
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

/* ---- text for CI systems (ci_text.c); the input's invalid UTF-8 becomes U+FFFD ---- */

/* XML text or an attribute's value (in double quotes): the five markup characters as
 * entities, what XML 1.0 forbids removed, and in an attribute tabs and line ends as
 * character references (a parser would turn them into spaces). */
void text_xml(TextBuffer *out, const char *text, bool attribute);
/* ` NAME="VALUE"`, the value as text_xml writes an attribute. */
void text_xml_attribute(TextBuffer *out, const char *name, const char *value);
/* A GitHub Actions command's message (`property` false) or a property's value: `%`, CR
 * and LF percent-encoded, and in a property `:` and `,` too, as the runner decodes them. */
void text_github(TextBuffer *out, const char *text, bool property);
/* A TAP 14 test point's description: one line, `#` and `\` escaped, control characters
 * as spaces (NULL: empty). */
void text_tap_description(TextBuffer *out, const char *text);
/* A YAML double-quoted scalar with only the escapes YAML and Perl's TAP::Parser both read
 * (NULL: ""). */
void text_yaml_string(TextBuffer *out, const char *text);

#endif
