/* Text in the formats CI systems read (textbuf.h): XML 1.0, GitHub Actions' workflow
 * commands, TAP 14 descriptions and YAML strings, each writer seeing valid UTF-8 (a byte
 * that is not becomes U+FFFD). */
#include "textbuf.h"

#include <stdbool.h>
#include <stdint.h>

#include "utf8.h"

/* The code point at *s (U+FFFD for a byte that is not valid UTF-8); *s moves past it.
 * The NUL at the end stops the decoder (it breaks any sequence), so it reads no further. */
static int32_t next_char(const char **s)
{
    int32_t cp;
    uint32_t n = utf8_decode((const unsigned char *)*s, 4, &cp);
    *s += n;
    return cp < 0 ? 0xFFFD : cp;
}

static void put_char(TextBuffer *out, int32_t cp)
{
    char bytes[4];
    text_append(out, bytes, utf8_write(cp, bytes));
}

/* What XML 1.0 allows in a document (its production Char). */
static bool xml_char(int32_t c)
{
    return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
           (c >= 0xE000 && c <= 0xFFFD) || c >= 0x10000;
}

void text_xml(TextBuffer *out, const char *text, bool attribute)
{
    const char *s = text ? text : "";
    while (*s) {
        int32_t c = next_char(&s);
        if (!xml_char(c))
            continue;
        switch (c) {
        case '&': text_append_str(out, "&amp;"); break;
        case '<': text_append_str(out, "&lt;"); break;
        case '>': text_append_str(out, "&gt;"); break;
        case '"': text_append_str(out, "&quot;"); break;
        case '\'': text_append_str(out, "&apos;"); break;
        case '\r': text_append_str(out, "&#13;"); break;
        case '\n':
        case '\t':
            if (attribute)
                text_printf(out, "&#%d;", (int)c);
            else
                put_char(out, c);
            break;
        default: put_char(out, c); break;
        }
    }
}

void text_xml_attribute(TextBuffer *out, const char *name, const char *value)
{
    text_printf(out, " %s=\"", name);
    text_xml(out, value, true);
    text_append_str(out, "\"");
}

void text_github(TextBuffer *out, const char *text, bool property)
{
    const char *s = text ? text : "";
    while (*s) {
        int32_t c = next_char(&s);
        if (c == '%' || c == '\r' || c == '\n' || (property && (c == ':' || c == ',')))
            text_printf(out, "%%%02X", (unsigned)c);
        else
            put_char(out, c);
    }
}

/* A test point's description: one line, `#` and `\` escaped (TAP 14), control
 * characters as spaces. */
void text_tap_description(TextBuffer *out, const char *text)
{
    const char *s = text ? text : "";
    while (*s) {
        int32_t c = next_char(&s);
        if (c == '#' || c == '\\')
            text_printf(out, "\\%c", (char)c);
        else if (c < 0x20 || c == 0x7f)
            text_append_str(out, " ");
        else
            put_char(out, c);
    }
}

/* A YAML double-quoted scalar, with only the escapes YAML and Perl's TAP::Parser both
 * read. */
void text_yaml_string(TextBuffer *out, const char *text)
{
    const char *s = text ? text : "";
    text_append_str(out, "\"");
    while (*s) {
        int32_t c = next_char(&s);
        switch (c) {
        case '"': text_append_str(out, "\\\""); break;
        case '\\': text_append_str(out, "\\\\"); break;
        case '\n': text_append_str(out, "\\n"); break;
        case '\r': text_append_str(out, "\\r"); break;
        case '\t': text_append_str(out, "\\t"); break;
        default:
            if (c < 0x20 || c == 0x7f)
                text_printf(out, "\\x%02X", (unsigned)c);
            else
                put_char(out, c);
            break;
        }
    }
    text_append_str(out, "\"");
}
