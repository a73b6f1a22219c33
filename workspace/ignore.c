/* The .gitignore files and --exclude patterns of a directory walk (ignore.h). */
#include "ignore.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "memory.h"
#include "path_glob.h"

typedef struct Pattern {
    char *glob;          /* for path_glob_match: anchored, or "**" and "/" before it */
    bool negate;         /* `!pattern` */
    bool dir_only;       /* `pattern/` */
} Pattern;

/* The patterns of one .gitignore (or of the excludes). An entry `rel` below the walk's
 * top is tested as `lead` + `rel` without its first `strip` bytes: the path relative
 * to the directory of the file. */
typedef struct IgnoreFile {
    Pattern *items;
    size_t count;
    char *lead;
    size_t strip;
} IgnoreFile;

struct IgnoreStack {
    IgnoreFile *files;
    size_t count, cap;
    bool no_gitignore;
    IgnoreFile excludes;   /* --exclude, tested after the .gitignore files */
    const InputObserver *observer;
};

/* One line of a .gitignore into `file`; nothing for a blank line or a comment. */
static void add_line(IgnoreFile *file, const char *line, size_t len)
{
    while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\r' || line[len - 1] == '\t'))
        len--;
    if (len == 0 || line[0] == '#')
        return;
    Pattern p = { 0 };
    if (line[0] == '!') {
        p.negate = true;
        line++, len--;
    } else if (line[0] == '\\' && len > 1 && (line[1] == '#' || line[1] == '!')) {
        line++, len--;
    }
    if (len > 0 && line[len - 1] == '/') {
        p.dir_only = true;
        while (len > 0 && line[len - 1] == '/')
            len--;
    }
    if (len == 0)
        return;
    bool anchored = memchr(line, '/', len) != NULL;
    while (len > 0 && line[0] == '/')
        line++, len--;
    size_t size = len + 4;
    p.glob = xmalloc(size);
    snprintf(p.glob, size, "%s%.*s", anchored ? "" : "**/", (int)len, line);
    file->items = xrealloc(file->items, (file->count + 1) * sizeof *file->items);
    file->items[file->count++] = p;
}

static IgnoreFile *push_file(IgnoreStack *stack, const char *lead, size_t strip)
{
    if (stack->count == stack->cap) {
        stack->cap = stack->cap ? stack->cap * 2 : 8;
        stack->files = xrealloc(stack->files, stack->cap * sizeof *stack->files);
    }
    IgnoreFile *file = &stack->files[stack->count++];
    *file = (IgnoreFile){ NULL, 0, xstrdup(lead), strip };
    return file;
}

static char *join(const char *dir, const char *name)
{
    size_t size = strlen(dir) + strlen(name) + 2;
    char *path = xmalloc(size);
    snprintf(path, size, "%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] != '/' ? "/" : "", name);
    return path;
}

/* Reads `dir`/.gitignore, if there is one (a regular file), as a file of the stack. */
static void read_gitignore(IgnoreStack *stack, const char *dir, const char *lead, size_t strip)
{
    inputs_observe(stack->observer, INPUT_FOLLOW, dir, ".gitignore");
    char *path = join(dir, ".gitignore");
    struct stat st;
    FILE *f = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? fopen(path, "r") : NULL;
    free(path);
    if (!f)
        return;
    IgnoreFile *file = push_file(stack, lead, strip);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0)
        add_line(file, line, line[len - 1] == '\n' ? (size_t)len - 1 : (size_t)len);
    free(line);
    fclose(f);
}

/* The parents of the real directory `real` up to the top of its git repository, with
 * their .gitignore files, top first: lead is the path from each to `real`, plus "/". */
static void read_parents(IgnoreStack *stack, const char *real)
{
    size_t len = strlen(real);
    size_t top = SIZE_MAX;   /* the length of the repository's top directory */
    char *dir = xstrdup(real);
    for (size_t end = len; top == SIZE_MAX;) {
        dir[end] = '\0';
        inputs_observe(stack->observer, INPUT_LOOKUP, end ? dir : "/", ".git");
        char *git = join(end ? dir : "/", ".git");
        struct stat st;
        if (lstat(git, &st) == 0)
            top = end;
        free(git);
        char *slash = end ? strrchr(dir, '/') : NULL;
        if (!slash)
            break;
        end = (size_t)(slash - dir);
    }
    for (size_t end = top; end != SIZE_MAX && end < len;) {
        memcpy(dir, real, len + 1);
        dir[end] = '\0';
        size_t size = len - end + 1;
        char *lead = xmalloc(size + 1);
        snprintf(lead, size + 1, "%s/", real + end + 1);
        read_gitignore(stack, end ? dir : "/", lead, 0);
        free(lead);
        const char *next = strchr(real + end + 1, '/');
        end = next ? (size_t)(next - real) : len;
    }
    free(dir);
}

IgnoreStack *ignore_start(const InputIgnore *options, const char *dir,
                          const InputObserver *observer)
{
    IgnoreStack *stack = xcalloc(1, sizeof *stack);
    stack->observer = observer;
    stack->no_gitignore = options && options->no_gitignore;
    stack->excludes.lead = xstrdup("");
    for (int i = 0; options && i < options->exclude_count; i++)
        add_line(&stack->excludes, options->excludes[i], strlen(options->excludes[i]));
    if (!stack->no_gitignore) {
        char *real = realpath(dir, NULL);
        if (real)
            read_parents(stack, real);
        free(real);
        read_gitignore(stack, dir, "", 0);
    }
    return stack;
}

size_t ignore_enter(IgnoreStack *stack, const char *path, const char *rel, bool has_gitignore)
{
    size_t mark = stack->count;
    if (!stack->no_gitignore && has_gitignore)
        read_gitignore(stack, path, "", strlen(rel) + 1);
    return mark;
}

static void free_file(IgnoreFile *file)
{
    for (size_t i = 0; i < file->count; i++)
        free(file->items[i].glob);
    free(file->items);
    free(file->lead);
}

void ignore_leave(IgnoreStack *stack, size_t mark)
{
    while (stack->count > mark)
        free_file(&stack->files[--stack->count]);
}

/* The verdict of `file` on `rel`: 1 ignored, -1 re-included, 0 no pattern matches. */
static int file_verdict(const IgnoreFile *file, const char *rel, bool is_dir)
{
    if (file->count == 0 || strlen(rel) < file->strip)
        return 0;
    char *path = join(file->lead, rel + file->strip);
    int verdict = 0;
    for (size_t i = 0; i < file->count; i++) {
        const Pattern *p = &file->items[i];
        if ((!p->dir_only || is_dir) && path_glob_match(p->glob, path))
            verdict = p->negate ? -1 : 1;
    }
    free(path);
    return verdict;
}

bool ignore_matches(const IgnoreStack *stack, const char *rel, bool is_dir)
{
    int verdict = 0;
    for (size_t i = 0; stack && i < stack->count; i++) {
        int v = file_verdict(&stack->files[i], rel, is_dir);
        if (v)
            verdict = v;
    }
    int v = stack ? file_verdict(&stack->excludes, rel, is_dir) : 0;
    return (v ? v : verdict) > 0;
}

void ignore_free(IgnoreStack *stack)
{
    if (!stack)
        return;
    ignore_leave(stack, 0);
    free_file(&stack->excludes);
    free(stack->files);
    free(stack);
}
