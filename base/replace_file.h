/* Rewriting a user's source file in place (`orbitc fmt`, `orbitc fix`; docs/cli.md, "How
 * fmt and fix write files"). The file keeps its identity: its owner, group, mode and
 * extended attributes, its hard links, and its content when someone else changed it
 * after it was read. A file is refused, and left exactly as it is, rather than replaced
 * by one that differs in any of these:
 *
 *   - anything but a regular file (a FIFO, a device, /dev/fd/63 of `<(…)`): refused
 *     before it is opened for writing, without blocking on a FIFO;
 *   - a read-only file (no write bit in its mode, as gofmt and rustfmt judge it, even
 *     for root; or no write permission for the user);
 *   - a file in a directory that is read-only or refuses the temporary file;
 *   - a file that changed since it was read (device, inode, size, modification and
 *     change times to the nanosecond);
 *   - a file whose owner, group, mode or extended attributes the new file cannot get.
 *
 * A file with one link is replaced atomically: a temporary file in its directory,
 * created with its mode, given its owner, group and extended attributes before the
 * first byte, fsynced, then renamed over it. A file with more than one hard link is
 * written through instead (rewritten and truncated in place, keeping the inode that
 * every link names); that write is not atomic. A symbolic link is followed: its final
 * target is rewritten, the link stays. */
#ifndef ORBIT_REPLACE_FILE_H
#define ORBIT_REPLACE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* Why a file could not be opened or rewritten: the reason part of a message, e.g.
 * "the directory `rod` is not writable (Permission denied)". */
typedef struct ReplaceWhy {
    bool refused;      /* the file exists but is not one to rewrite (or changed);
                          false: a system call failed (text: its error) */
    char text[4400];   /* room for a path of PATH_MAX bytes and the words around it */
} ReplaceWhy;

/* Opens `path` for reading as a file to rewrite later, without blocking (a FIFO is
 * never waited for). Returns the descriptor of a regular file, with its identity in
 * *as_read; -1 with *why set otherwise (why->refused: it is not a regular file, and
 * *as_read says what it is, for replace_file_kind). */
int replace_file_open(const char *path, struct stat *as_read, ReplaceWhy *why);

/* What a file of this mode is, for a message: "a directory", "a FIFO", "a socket", …
 * ("not a regular file" for a kind without a name). */
const char *replace_file_kind(mode_t mode);

/* Whether `path` may be given to a command that rewrites it: a regular file, a directory
 * (walked for its files) or nothing, told without opening it (so a FIFO never blocks).
 * False with *why set (refused) for anything else. */
bool replace_file_kind_allowed(const char *path, ReplaceWhy *why);

/* Whether `path` still holds exactly `text` (read by someone else earlier); its identity
 * goes to *as_read. False with *why set when it does not, or cannot be read. */
bool replace_file_unchanged(const char *path, const char *text, size_t len,
                            struct stat *as_read, ReplaceWhy *why);

/* Whether replace_file would accept `path`, read as *as_read, as far as can be told
 * before writing: still the file read, a regular file, writable, in a writable
 * directory (one link), its owner and group ones this process can give. */
bool replace_file_allowed(const char *path, const struct stat *as_read, ReplaceWhy *why);

/* Replaces the content of `path`, read as *as_read, with the `len` bytes of `text`,
 * keeping its identity (above). False with *why set, the file untouched (except a
 * failed write through a hard-linked file, which says so). */
bool replace_file(const char *path, const struct stat *as_read, const char *text, size_t len,
                  ReplaceWhy *why);

/* Writes `path` whole, new or not, atomically and without keeping anything of a file it
 * replaces: a temporary file beside it (created with `mode`) renamed over it, so that a
 * reader (another process, another thread) sees the old file or the new one, never a
 * part. Not synced to the disk: for files that may be lost (the cache of `orbitc check`),
 * not for a user's. False with *why set, nothing left behind. */
bool replace_file_create(const char *path, const char *text, size_t len, mode_t mode,
                         ReplaceWhy *why);

#endif
