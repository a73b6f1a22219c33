/* orbitc: the command line. Parses arguments, collects source files, runs the pipeline
 * (driver.c) and prints diagnostics. Exit status: 0 no errors, 1 errors found, 2 the
 * command itself could not run. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "driver.h"
#include "lower.h"
#include "orbc.h"
#include "version.h"


enum { EXIT_OK = 0, EXIT_ERRORS = 1, EXIT_USAGE = 2 };
enum { DEFAULT_MAX_DIAGNOSTICS = 200 };

typedef enum Format { FORMAT_HUMAN, FORMAT_JSON } Format;
typedef enum ColorMode { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } ColorMode;

typedef struct Options {
    const char *command;
    Format format;
    ColorMode color;
    bool deny_warnings;
    uint32_t max_diagnostics;
    const char *output;          /* build -o */
    const char **paths;
    int path_count;
    const char *allow[64];       /* --allow CODE */
    int allow_count;
    const char *warn[64];        /* --warn CODE */
    int warn_count;
} Options;

static const char usage_text[] =
    "orbitc " ORBIT_VERSION " - compiler and linter for the Orbit workflow language\n"
    "\n"
    "Usage:\n"
    "  orbitc check [OPTIONS] PATH...           check programs, print every diagnostic\n"
    "  orbitc build [OPTIONS] PATH... -o FILE   check, then write bytecode to FILE\n"
    "  orbitc dis FILE                          print the disassembly of a bytecode file\n"
    "  orbitc explain [CODE]                    explain a diagnostic code (all codes: no CODE)\n"
    "\n"
    "A PATH is an .orbit file or a directory (every *.orbit file below it, in sorted\n"
    "order). All files together, with the standard library, form one program.\n"
    "\n"
    "Options:\n"
    "  --format human|json     diagnostics for people (stderr) or JSON lines (stdout)\n"
    "  --color auto|always|never\n"
    "                          colour in human output (auto: on a terminal, unless NO_COLOR)\n"
    "  --deny-warnings         exit with status 1 when there are warnings\n"
    "  --warn CODE             enable a warning that is off by default (e.g. W0107)\n"
    "  --allow CODE            silence a warning\n"
    "  --max-diagnostics N     print at most N diagnostics (default 200, 0 = all)\n"
    "  -o, --output FILE       the bytecode file written by build\n"
    "  -h, --help              print this help\n"
    "  -V, --version           print the version\n"
    "\n"
    "Exit status: 0 no errors, 1 errors found, 2 the command could not run.\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "orbitc: error: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry `orbitc --help` for usage.\n");
    return EXIT_USAGE;
}

/* --- collecting source files --- */

typedef struct PathList {
    char **items;
    size_t count, cap;
} PathList;

static void path_list_push(PathList *list, char *path)
{
    if (list->count == list->cap) {
        list->cap = list->cap ? list->cap * 2 : 16;
        list->items = realloc(list->items, list->cap * sizeof *list->items);
        if (!list->items) {
            fprintf(stderr, "orbitc: out of memory\n");
            exit(EXIT_USAGE);
        }
    }
    list->items[list->count++] = path;
}

static void path_list_free(PathList *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->items[i]);
    free(list->items);
}

static char *join_path(const char *dir, const char *name)
{
    size_t dlen = strlen(dir), nlen = strlen(name);
    bool slash = dlen > 0 && dir[dlen - 1] != '/';
    char *path = malloc(dlen + slash + nlen + 1);
    if (!path) {
        fprintf(stderr, "orbitc: out of memory\n");
        exit(EXIT_USAGE);
    }
    memcpy(path, dir, dlen);
    if (slash)
        path[dlen] = '/';
    memcpy(path + dlen + slash, name, nlen + 1);
    return path;
}

static bool has_orbit_suffix(const char *name)
{
    size_t len = strlen(name);
    return len > 6 && strcmp(name + len - 6, ".orbit") == 0;
}

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends every *.orbit file below `dir` (hidden entries skipped, symlinks to
 * directories not followed). Returns false with errno set when `dir` cannot be read. */
