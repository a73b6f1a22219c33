/* The rounds of `orbitc fix`, in memory (docs/cli.md, "Fixing"): the fixes the last
 * check offers are applied, the result is checked again through the workspace's
 * pipeline, and so on until a round applies nothing. Nothing is printed or written
 * here: the command line (cli/fix_command.c) reports and writes what the rounds made,
 * the playground (playground/api.c) returns it, the fuzz target (fuzz/fuzz_fix.c)
 * checks its guarantees. How a round chooses its fixes: fix_rounds.c. */
#ifndef ORBIT_FIX_ROUNDS_H
#define ORBIT_FIX_ROUNDS_H

#include <stdbool.h>
#include <stdint.h>

#include "fix.h"
#include "workspace.h"

enum {
    /* Rounds of fixing and checking again before `fix` gives up (a fix that keeps
     * making work for another would otherwise never end), unless --max-rounds says. */
    FIX_MAX_ROUNDS = 10,
};

/* A source file of the run (index i + 1 of every round's compiler). */
typedef struct FixFile {
    char *path;
    char *original;            /* as read */
    uint32_t original_len;
    char *text;                /* with the fixes so far */
    uint32_t len;
    bool from_stdin;
    uint32_t fixed;            /* fixes applied */
    uint32_t by_code[DIAG_CODE_COUNT];
} FixFile;

/* A fix left out of a round, remembered for the report: "left" at the end where the
 * last check still offers it. */
typedef struct LeftFix {
    uint32_t file;
    DiagCode code;
    DiagCode brought;          /* the code of the diagnostic it would bring */
    const char *old_text;      /* the text it replaces (old_len bytes); malloc'd */
    uint32_t old_len;
    char *replacement;
} LeftFix;

typedef struct FixKey FixKey;

typedef struct FixRun {
    FixFile *files;
    uint32_t count;            /* the sources but the standard library */
    uint32_t rounds;
    uint32_t max_rounds;       /* at least 1 */
    bool gave_up;              /* fixes were left after the last round */
    FixKey *baseline;          /* the diagnostics before any fix, sorted */
    uint32_t baseline_count;
    LeftFix *left;             /* sorted (compare_left) up to left_sorted */
    uint32_t left_count, left_cap, left_sorted;
    Workspace *workspace;      /* the programs and their configurations */
    Compiler *first;           /* the workspace's check, before any fix */
    bool unsafe;               /* maybe-incorrect fixes too (`fix --unsafe-fixes`); set
                                  after rounds_init */
    /* Called for each fix a round applies, with the check whose text it edits; NULL:
       none (`fix --show-fixes` sets it after rounds_init). */
    void (*applied)(void *context, const Compiler *c, const FixEdit *e);
    void *applied_context;
} FixRun;

/* Takes the files of `workspace`, already loaded and checked (workspace_check); the one
 * named `stdin_path` (NULL: none) is standard input's. */
void rounds_init(FixRun *run, Workspace *workspace, const char *stdin_path,
                  uint32_t max_rounds);

/* Rounds until one applies nothing or max_rounds have run; the files' texts are the
 * fixed ones, and run->gave_up says whether fixes were still untried at the end.
 * Returns the last check, whose sources hold the fixed texts: run->first when no fix
 * was applied, else one to free with rounds_free_check. */
Compiler *rounds_run(FixRun *run);

/* The fix left out by a round that edit `e` (of `c`) repeats, or NULL. */
const LeftFix *rounds_was_left(FixRun *run, const Compiler *c, const FixEdit *e);

/* Whether the fixes changed the file's text. */
bool rounds_file_changed(const FixFile *f);

void rounds_free(FixRun *run);

/* Frees a check the rounds made (never the workspace's own). */
void rounds_free_check(Compiler *c);

/* The rounds alone (the fuzz target): returns the last check (workspace->c when no fix
 * was applied); *unfinished: fixes were still untried when max_rounds ran out. */
Compiler *rounds_in_memory(Workspace *workspace, uint32_t max_rounds, bool *unfinished);

#endif
