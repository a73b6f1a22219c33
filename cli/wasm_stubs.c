/* What emscripten's C library lacks and the command line calls, for cli_main in the one
 * WebAssembly build (tools/playground_wasm.py; the npm package's fallback, docs/install.md,
 * "npm"). Each fails as on a system without it, and the command says so as it does
 * there: `check --watch` cannot watch (no inotify), `compat git:REV` cannot run git (no
 * processes), the number of processors is sysconf's, and a file system without extended
 * attributes has none to keep when a file is rewritten. Natively this file is empty. */
#ifdef __EMSCRIPTEN__
#define _GNU_SOURCE   /* cpu_set_t */
#include <errno.h>
#include <sched.h>
#include <spawn.h>
#include <stdint.h>
#include <sys/inotify.h>
#include <sys/types.h>
#include <sys/xattr.h>

int inotify_init1(int flags)
{
    (void)flags;
    errno = ENOSYS;
    return -1;
}

int inotify_add_watch(int fd, const char *path, uint32_t mask)
{
    (void)fd, (void)path, (void)mask;
    errno = ENOSYS;
    return -1;
}

int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
                 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    (void)pid, (void)file, (void)actions, (void)attr, (void)argv, (void)envp;
    errno = ENOSYS;   /* what the caller reports */
    return ENOSYS;
}

int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set)
{
    (void)pid, (void)size, (void)set;
    errno = ENOSYS;
    return -1;
}

int __sched_cpucount(size_t size, const cpu_set_t *set)
{
    (void)size, (void)set;
    return 0;
}

ssize_t flistxattr(int fd, char *list, size_t size)
{
    (void)fd, (void)list, (void)size;
    errno = ENOTSUP;
    return -1;
}

ssize_t fgetxattr(int fd, const char *name, void *value, size_t size)
{
    (void)fd, (void)name, (void)value, (void)size;
    errno = ENOTSUP;
    return -1;
}

int fsetxattr(int fd, const char *name, const void *value, size_t size, int flags)
{
    (void)fd, (void)name, (void)value, (void)size, (void)flags;
    errno = ENOTSUP;
    return -1;
}

int fremovexattr(int fd, const char *name)
{
    (void)fd, (void)name;
    errno = ENOTSUP;
    return -1;
}
#else
typedef int cli_wasm_stubs_empty;   /* ISO C wants something in a translation unit */
#endif
