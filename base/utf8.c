/* UTF-8 decoding, identifier character classes and NFC normalisation for the lexer. */
#include "utf8.h"

#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

static bool is_continuation(unsigned char b, unsigned char lo, unsigned char hi)
{
    return b >= lo && b <= hi;
}

uint32_t utf8_decode(const unsigned char *s, size_t len, int32_t *cp)
{
    unsigned char b = s[0];
    *cp = -1;
    if (b < 0x80) {
        *cp = b;
        return 1;
    }
    uint32_t need;
    unsigned char lo = 0x80, hi = 0xBF;   /* allowed range of the second byte */
    int32_t value;
    if (b >= 0xC2 && b <= 0xDF) {
        need = 2;
        value = b & 0x1F;
    } else if (b >= 0xE0 && b <= 0xEF) {
        need = 3;
        value = b & 0x0F;
        if (b == 0xE0)
            lo = 0xA0;          /* no overlong forms */
        else if (b == 0xED)
            hi = 0x9F;          /* no surrogates */
    } else if (b >= 0xF0 && b <= 0xF4) {
        need = 4;
        value = b & 0x07;
        if (b == 0xF0)
            lo = 0x90;          /* no overlong forms */
        else if (b == 0xF4)
            hi = 0x8F;          /* nothing above U+10FFFF */
    } else {
        return 1;
    }
    if (len < need || !is_continuation(s[1], lo, hi))
        return 1;
    value = (value << 6) | (s[1] & 0x3F);
    for (uint32_t i = 2; i < need; i++) {
        if (!is_continuation(s[i], 0x80, 0xBF))
            return 1;
        value = (value << 6) | (s[i] & 0x3F);
    }
    *cp = value;
    return need;
}

uint32_t utf8_write(int32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

bool utf8_is_id_start(int32_t cp)
{
    if (cp < 0x80)
        return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || cp == '_';
    switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_NL:
        return true;
    default:
        return false;
    }
}

bool utf8_is_id_continue(int32_t cp)
{
    if (cp < 0x80)
        return utf8_is_id_start(cp) || (cp >= '0' && cp <= '9');
    if (utf8_is_id_start(cp))
        return true;
    switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_PC:
        return true;
    default:
        return false;
    }
}

bool utf8_is_unprintable(int32_t cp)
{
    if (cp < 0)
        return true;
    if (cp < 0x20)
        return cp != '\t';
    if (cp >= 0x7F && cp <= 0x9F)
        return true;
    return cp == 0x2028 || cp == 0x2029 || utf8_bidi_control_name(cp) != NULL;
}

uint32_t utf8_cells(int32_t cp)
{
    if (utf8_is_unprintable(cp))
        return 1;
    int width = utf8proc_charwidth(cp);
    return width > 0 ? (uint32_t)width : 0;
}

const char *utf8_bidi_control_name(int32_t cp)
{
    static const char *const embeddings[] = {      /* U+202A to U+202E */
        "LEFT-TO-RIGHT EMBEDDING", "RIGHT-TO-LEFT EMBEDDING", "POP DIRECTIONAL FORMATTING",
        "LEFT-TO-RIGHT OVERRIDE", "RIGHT-TO-LEFT OVERRIDE",
    };
    static const char *const isolates[] = {        /* U+2066 to U+2069 */
        "LEFT-TO-RIGHT ISOLATE", "RIGHT-TO-LEFT ISOLATE", "FIRST STRONG ISOLATE",
        "POP DIRECTIONAL ISOLATE",
    };
    if (cp >= 0x202A && cp <= 0x202E)
        return embeddings[cp - 0x202A];
    if (cp >= 0x2066 && cp <= 0x2069)
        return isolates[cp - 0x2066];
    if (cp == 0x200E)
        return "LEFT-TO-RIGHT MARK";
    if (cp == 0x200F)
        return "RIGHT-TO-LEFT MARK";
    if (cp == 0x061C)
        return "ARABIC LETTER MARK";
    return NULL;
}

bool utf8_is_invisible(int32_t cp)
{
    if (cp == ' ' || utf8_is_unseen(cp))
        return true;
    switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ME:
        return true;
    default:
        return false;
    }
}

bool utf8_is_unseen(int32_t cp)
{
    switch (utf8proc_category(cp)) {
    case UTF8PROC_CATEGORY_CC:
    case UTF8PROC_CATEGORY_CF:
    case UTF8PROC_CATEGORY_CS:
    case UTF8PROC_CATEGORY_CO:
    case UTF8PROC_CATEGORY_CN:
    case UTF8PROC_CATEGORY_ZL:
    case UTF8PROC_CATEGORY_ZP:
        return true;
    case UTF8PROC_CATEGORY_ZS:
        return cp != ' ';
    default:
        return false;
    }
}

const char *utf8_nfc(Arena *arena, const char *text, uint32_t len, uint32_t *out_len)
{
    utf8proc_uint8_t *mapped = NULL;
    utf8proc_ssize_t n = utf8proc_map((const utf8proc_uint8_t *)text, len, &mapped,
                                      UTF8PROC_STABLE | UTF8PROC_COMPOSE);
    if (n < 0) {
        /* Not expected: the lexer only passes valid UTF-8. Keep the text as it is. */
        *out_len = len;
        return arena_strndup(arena, text, len);
    }
    char *copy = arena_strndup(arena, (const char *)mapped, (size_t)n);
    free(mapped);
    *out_len = (uint32_t)n;
    return copy;
}
