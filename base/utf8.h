/* UTF-8 for the front end: decoding with validation, the identifier character classes
 * (XID_Start / XID_Continue, approximated from Unicode general categories through
 * utf8proc), and NFC normalisation of identifiers. */
#ifndef ORBIT_UTF8_H
#define ORBIT_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"

/* The UTF-8 decoder. Decodes the character at s[0..len) (len >= 1): returns its length
 * in bytes (1 to 4) and stores its code point in *cp; for a byte that does not start a
 * valid, shortest-form sequence (overlong, surrogate, beyond U+10FFFF, truncated) it
 * stores -1 and returns 1, so each such byte counts as one character. It never reads
 * past s[len - 1], nor past the first byte that breaks the sequence. */
uint32_t utf8_decode(const unsigned char *s, size_t len, int32_t *cp);

/* The same for text that ends with a NUL (the lexer's buffers): returns 0 when the bytes
 * at p are not valid UTF-8. The NUL stops the decoder, so it never reads past the text. */
static inline uint32_t utf8_read(const unsigned char *p, int32_t *cp)
{
    uint32_t n = utf8_decode(p, 4, cp);
    return *cp < 0 ? 0 : n;
}

/* Encodes a scalar value; returns the number of bytes written to out (1 to 4). */
uint32_t utf8_write(int32_t cp, char *out);

bool utf8_is_id_start(int32_t cp);
bool utf8_is_id_continue(int32_t cp);

/* Characters that would not show up in a message: controls, spaces, format characters,
 * unassigned or private-use code points, combining marks. */
bool utf8_is_invisible(int32_t cp);

/* Characters that a label shows as their escape (`\u{202E}`) rather than as they are:
 * what is not seen or moves other text: controls (C0, DEL, C1), format characters (the
 * bidirectional controls among them, zero-width ones, U+FEFF), line and paragraph
 * separators, spaces other than U+0020, surrogates, private-use and unassigned code
 * points (the noncharacters U+FFFE and U+FFFF among them). Unlike utf8_is_invisible, a
 * combining mark is seen (on the character before it) and U+0020 is itself. */
bool utf8_is_unseen(int32_t cp);

/* The name of a bidirectional text control ("RIGHT-TO-LEFT OVERRIDE"), or NULL for any
 * other character. They change the order in which text is shown, not the text (Trojan
 * Source, CVE-2021-42574): the embeddings and overrides U+202A to U+202E, the isolates
 * U+2066 to U+2069, and the marks U+200E, U+200F and U+061C. The lint W0011 reports them
 * in strings and comments; the renderers show them as U+FFFD (utf8_is_unprintable). */
const char *utf8_bidi_control_name(int32_t cp);

/* --- showing text on a terminal: the diagnostics' renderers, orbit-run's tables --- */

/* Whether a code point is shown as U+FFFD: invalid bytes (-1), C0 and C1 control
 * characters other than tab, DEL, the line and paragraph separators, and the
 * bidirectional formatting characters that can make a terminal show text in a
 * misleading order. */
bool utf8_is_unprintable(int32_t cp);

/* Terminal cells of a character as shown (not a tab): 1 for an unprintable one (it is
 * shown as U+FFFD), otherwise utf8proc's width: 2 for wide CJK and emoji, 0 for
 * combining marks. */
uint32_t utf8_cells(int32_t cp);

/* NFC form of text[0..len) copied into the arena; *out_len gets its length. */
const char *utf8_nfc(Arena *arena, const char *text, uint32_t len, uint32_t *out_len);

#endif
