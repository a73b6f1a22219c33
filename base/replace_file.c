/* The in-place writer of users' source files (replace_file.h): every refusal is decided
 * on the file as it is now, compared with the file as it was read. */
#define _GNU_SOURCE
#include "replace_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "memory.h"

static bool say(ReplaceWhy *why, bool refused, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Sets *why and returns false, so that a failing step can `return say(…)`. */
static bool say(ReplaceWhy *why, bool refused, const char *format, ...)
{
    why->refused = refused;
    va_list args;
    va_start(args, format);
    vsnprintf(why->text, sizeof why->text, format, args);
    va_end(args);
    return false;
}

const char *replace_file_kind(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISDIR(mode))
        return "a directory";
    return "not a regular file";
}

static bool refuse_kind(ReplaceWhy *why, mode_t mode)
{
    return say(why, true, "it is %s, not a regular file: only a regular file is rewritten in "
                          "place (give a stream as standard input, `-`)", replace_file_kind(mode));
}

/* The same file, unchanged: a rename over it, a write to it, a chmod or chown all move
 * one of these. */
static bool same_identity(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size
        && a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec
        && a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static bool refuse_changed(ReplaceWhy *why)
{
    return say(why, true, "it changed since it was read; it was left as it is (run the "
                          "command again)");
}

int replace_file_open(const char *path, struct stat *as_read, ReplaceWhy *why)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        say(why, false, "%s", strerror(errno));
        return -1;
    }
    bool ok = fstat(fd, as_read) == 0 || say(why, false, "%s", strerror(errno));
    if (ok && !S_ISREG(as_read->st_mode))
        ok = refuse_kind(why, as_read->st_mode);
    if (!ok) {
        close(fd);
        return -1;
    }
    return fd;
}

bool replace_file_kind_allowed(const char *path, ReplaceWhy *why)
{
    struct stat st;
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
        return true;   /* what cannot be found is reported by the reader */
    return refuse_kind(why, st.st_mode);
}

/* Whether the rest of `fd` is exactly the `len` bytes of `text`. */
static bool reads_as(int fd, const char *text, size_t len, ReplaceWhy *why)
{
    char chunk[1 << 16];
    size_t at = 0;
    for (;;) {
        ssize_t got = read(fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return say(why, false, "%s", strerror(errno));
        if (got == 0)
            return at == len || refuse_changed(why);
        if ((size_t)got > len - at || memcmp(chunk, text + at, (size_t)got) != 0)
            return refuse_changed(why);
        at += (size_t)got;
    }
}

bool replace_file_unchanged(const char *path, const char *text, size_t len,
                            struct stat *as_read, ReplaceWhy *why)
{
    int fd = replace_file_open(path, as_read, why);
    if (fd < 0)
        return false;
    bool same = reads_as(fd, text, len, why);
    close(fd);
    return same;
}

/* --- where the file is, what may be done to it --- */

/* The file that `path` names once symbolic links are followed (malloc'd): a link stays a
 * link, its final target is rewritten in its own directory. */
static char *target_of(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        char *target = realpath(path, NULL);
        if (target)
            return target;
    }
    return xstrdup(path);
}

/* The directory holding `target`, as the user would name it (malloc'd). */
static char *directory_of(const char *target)
{
    const char *slash = strrchr(target, '/');
    if (!slash)
        return xstrdup(".");
    return xstrndup(target, slash == target ? 1 : (size_t)(slash - target));
}

/* Whether a new file of this process can be given the owner and group of `st`. */
static bool can_give_owner(const struct stat *st)
{
    if (geteuid() == 0)
        return true;
    if (st->st_uid != geteuid())
        return false;
    if (st->st_gid == getegid())
        return true;
    gid_t groups[256];
    int count = getgroups(256, groups);
    for (int i = 0; i < count; i++)
        if (groups[i] == st->st_gid)
            return true;
    return false;
}

static bool directory_allowed(const char *target, ReplaceWhy *why)
{
    char *dir = directory_of(target);
    struct stat st;
    bool ok = true;
    if (stat(dir, &st) == 0 && (st.st_mode & 0222) == 0)
        ok = say(why, true, "the directory `%s` is read-only (mode %04o)", dir,
                 (unsigned)(st.st_mode & 07777));
    else if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) != 0)
        ok = say(why, true, "the directory `%s` is not writable (%s)", dir, strerror(errno));
    free(dir);
    return ok;
}

