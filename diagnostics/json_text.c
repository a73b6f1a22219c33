/* JSON string text (json_text.h). */
#include "json_text.h"

#include <string.h>

#include "memory.h"
#include "utf8.h"

static const char REPLACEMENT[] = "\xEF\xBF\xBD";   /* U+FFFD */

json_t *diag_json_text(const char *text, size_t len)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t i = 0;
    while (i < len) {                      /* most text is valid: no copy then */
        int32_t cp;
        uint32_t n = utf8_decode(p + i, len - i, &cp);
        if (cp < 0)
            break;                         /* (an invalid last byte too) */
        i += n;
    }
    json_t *s;
    if (i >= len) {
        s = json_stringn_nocheck(text, len);
    } else {
        char *clean = xmalloc(len * 3 + 1), *out = clean;
        for (i = 0; i < len;) {
            int32_t cp;
            uint32_t n = utf8_decode(p + i, len - i, &cp);
            if (cp < 0) {
                memcpy(out, REPLACEMENT, 3);
                out += 3;
            } else {
                memcpy(out, p + i, n);
                out += n;
            }
            i += n;
        }
        s = json_stringn_nocheck(clean, (size_t)(out - clean));
        free(clean);
    }
    if (!s)
        out_of_memory();
    return s;
}

json_t *diag_json_text0(const char *text)
{
    return text ? diag_json_text(text, strlen(text)) : diag_json_text("", 0);
}

void diag_json_write_text(FILE *out, const char *text, size_t len)
{
    const unsigned char *p = (const unsigned char *)text;
    fputc('"', out);
    for (size_t i = 0; i < len;) {
        int32_t cp;
        uint32_t n = utf8_decode(p + i, len - i, &cp);
        if (cp < 0)
            fputs(REPLACEMENT, out);
        else if (cp == '"')
            fputs("\\\"", out);
        else if (cp == '\\')
            fputs("\\\\", out);
        else if (cp == '\n')
            fputs("\\n", out);
        else if (cp == '\r')
            fputs("\\r", out);
        else if (cp == '\t')
            fputs("\\t", out);
        else if (cp < 0x20 || cp == 0x7F || cp == 0x2028 || cp == 0x2029)
            fprintf(out, "\\u%04x", (unsigned)cp);
        else
            fwrite(p + i, 1, n, out);
        i += n;
    }
    fputc('"', out);
}

void diag_json_write(FILE *out, json_t *value)
{
    json_dumpf(value, out, JSON_INDENT(2));
    fputc('\n', out);
    json_decref(value);
}
