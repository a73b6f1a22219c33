/* Validation of `orbit.http.request` inputs: the URL, the method, headers and query. */
#include "http.h"

#include <stdbool.h>
#include <string.h>

static const char *const methods[] = { "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE",
                                       "OPTIONS" };

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* A character of an HTTP token (RFC 9110, tchar). */
static bool is_tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
           (c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static bool prefix_nocase(const char *text, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    if (len < n)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = text[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != prefix[i])
            return false;
    }
    return true;
}

/* `[host]:port`, `host:port` or `host`, after any `userinfo@`. */
static bool valid_host_port(const char *s, size_t len)
{
    size_t host_end = len;
    if (len > 0 && s[0] == '[') {
        const char *close = memchr(s, ']', len);
        if (!close || close == s + 1)
            return false;
        host_end = (size_t)(close - s) + 1;
        if (host_end < len && s[host_end] != ':')
            return false;
    } else {
        const char *colon = memchr(s, ':', len);
        if (colon)
            host_end = (size_t)(colon - s);
        if (host_end == 0)
            return false;
    }
    if (host_end == len)
        return true;
    size_t digits = len - host_end - 1;   /* after the ':' */
    if (digits < 1 || digits > 5)
        return false;
    unsigned port = 0;
    for (size_t i = host_end + 1; i < len; i++) {
        if (!is_digit((unsigned char)s[i]))
            return false;
        port = port * 10 + (unsigned)(s[i] - '0');
    }
    return port <= 65535;
}

/* An absolute http or https URL with a host, and no space or control character. */
static bool valid_url(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] <= 0x20 || s[i] == 0x7F)
            return false;
    size_t start;
    if (prefix_nocase(s, len, "http://"))
        start = 7;
    else if (prefix_nocase(s, len, "https://"))
        start = 8;
    else
        return false;
    size_t end = start;
    while (end < len && s[end] != '/' && s[end] != '?' && s[end] != '#')
        end++;
    size_t host = start;
    for (size_t i = start; i < end; i++)
        if (s[i] == '@')
            host = i + 1;
    return valid_host_port(s + host, end - host);
}

static bool valid_method(const Str *m)
{
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (m->len == strlen(methods[i]) && memcmp(m->text, methods[i], m->len) == 0)
            return true;
    return false;
}

static bool valid_token(const Str *s)
{
    for (size_t i = 0; i < s->len; i++)
        if (!is_tchar((unsigned char)s->text[i]))
            return false;
    return s->len > 0;
}

static bool valid_header_value(const Str *s)
{
    for (size_t i = 0; i < s->len; i++)
        if (s->text[i] == '\r' || s->text[i] == '\n' || s->text[i] == '\0')
            return false;
    return true;
}

static const char *quoted(Arena *a, const Str *s)
{
    TextBuffer b = { 0 };
    value_json_quote(&b, s->text, s->len);
    const char *text = arena_strndup(a, b.data, b.len);
    text_free(&b);
    return text;
}

/* `headers` (header names are tokens, values strings without CR, LF or NUL) or `query`
 * (values are strings): absent, null, or a record of strings. */
static const char *record_problem(Arena *a, const Record *req, const char *field, bool headers)
{
    const Value *v = value_record_get(req, field);
    if (!v || v->kind == ORBC_KIND_NULL)
        return NULL;
    if (v->kind != ORBC_KIND_RECORD)
        return arena_printf(a, "invalid request: `%s` must be a record of strings, found %s",
                            field, value_kind_name(*v));
    for (uint32_t i = 0; i < v->rec->count; i++) {
        const Str *name = v->rec->names[i];
        Value value = v->rec->values[i];
        if (headers && !valid_token(name))
            return arena_printf(a, "invalid request: header name %s is not an HTTP token",
                                quoted(a, name));
        if (value.kind != ORBC_KIND_STRING)
            return arena_printf(a, "invalid request: `%s` %s must be a string, found %s", field,
                                quoted(a, name), value_kind_name(value));
        if (headers && !valid_header_value(value.s))
            return arena_printf(a, "invalid request: header %s has a line break or NUL in its "
                                "value", quoted(a, name));
    }
    return NULL;
}

const char *http_request_problem(Arena *a, Value request)
{
    if (request.kind != ORBC_KIND_RECORD)
        return "invalid request: the input is not a record";
    const Record *req = request.rec;
    const Value *url = value_record_get(req, "url");
    if (!url || url->kind != ORBC_KIND_STRING)
        return "invalid request: `url` must be a string";
    if (!valid_url(url->s->text, url->s->len))
        return arena_printf(a, "invalid request: url %s is not an absolute http or https URL",
                            quoted(a, url->s));
    const Value *method = value_record_get(req, "method");
    if (method && method->kind == ORBC_KIND_STRING && !valid_method(method->s))
        return arena_printf(a, "invalid request: method %s is not one of GET, HEAD, POST, "
                            "PUT, PATCH, DELETE, OPTIONS", quoted(a, method->s));
    if (method && method->kind != ORBC_KIND_STRING && method->kind != ORBC_KIND_NULL)
        return arena_printf(a, "invalid request: `method` must be a string, found %s",
                            value_kind_name(*method));
    const char *problem = record_problem(a, req, "headers", true);
    return problem ? problem : record_problem(a, req, "query", false);
}