static bool collect_dir(const char *dir, PathList *out, int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    struct dirent *entry;
    while ((entry = readdir(d)) != NULL) {
        if (entry->d_name[0] == '.')
            continue;
        char *path = join_path(dir, entry->d_name);
        struct stat st;
        if (lstat(path, &st) != 0) {
            free(path);
            continue;
        }
        if (S_ISDIR(st.st_mode) && depth < 64) {
            collect_dir(path, out, depth + 1);
            free(path);
        } else if ((S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) && has_orbit_suffix(entry->d_name)) {
            path_list_push(out, path);
        } else {
            free(path);
        }
    }
    closedir(d);
    return true;
}

/* Expands the command-line paths into the list of files, in order: each file as given,
 * each directory's files sorted. Returns EXIT_OK or EXIT_USAGE after printing why. */
static int collect_sources(const Options *opt, PathList *files)
{
    for (int i = 0; i < opt->path_count; i++) {
        const char *arg = opt->paths[i];
        struct stat st;
        if (stat(arg, &st) != 0) {
            fprintf(stderr, "orbitc: error: cannot read `%s`: %s\n", arg, strerror(errno));
            return EXIT_USAGE;
        }
        if (!S_ISDIR(st.st_mode)) {
            path_list_push(files, join_path("", arg));
            continue;
        }
        size_t before = files->count;
        if (!collect_dir(arg, files, 0)) {
            fprintf(stderr, "orbitc: error: cannot read directory `%s`: %s\n", arg, strerror(errno));
            return EXIT_USAGE;
        }
        if (files->count == before) {
            fprintf(stderr, "orbitc: error: no .orbit files in directory `%s`\n", arg);
            return EXIT_USAGE;
        }
        qsort(files->items + before, files->count - before, sizeof *files->items, compare_paths);
    }
    return EXIT_OK;
}

/* The same file named twice (directly or through a directory) is read once: marks in
 * `skip` every file whose real path appeared earlier in the list. O(n log n). */
typedef struct RealPath {
    char *real;
    size_t index;
} RealPath;

static int compare_real_paths(const void *a, const void *b)
{
    const RealPath *x = a, *y = b;
    int order = strcmp(x->real, y->real);
    if (order)
        return order;
    return x->index < y->index ? -1 : x->index > y->index;
}

static void mark_duplicates(const PathList *files, bool *skip)
{
    RealPath *paths = calloc(files->count ? files->count : 1, sizeof *paths);
    size_t count = 0;
    for (size_t i = 0; i < files->count; i++) {
        char *real = realpath(files->items[i], NULL);
        if (real)
            paths[count++] = (RealPath){ real, i };
    }
    qsort(paths, count, sizeof *paths, compare_real_paths);
    for (size_t i = 1; i < count; i++)
        if (strcmp(paths[i].real, paths[i - 1].real) == 0)
            skip[paths[i].index] = true;
    for (size_t i = 0; i < count; i++)
        free(paths[i].real);
    free(paths);
}

/* --- running --- */

static bool want_color(ColorMode mode)
{
    if (mode == COLOR_ALWAYS)
        return true;
    if (mode == COLOR_NEVER)
        return false;
    const char *no_color = getenv("NO_COLOR");
    if (no_color && no_color[0])
        return false;
    return isatty(STDERR_FILENO);
}

static int apply_lint_levels(const Options *opt, DiagSink *sink)
{
    for (int pass = 0; pass < 2; pass++) {
        int count = pass == 0 ? opt->allow_count : opt->warn_count;
        const char *const *codes = pass == 0 ? opt->allow : opt->warn;
        for (int i = 0; i < count; i++) {
            int code = diag_code_from_string(codes[i]);
            if (code < 0 || diag_info((DiagCode)code)->severity != SEV_WARNING)
                return usage_error("`%s` is not a warning code (see `orbitc explain`)", codes[i]);
            sink->level[code] = pass == 0 ? LINT_ALLOW : LINT_WARN;
        }
    }
    return EXIT_OK;
}

static void print_diagnostics(const Options *opt, Compiler *c)
{
    RenderOptions render = {
        .color = opt->format == FORMAT_HUMAN && want_color(opt->color),
        .max_shown = opt->max_diagnostics,
        .summary = true,
    };
    if (opt->format == FORMAT_JSON)
        render_json(stdout, &c->diags, &c->sources, &render);
    else
        render_human(stderr, &c->diags, &c->sources, &render);
    fflush(stdout);
}

