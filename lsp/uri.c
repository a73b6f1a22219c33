/* file: URIs. */
#include "uri.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "memory.h"

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

char *lsp_uri_to_path(const char *uri)
{
    if (strncasecmp(uri, "file://", 7) != 0)
        return NULL;
    const char *p = uri + 7;
    if (strncasecmp(p, "localhost/", 10) == 0)
        p += 9;
    if (*p != '/')
        return NULL;
    size_t len = strlen(p);
    char *path = xmalloc(len + 1), *out = path;
    for (; *p && *p != '?' && *p != '#'; p++) {
        int hi, lo;
        if (*p == '%' && (hi = hex_value(p[1])) >= 0 && (lo = hex_value(p[2])) >= 0) {
            char byte = (char)(hi * 16 + lo);
            if (byte == '\0')
                break;
            *out++ = byte;
            p += 2;
        } else {
            *out++ = *p;
        }
    }
    if (*p && *p != '?' && *p != '#') {   /* stopped at an encoded NUL */
        free(path);
        return NULL;
    }
    *out = '\0';
    return path;
}

static bool is_unreserved(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
}

char *lsp_uri_from_path(const char *path)
{
    static const char HEX[] = "0123456789ABCDEF";
    size_t len = strlen(path);
    char *uri = xmalloc(7 + 3 * len + 1), *out = uri;
    memcpy(out, "file://", 7);
    out += 7;
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (is_unreserved(*p)) {
            *out++ = (char)*p;
        } else {
            *out++ = '%';
            *out++ = HEX[*p >> 4];
            *out++ = HEX[*p & 15];
        }
    }
    *out = '\0';
    return uri;
}