/* Every refusal that the file as it is now (`now`, at `target`) deserves. */
static bool file_allowed(const char *target, const struct stat *as_read, const struct stat *now,
                         ReplaceWhy *why)
{
    if (!S_ISREG(now->st_mode))
        return refuse_kind(why, now->st_mode);
    if (!same_identity(as_read, now))
        return refuse_changed(why);
    if ((now->st_mode & 0222) == 0)
        return say(why, true, "the file is read-only (mode %04o)", (unsigned)(now->st_mode & 07777));
    if (faccessat(AT_FDCWD, target, W_OK, AT_EACCESS) != 0)
        return say(why, true, "the file is not writable for this user (%s)", strerror(errno));
    if (now->st_nlink > 1)
        return true;   /* written through: its directory, owner and group play no part */
    if (!directory_allowed(target, why))
        return false;
    if (!can_give_owner(now))
        return say(why, true, "its owner and group (%u:%u) cannot be kept by this user, who "
                              "could only replace it with a file of their own",
                   (unsigned)now->st_uid, (unsigned)now->st_gid);
    return true;
}

bool replace_file_allowed(const char *path, const struct stat *as_read, ReplaceWhy *why)
{
    char *target = target_of(path);
    struct stat now;
    bool ok = stat(target, &now) == 0 ? file_allowed(target, as_read, &now, why)
                                      : say(why, false, "%s", strerror(errno));
    free(target);
    return ok;
}

/* --- writing --- */