/* Loads the sources and checks them; *program_out receives the checked program. Returns
 * EXIT_USAGE when a source cannot be read or an option is wrong, else EXIT_OK (the
 * diagnostics are not printed yet). */
static int load_and_check(const Options *opt, Compiler *c, Program **program_out)
{
    PathList files = { 0 };
    int status = collect_sources(opt, &files);
    if (status == EXIT_OK) {
        bool *skip = calloc(files.count ? files.count : 1, sizeof *skip);
        mark_duplicates(&files, skip);
        for (size_t i = 0; i < files.count && status == EXIT_OK; i++) {
            if (skip[i])
                continue;
            const char *error = NULL;
            if (!driver_add_file(c, files.items[i], &error)) {
                fprintf(stderr, "orbitc: error: cannot read `%s`: %s\n", files.items[i], error);
                status = EXIT_USAGE;
            }
        }
        free(skip);
    }
    path_list_free(&files);
    if (status != EXIT_OK)
        return status;
    if ((status = apply_lint_levels(opt, &c->diags)) != EXIT_OK)
        return status;
    *program_out = driver_check(c);
    return EXIT_OK;
}

/* The exit status the diagnostics deserve. */
static int diagnostics_status(const Options *opt, const Compiler *c)
{
    if (c->diags.errors > 0)
        return EXIT_ERRORS;
    if (opt->deny_warnings && c->diags.warnings > 0)
        return EXIT_ERRORS;
    return EXIT_OK;
}

static int command_check(const Options *opt)
{
    Compiler c;
    driver_init(&c);
    Program *program = NULL;
    int status = load_and_check(opt, &c, &program);
    if (status == EXIT_OK) {
        print_diagnostics(opt, &c);
        status = diagnostics_status(opt, &c);
    }
    driver_free(&c);
    return status;
}

/* build: check, then lower and write atomically. Nothing is written when the program has
 * errors (or warnings under --deny-warnings), including the limits of the bytecode format
 * that lowering reports (E0601), so an existing output file stays intact. The
 * diagnostics of both are printed together, in source order. */
static int command_build(const Options *opt)
{
    if (!opt->output)
        return usage_error("%s needs an output file: `orbitc build PATH... -o FILE.orbc`", "build");
    Compiler c;
    driver_init(&c);
    Program *program = NULL;
    int status = load_and_check(opt, &c, &program);
    if (status != EXIT_OK) {
        driver_free(&c);
        return status;
    }
    uint8_t *bytes = NULL;
    size_t len = 0;
    bool lowered = false;
    char why[256] = "";
    if (diagnostics_status(opt, &c) == EXIT_OK) {
        lowered = lower_program(&c, program, &bytes, &len, why, sizeof why);
        diag_finish(&c.diags);   /* lowering may have reported E0601 */
    }
    print_diagnostics(opt, &c);
    status = diagnostics_status(opt, &c);
    if (status == EXIT_OK && !lowered) {
        /* a limit found while the file was assembled, without a source position */
        fprintf(stderr, "orbitc: %s\n", why[0] ? why : "cannot build");
        status = EXIT_ERRORS;
    }
    OrbcError err;
    if (status == EXIT_OK && !orbc_write_file(opt->output, bytes, len, &err)) {
        fprintf(stderr, "orbitc: error: cannot write `%s`: %s\n", opt->output, err.text);
        status = EXIT_USAGE;
    }
    free(bytes);
    driver_free(&c);
    return status;
}

/* Reads a whole binary file, at most `limit` bytes plus one (so that an oversized file
 * reaches the loader, which names the limit). */
static uint8_t *read_binary(const char *path, size_t limit, size_t *len, const char **error)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        *error = strerror(errno);
        return NULL;
    }
    size_t cap = 1 << 16, used = 0;
    uint8_t *bytes = malloc(cap);
    while (bytes) {
        if (used == cap) {
            if (cap > limit)
                break;
            uint8_t *grown = realloc(bytes, cap * 2);
            if (!grown) {
                free(bytes);
                bytes = NULL;
                break;
            }
            bytes = grown;
            cap *= 2;
        }
        size_t got = fread(bytes + used, 1, cap - used, f);
        used += got;
        if (got == 0)
            break;
    }
    bool failed = ferror(f);
    fclose(f);
    if (!bytes || failed) {
        free(bytes);
        *error = bytes ? strerror(EIO) : "out of memory";
        return NULL;
    }
    *len = used;
    return bytes;
}

