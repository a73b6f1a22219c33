/* UTF-8 for the front end: decoding with validation, the identifier character classes
 * (XID_Start / XID_Continue, approximated from Unicode general categories through
 * utf8proc), and NFC normalisation of identifiers. */
#ifndef ORBIT_UTF8_H
#define ORBIT_UTF8_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"

/* Decodes one code point at p. Returns its length in bytes (1 to 4), or 0 if the bytes at
 * p are not valid UTF-8 (overlong, surrogate, beyond U+10FFFF or truncated). Relies on
 * the text ending with a NUL: it never reads past a byte that is not a continuation. */
uint32_t utf8_read(const unsigned char *p, int32_t *cp);

/* Encodes a scalar value; returns the number of bytes written to out (1 to 4). */
uint32_t utf8_write(int32_t cp, char *out);

bool utf8_is_id_start(int32_t cp);
bool utf8_is_id_continue(int32_t cp);

/* Characters that would not show up in a message: controls, spaces, format characters,
 * unassigned or private-use code points, combining marks. */
bool utf8_is_invisible(int32_t cp);

/* NFC form of text[0..len) copied into the arena; *out_len gets its length. */
const char *utf8_nfc(Arena *arena, const char *text, uint32_t len, uint32_t *out_len);

#endif
