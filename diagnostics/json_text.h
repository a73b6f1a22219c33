/* JSON string text: the one escaper of every JSON orbitc writes (render_json.c by hand;
 * render_machine.c, render_gitlab.c, render_sarif.c, the language server and
 * `dis --format json` through jansson). Invalid UTF-8 is replaced: each byte that does
 * not start a valid sequence (base/utf8.c's utf8_decode: no overlong form, no
 * surrogate, nothing above U+10FFFF, no truncated sequence) becomes U+FFFD, so the
 * output is always valid UTF-8. Not jansson's json_ namespace. */
#ifndef ORBIT_JSON_TEXT_H
#define ORBIT_JSON_TEXT_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

/* A jansson string of text[0, len) (which may hold NUL bytes), invalid UTF-8 replaced.
 * Never NULL: out of memory is base/memory.h's. */
json_t *diag_json_text(const char *text, size_t len);

/* The same of a NUL-terminated text; NULL gives "". */
json_t *diag_json_text0(const char *text);

/* Writes text[0, len) as a JSON string, quotes included, as RFC 8259 asks, invalid
 * UTF-8 replaced: `"` and `\` escaped, \n \r \t, the other control characters, DEL,
 * U+2028 and U+2029 (line ends to JavaScript) as \u00XX / \u2028 / \u2029; everything
 * else as it is. */
void diag_json_write_text(FILE *out, const char *text, size_t len);

/* Writes `value` indented by 2 (and a line end) and releases it. */
void diag_json_write(FILE *out, json_t *value);

#endif