static int command_dis(const Options *opt)
{
    if (opt->path_count != 1)
        return usage_error("%s takes one bytecode file: `orbitc dis FILE.orbc`", "dis");
    const char *path = opt->paths[0];
    const char *error = NULL;
    size_t len = 0;
    uint8_t *bytes = read_binary(path, ORBC_MAX_FILE_SIZE, &len, &error);
    if (!bytes) {
        fprintf(stderr, "orbitc: error: cannot read `%s`: %s\n", path, error);
        return EXIT_USAGE;
    }
    OrbcModule module;
    OrbcError err;
    bool ok = orbc_load(bytes, len, &module, &err);
    free(bytes);
    if (!ok) {
        fprintf(stderr, "orbitc: error: `%s` is not a valid bytecode file: %s\n", path, err.text);
        return EXIT_ERRORS;
    }
    orbc_disassemble(&module, stdout);
    orbc_module_free(&module);
    return fflush(stdout) == 0 ? EXIT_OK : EXIT_USAGE;
}

static void print_code_list(void)
{
    for (int i = 0; i < DIAG_CODE_COUNT; i++) {
        const DiagInfo *info = diag_info((DiagCode)i);
        printf("%s  %-7s  %s\n", info->code,
               info->severity == SEV_ERROR ? "error" : info->default_on ? "warning" : "lint",
               info->title);
    }
}

static int command_explain(const Options *opt)
{
    if (opt->path_count == 0) {
        print_code_list();
        return EXIT_OK;
    }
    if (opt->path_count > 1)
        return usage_error("`explain` takes one code, e.g. `orbitc explain %s`", "E0410");
    char code[16];
    const char *arg = opt->paths[0];
    size_t len = strlen(arg);
    if (len >= sizeof code)
        return usage_error("no diagnostic code `%s` (see `orbitc explain` for the list)", arg);
    for (size_t i = 0; i <= len; i++)
        code[i] = (char)toupper((unsigned char)arg[i]);
    int found = diag_code_from_string(code);
    if (found < 0)
        return usage_error("no diagnostic code `%s` (see `orbitc explain` for the list)", arg);
    fputs(diag_explanation((DiagCode)found), stdout);
    return EXIT_OK;
}

/* --- arguments --- */

static int parse_choice(const char *option, const char *value, const char *const *choices,
                        int count, int *out)
{
    for (int i = 0; i < count; i++) {
        if (strcmp(value, choices[i]) == 0) {
            *out = i;
            return EXIT_OK;
        }
    }
    fprintf(stderr, "orbitc: error: invalid value `%s` for %s (expected", value, option);
    for (int i = 0; i < count; i++)
        fprintf(stderr, "%s `%s`", i == 0 ? "" : i == count - 1 ? " or" : ",", choices[i]);
    fprintf(stderr, ")\n");
    return EXIT_USAGE;
}

/* Splits "--name=value" or takes the next argument as the value. */
static const char *option_value(int argc, char **argv, int *i, const char *name)
{
    const char *arg = argv[*i];
    size_t len = strlen(name);
    if (strncmp(arg, name, len) == 0 && arg[len] == '=')
        return arg + len + 1;
    if (*i + 1 >= argc)
        return NULL;
    return argv[++*i];
}

static bool option_is(const char *arg, const char *name)
{
    size_t len = strlen(name);
    return strncmp(arg, name, len) == 0 && (arg[len] == '\0' || arg[len] == '=');
}

