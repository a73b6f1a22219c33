/* `file:` URIs <-> file system paths (RFC 8089, with RFC 3986 percent-encoding). */
#ifndef ORBIT_LSP_URI_H
#define ORBIT_LSP_URI_H

/* The path of a `file:` URI (host empty or `localhost`), percent-decoded, malloc'd; NULL
 * for any other URI, or one whose path is not absolute or decodes to a NUL byte. */
char *lsp_uri_to_path(const char *uri);

/* The `file:` URI of an absolute path, malloc'd: every byte other than an unreserved
 * character or `/` is percent-encoded. */
char *lsp_uri_from_path(const char *path);

#endif