static bool write_all_at(int fd, const char *text, size_t len)
{
    for (size_t at = 0; at < len;) {
        ssize_t n = pwrite(fd, text + at, len - at, (off_t)at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            errno = EIO;
        if (n <= 0)
            return false;
        at += (size_t)n;
    }
    return true;
}

/* A file with several hard links: rewritten in its own inode, so every link sees it. */
static bool write_through(const char *target, const struct stat *as_read, const char *text,
                          size_t len, ReplaceWhy *why)
{
    int fd = open(target, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return say(why, false, "%s", strerror(errno));
    struct stat now;
    bool ok = fstat(fd, &now) == 0 ? same_identity(as_read, &now) || refuse_changed(why)
                                   : say(why, false, "%s", strerror(errno));
    if (ok && !(write_all_at(fd, text, len) && ftruncate(fd, (off_t)len) == 0 && fsync(fd) == 0))
        ok = say(why, false, "%s; the file, written in place for its %u hard links, may be "
                             "left partly written", strerror(errno), (unsigned)now.st_nlink);
    if (close(fd) != 0 && ok)
        ok = say(why, false, "%s", strerror(errno));
    return ok;
}

/* The names of the extended attributes of `fd` ("a\0b\0"), malloc'd, *len bytes; NULL
 * with errno set. A file system without them has none. */
static char *xattr_names(int fd, size_t *len)
{
    for (;;) {
        ssize_t size = flistxattr(fd, NULL, 0);
        if (size < 0 && (errno == ENOTSUP || errno == ENODATA))
            size = 0;
        if (size < 0)
            return NULL;
        char *names = xmalloc((size_t)size + 1);
        ssize_t got = size ? flistxattr(fd, names, (size_t)size) : 0;
        if (got >= 0) {
            *len = (size_t)got;
            return names;
        }
        free(names);
        if (errno != ERANGE)   /* ERANGE: one was added meanwhile */
            return NULL;
    }
}

static bool has_name(const char *names, size_t len, const char *name)
{
    for (size_t at = 0; at < len; at += strlen(names + at) + 1)
        if (strcmp(names + at, name) == 0)
            return true;
    return false;
}

/* Copies one extended attribute of `from` to `to`. */
static bool copy_xattr(int from, int to, const char *name)
{
    for (;;) {
        ssize_t size = fgetxattr(from, name, NULL, 0);
        if (size < 0)
            return false;
        char *value = xmalloc((size_t)size + 1);
        ssize_t got = size ? fgetxattr(from, name, value, (size_t)size) : 0;
        bool ok = got >= 0 && fsetxattr(to, name, value, (size_t)got, 0) == 0;
        int saved = errno;
        free(value);
        errno = saved;
        if (ok || got >= 0 || errno != ERANGE)
            return ok;
    }
}

/* The new file `to` gets exactly the extended attributes of `from` (the ones a new file
 * inherits, a directory's default ACL, are removed when the file has none). */
static bool copy_xattrs(int from, int to, ReplaceWhy *why)
{
    size_t from_len = 0, to_len = 0;
    char *from_names = xattr_names(from, &from_len);
    if (!from_names)
        return say(why, false, "its extended attributes cannot be read (%s)", strerror(errno));
    char *to_names = xattr_names(to, &to_len);
    bool ok = to_names || say(why, false, "%s", strerror(errno));
    for (size_t at = 0; ok && at < from_len; at += strlen(from_names + at) + 1)
        if (!copy_xattr(from, to, from_names + at))
            ok = say(why, true, "its extended attribute `%s` cannot be kept (%s)",
                     from_names + at, strerror(errno));
    for (size_t at = 0; ok && at < to_len; at += strlen(to_names + at) + 1)
        if (!has_name(from_names, from_len, to_names + at)
            && fremovexattr(to, to_names + at) != 0 && errno != ENODATA)
            ok = say(why, true, "a new file gets the extended attribute `%s`, which it does "
                                "not have, and it cannot be removed (%s)", to_names + at,
                     strerror(errno));
    free(from_names);
    free(to_names);
    return ok;
}

/* The temporary file `temp` (open as `fd`) gets the owner, group, mode and extended
 * attributes of `now` (open as `old`), before any byte is written. */
static bool give_identity(int fd, int old, const struct stat *now, ReplaceWhy *why)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return say(why, false, "%s", strerror(errno));
    if ((st.st_uid != now->st_uid || st.st_gid != now->st_gid)
        && fchown(fd, now->st_uid, now->st_gid) != 0)
        return say(why, true, "its owner and group (%u:%u) cannot be kept (%s)",
                   (unsigned)now->st_uid, (unsigned)now->st_gid, strerror(errno));
    if (fchmod(fd, now->st_mode & 07777) != 0)   /* after fchown, which clears set-id bits */
        return say(why, true, "its mode %04o cannot be kept (%s)",
                   (unsigned)(now->st_mode & 07777), strerror(errno));
    return copy_xattrs(old, fd, why);
}

/* Creates a new file beside `target` with `mode` (narrowed by the umask until fchmod),
 * its name in *temp (malloc'd). The descriptor, or -1 with errno set and *temp NULL. */
static int create_temp(const char *target, mode_t mode, char **temp)
{
    char *dir = directory_of(target);
    for (unsigned attempt = 0; attempt < 100; attempt++) {
        size_t size = strlen(dir) + 64;
        *temp = xmalloc(size);
        snprintf(*temp, size, "%s/.orbitc-%ld-%u.tmp", dir, (long)getpid(), attempt);
        int fd = open(*temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, mode);
        if (fd >= 0) {
            free(dir);
            return fd;
        }
        int error = errno;
        free(*temp);
        *temp = NULL;
        if (error != EEXIST) {
            free(dir);
            errno = error;
            return -1;
        }
    }
    free(dir);
    errno = EEXIST;
    return -1;
}

static bool refuse_temp(const char *target, int error, ReplaceWhy *why)
{
    char *dir = directory_of(target);
    if (error == EACCES || error == EPERM || error == EROFS)
        say(why, true, "the directory `%s` is not writable (%s)", dir, strerror(error));
    else
        say(why, false, "cannot create a temporary file in `%s` (%s)", dir, strerror(error));
    free(dir);
    return false;
}

/* fsync the directory holding `target`, so the rename itself is durable. */
static void sync_directory(const char *target)
{
    char *dir = directory_of(target);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(dir);
}

/* A file with one link: a new file with its identity, renamed over it at once, unless it
 * changed meanwhile. */
static bool replace_atomically(const char *target, int old, const struct stat *now,
                               const struct stat *as_read, const char *text, size_t len,
                               ReplaceWhy *why)
{
    char *temp = NULL;
    int fd = create_temp(target, now->st_mode & 0777, &temp);
    if (fd < 0)
        return refuse_temp(target, errno, why);
    bool ok = give_identity(fd, old, now, why);
    if (ok && !(write_all_at(fd, text, len) && fsync(fd) == 0))
        ok = say(why, false, "%s", strerror(errno));
    if (close(fd) != 0 && ok)
        ok = say(why, false, "%s", strerror(errno));
    struct stat last;
    if (ok && (stat(target, &last) != 0 || !same_identity(as_read, &last)))
        ok = refuse_changed(why);   /* the last look, just before the rename */
    if (ok && rename(temp, target) != 0)
        ok = say(why, false, "%s", strerror(errno));
    if (!ok)
        unlink(temp);
    else
        sync_directory(target);
    free(temp);
    return ok;
}

bool replace_file(const char *path, const struct stat *as_read, const char *text, size_t len,
                  ReplaceWhy *why)
{
    char *target = target_of(path);
    int old = open(target, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat now;
    bool ok = old >= 0 && fstat(old, &now) == 0;
    if (!ok)
        say(why, false, "%s", strerror(errno));
    ok = ok && file_allowed(target, as_read, &now, why);
    if (ok && now.st_nlink > 1)
        ok = write_through(target, as_read, text, len, why);
    else if (ok)
        ok = replace_atomically(target, old, &now, as_read, text, len, why);
    if (old >= 0)
        close(old);
    free(target);
    return ok;
}

bool replace_file_create(const char *path, const char *text, size_t len, mode_t mode,
                         ReplaceWhy *why)
{
    char *temp = NULL;
    int fd = create_temp(path, mode, &temp);
    if (fd < 0)
        return refuse_temp(path, errno, why);
    bool ok = write_all_at(fd, text, len) || say(why, false, "%s", strerror(errno));
    if (close(fd) != 0 && ok)
        ok = say(why, false, "%s", strerror(errno));
    if (ok && rename(temp, path) != 0)
        ok = say(why, false, "%s", strerror(errno));
    if (!ok)
        unlink(temp);
    free(temp);
    return ok;
}