static int parse_args(int argc, char **argv, Options *opt, const char **paths)
{
    static const char *const formats[] = { "human", "json" };
    static const char *const colors[] = { "auto", "always", "never" };
    bool only_paths = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value;
        int choice;
        if (only_paths || arg[0] != '-' || strcmp(arg, "-") == 0) {
            if (!opt->command)
                opt->command = arg;
            else
                paths[opt->path_count++] = arg;
        } else if (strcmp(arg, "--") == 0) {
            only_paths = true;
        } else if (option_is(arg, "--format")) {
            if (!(value = option_value(argc, argv, &i, "--format")))
                return usage_error("%s needs a value: human or json", "--format");
            if (parse_choice("--format", value, formats, 2, &choice))
                return EXIT_USAGE;
            opt->format = (Format)choice;
        } else if (option_is(arg, "--color") || option_is(arg, "--colour")) {
            if (!(value = option_value(argc, argv, &i, arg[7] == 'u' ? "--colour" : "--color")))
                return usage_error("%s needs a value: auto, always or never", "--color");
            if (parse_choice("--color", value, colors, 3, &choice))
                return EXIT_USAGE;
            opt->color = (ColorMode)choice;
        } else if (strcmp(arg, "--deny-warnings") == 0) {
            opt->deny_warnings = true;
        } else if (option_is(arg, "--allow") || option_is(arg, "--warn")) {
            bool allow = arg[2] == 'a';
            if (!(value = option_value(argc, argv, &i, allow ? "--allow" : "--warn")))
                return usage_error("%s needs a warning code", allow ? "--allow" : "--warn");
            if ((allow ? opt->allow_count : opt->warn_count) >= 64)
                return usage_error("too many %s options", allow ? "--allow" : "--warn");
            if (allow)
                opt->allow[opt->allow_count++] = value;
            else
                opt->warn[opt->warn_count++] = value;
        } else if (option_is(arg, "--max-diagnostics")) {
            char *end;
            if (!(value = option_value(argc, argv, &i, "--max-diagnostics")))
                return usage_error("%s needs a number", "--max-diagnostics");
            errno = 0;
            unsigned long n = strtoul(value, &end, 10);
            if (*value == '\0' || *end != '\0' || errno || n > 1000000000ul || value[0] == '-')
                return usage_error("invalid number `%s` for --max-diagnostics", value);
            opt->max_diagnostics = (uint32_t)n;
        } else if (strcmp(arg, "-o") == 0 || option_is(arg, "--output")) {
            if (!(value = option_value(argc, argv, &i, arg[1] == 'o' ? "-o" : "--output")))
                return usage_error("%s needs a file name", "-o");
            opt->output = value;
        } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            opt->command = "help";
        } else if (strcmp(arg, "-V") == 0 || strcmp(arg, "--version") == 0) {
            opt->command = "version";
        } else {
            return usage_error("unknown option `%s`", arg);
        }
    }
    opt->paths = paths;
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    /* stderr is unbuffered by default: diagnostics would go out a character at a time.
     * Fully buffered here; everything is flushed at exit. */
    static char stderr_buffer[1 << 16];
    setvbuf(stderr, stderr_buffer, _IOFBF, sizeof stderr_buffer);

    const char **paths = calloc((size_t)argc + 1, sizeof *paths);
    Options opt = { .max_diagnostics = DEFAULT_MAX_DIAGNOSTICS };
    int status = parse_args(argc, argv, &opt, paths);
    if (status != EXIT_OK) {
        free(paths);
        return status;
    }
    const char *cmd = opt.command;
    if (!cmd || strcmp(cmd, "help") == 0) {
        fputs(usage_text, cmd ? stdout : stderr);
        status = cmd ? EXIT_OK : EXIT_USAGE;
    } else if (strcmp(cmd, "version") == 0) {
        printf("orbitc %s (bytecode %d.%d)\n", ORBIT_VERSION, ORBC_MAJOR, ORBC_MINOR);
    } else if (strcmp(cmd, "check") == 0) {
        status = opt.path_count ? command_check(&opt)
                                : usage_error("%s needs at least one file or directory", "check");
    } else if (strcmp(cmd, "build") == 0) {
        status = opt.path_count ? command_build(&opt)
                                : usage_error("%s needs at least one file or directory", "build");
    } else if (strcmp(cmd, "dis") == 0) {
        status = command_dis(&opt);
    } else if (strcmp(cmd, "explain") == 0) {
        status = command_explain(&opt);
    } else {
        status = usage_error("unknown command `%s` (commands: check, build, dis, explain)", cmd);
    }
    free(paths);
    return status;
}
