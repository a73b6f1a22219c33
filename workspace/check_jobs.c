/* workspace_check_jobs (workspace.h): the pipeline of `orbitc check` over several
 * threads, with the cache.
 *
 * The run's compiler holds every source and parses only the programs' configurations
 * (workspace_prepare with Workspace.parse_programs false). Each thread has a compiler of
 * its own over the same sources at the same positions (compiler_init_view): its arena,
 * its names, its diagnostics, the standard library parsed once, when it first parses a
 * program. Two ways to share the work:
 *
 * - By program, when there are at least as many programs as threads: a thread takes the
 *   next program not taken, parses its files and checks them (or reads its diagnostics
 *   from the cache).
 * - By file, when there are fewer (one program of 10,000 files): the programs are taken
 *   one after the other; the threads parse the files of one between them, each file into
 *   the tree of the thread that took it, with the names shared (interner_share: the
 *   same Name for the same text, whichever thread met it first); then thread 0 takes the
 *   other threads' trees and parse diagnostics, file by file, and checks the program. The
 *   checker's declarations are checked on thread 0 alone; its passes over the workflows
 *   (signatures, bodies) are spread over all the threads again, through the hook of
 *   thread 0's checks (CheckOptions.threads, run_on_threads), the diagnostics copied back
 *   into thread 0's sink in the order of the workflows (compiler/check/check.c).
 *
 * Either way, once a program is checked, its diagnostics are copied into a sink of the
 * thread's own (`kept`, in an arena of its own) and the rest is forgotten
 * (compiler_rewind) when the thread takes its next program (forget_held): a thread holds
 * the trees, names and checker's data of one program at a time, in memory reused from
 * one to the next, and after its last program forgets nothing it is about to free. When every thread is done, the
 * diagnostics are copied into the run's sink program by program, in the order of the
 * programs, and finished there: the same sort as a run on one thread, so the output is
 * the same byte for byte whatever the number of threads. (Sorting is by file, position
 * and report order; the parse diagnostics of one file come from one thread in the order
 * it made them, and all of a program's come before its checker's.) */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "check_cache.h"
#include "memory.h"
#include "sort.h"
#include "workspace.h"

/* Where the diagnostics of one program are: items [first, end) of a worker's `kept`;
 * in the sharing by file, where one file's parse diagnostics are in `worker`'s
 * compiler's sink. */
typedef struct Share {
    uint32_t worker;
    uint32_t first, end;
} Share;

typedef struct Worker Worker;

typedef struct Jobs {
    Workspace *w;
    CheckCache *cache;        /* NULL: no cache */
    Worker *workers;
    uint32_t started;         /* threads running besides this one */
    Share *shares;            /* [roots.count] */
    atomic_uint next;         /* the next program to take */

    /* The sharing by file: */
    bool by_file;
    Arena names_arena;        /* the names of every thread (interner_share) */
    Interner names;
    pthread_mutex_t names_lock;
    pthread_mutex_t lock;     /* guards what follows */
    pthread_cond_t wake;      /* a program to parse, or the end */
    pthread_cond_t parsed;    /* one more thread done with the job */
    uint32_t generation;      /* counts the jobs handed out */
    uint32_t done;            /* threads done with the current one */
    bool quit;
    ThreadTask task;          /* the job: this task (CheckOptions.threads), or when NULL, */
    void *task_arg;
    const Root *root;         /* parsing this program */
    Share *files;             /* [root->file_count]: who parsed each file */
    uint32_t *order;          /* [root->file_count]: the files in the order taken */
    atomic_uint next_file;    /* the next of `order` to take */
} Jobs;

struct Worker {
    Jobs *jobs;
    uint32_t index;
    Compiler c;
    CheckOptions check;       /* the run's, with the threads lent to worker 0's checks */
    Arena kept_arena;
    DiagSink kept;            /* the diagnostics of the programs done, in their order */
    bool stdlib_kept;         /* c holds the standard library's tree (compiler_keep) */
    const Root *held;         /* the program c still holds, done (forget_held), or NULL */
    pthread_t thread;
    bool started;
};

/* Reads program `root`'s diagnostics from the cache into wk's compiler, if it is there;
 * `key` is its key (0 without the cache). */
static bool load_cached(Worker *wk, uint32_t root, uint64_t *key)
{
    Jobs *jobs = wk->jobs;
    *key = 0;
    if (!jobs->cache || jobs->w->roots.items[root].file_count == 0)
        return false;
    *key = cache_key(jobs->cache, jobs->w, root);
    return cache_load(jobs->cache, jobs->w, root, *key, &wk->c);
}

/* Parses `files` with the lint levels of a parse of all files. */
static void parse_files(Worker *wk, const uint32_t *files, uint32_t count)
{
    memset(wk->c.diags.level, LINT_DEFAULT, sizeof wk->c.diags.level);
    compiler_parse_only(&wk->c, files, count);
}

static void parse_stdlib(Worker *wk)
{
    if (wk->stdlib_kept)   /* once per thread, when first needed */
        return;
    uint32_t stdlib = 0;
    compiler_parse_only(&wk->c, &stdlib, 1);
    compiler_keep(&wk->c);
    wk->stdlib_kept = true;
}

/* A program to be checked whose orbit.program the file index let the run leave unread
 * (Root.config_unread: it has no mistake and no `files` block): read, parsed and
 * configured here, on the thread, for this program's lint levels. */
static void configure_unread(Workspace *w, Compiler *c, Root *r)
{
    workspace_load_sources(w, c, &r->config_file, 1);
    compiler_parse_only(c, &r->config_file, 1);
    root_config_read(c, r);
}

/* Checks program `root`, parsed, and stores its diagnostics since `first` in the cache. */
static void check_parsed(Worker *wk, uint32_t root, uint64_t key, uint32_t first)
{
    Jobs *jobs = wk->jobs;
    Compiler *c = &wk->c;
    Root *r = &jobs->w->roots.items[root];
    if (r->config_unread)
        configure_unread(jobs->w, c, r);
    roots_check(&jobs->w->roots, c, root, jobs->w->overrides, &wk->check);
    if (r->config_unread) {   /* its tree and name are this program's, forgotten next */
        c->asts[r->config_file] = NULL;
        r->name = r->default_name;
    }
    if (jobs->cache)
        cache_store(jobs->cache, jobs->w, root, key, c, first, c->diags.count);
}

/* Forgets the program that wk's compiler still holds, if any, before it takes another
 * (compiler_rewind: the table of names cleared, the arena rewound). Not done after a
 * thread's last program: the compiler is freed then, and clearing a table of names as
 * large as the program's cost about a byte's instruction per byte of the table. */
static void forget_held(Worker *wk)
{
    if (wk->held)
        compiler_rewind(&wk->c, wk->held->files, wk->held->file_count);
    wk->held = NULL;
}

/* Copies program `root`'s diagnostics (those of wk's compiler since `first`) into
 * wk->kept; the compiler holds the program until the next one (forget_held). */
static void keep_diagnostics(Worker *wk, uint32_t root, uint32_t first)
{
    Compiler *c = &wk->c;
    Share *share = &wk->jobs->shares[root];
    share->worker = wk->index;
    share->first = wk->kept.count;
    for (uint32_t i = first; i < c->diags.count; i++)
        diag_copy(&wk->kept, c->diags.items[i]);
    share->end = wk->kept.count;
    wk->held = &wk->jobs->w->roots.items[root];
}

/* Parses (or reads from the cache) and checks program `root` on worker `wk`. */
static void check_one(Worker *wk, uint32_t root)
{
    const Root *r = &wk->jobs->w->roots.items[root];
    forget_held(wk);
    uint32_t first = wk->c.diags.count;
    uint64_t key;
    if (!load_cached(wk, root, &key) && r->file_count > 0) {
        parse_stdlib(wk);
        workspace_load_sources(wk->jobs->w, &wk->c, r->files, r->file_count);   /* what the
                                                                                 index left */
        parse_files(wk, r->files, r->file_count);
        check_parsed(wk, root, key, first);
    }
    keep_diagnostics(wk, root, first);
}

static void *work_by_program(void *arg)
{
    Worker *wk = arg;
    Jobs *jobs = wk->jobs;
    uint32_t count = jobs->w->roots.count;
    for (uint32_t root; (root = atomic_fetch_add(&jobs->next, 1)) < count;)
        check_one(wk, root);
    return NULL;
}

/* ---- The sharing by file ------------------------------------------------------------ */

static const Name *share_name(void *context, const char *text, size_t len)
{
    Jobs *jobs = context;
    pthread_mutex_lock(&jobs->names_lock);
    const Name *name = intern(&jobs->names, text, len);
    pthread_mutex_unlock(&jobs->names_lock);
    return name;
}

/* Parses the files of jobs->root not taken yet, noting where each one's diagnostics are. */
static void parse_share(Worker *wk)
{
    Jobs *jobs = wk->jobs;
    const Root *r = jobs->root;
    for (uint32_t k; (k = atomic_fetch_add(&jobs->next_file, 1)) < r->file_count;) {
        uint32_t i = jobs->order[k];
        Share *file = &jobs->files[i];
        file->worker = wk->index;
        file->first = wk->c.diags.count;
        workspace_load_sources(jobs->w, &wk->c, &r->files[i], 1);
        parse_files(wk, &r->files[i], 1);
        file->end = wk->c.diags.count;
    }
}

/* A thread besides this one: does its share of each job handed out (parsing the files
 * of a program, or a task of the checker's). */
static void *work_by_file(void *arg)
{
    Worker *wk = arg;
    Jobs *jobs = wk->jobs;
    uint32_t seen = 0;
    pthread_mutex_lock(&jobs->lock);
    for (;;) {
        while (jobs->generation == seen && !jobs->quit)
            pthread_cond_wait(&jobs->wake, &jobs->lock);
        if (jobs->quit)
            break;
        seen = jobs->generation;
        ThreadTask task = jobs->task;
        void *task_arg = jobs->task_arg;
        pthread_mutex_unlock(&jobs->lock);
        if (task)
            task(task_arg, wk->index, &wk->c);
        else
            parse_share(wk);
        pthread_mutex_lock(&jobs->lock);
        jobs->done++;
        pthread_cond_signal(&jobs->parsed);
    }
    pthread_mutex_unlock(&jobs->lock);
    return NULL;
}

/* Hands the other threads a job: `task` on each, or when NULL, parsing `root`. */
static void hand_out(Jobs *jobs, ThreadTask task, void *task_arg, const Root *root)
{
    pthread_mutex_lock(&jobs->lock);
    jobs->task = task;
    jobs->task_arg = task_arg;
    jobs->root = root;
    jobs->done = 0;
    jobs->generation++;
    pthread_cond_broadcast(&jobs->wake);
    pthread_mutex_unlock(&jobs->lock);
}

/* Waits until every other thread is done with the job handed out. */
static void wait_others(Jobs *jobs)
{
    pthread_mutex_lock(&jobs->lock);
    while (jobs->done < jobs->started)
        pthread_cond_wait(&jobs->parsed, &jobs->lock);
    pthread_mutex_unlock(&jobs->lock);
}

/* CheckOptions.threads.run of thread 0's checks: the checker's task on every thread, this
 * one being thread 0. What the others make in their compilers stays until the next
 * program (check_by_file forgets it then, forget_held). */
static void run_on_threads(void *context, ThreadTask task, void *arg)
{
    Jobs *jobs = context;
    hand_out(jobs, task, arg, NULL);
    task(arg, 0, &jobs->workers[0].c);
    wait_others(jobs);
}

/* The files of `r` in the order the threads take them: the largest first, so that no
 * thread is left parsing a large file alone at the end while the others wait (one
 * large file among many small ones: taken in the order of the paths, a 9.5 MB last
 * file among 9,999 of 1 to 7 KB kept a thread busy 50 to 120 ms after the other was
 * done). Equal sizes in the order of the paths. Returns the bytes of the files. */
static uint64_t order_files(Jobs *jobs, const Root *r)
{
    const SourceFile *sources = jobs->w->c->sources.files;
    int64_t *keys = xmalloc((r->file_count + 1) * sizeof *keys);
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < r->file_count; i++) {   /* sizes < SOURCE_MAX_FILE_SIZE */
        keys[i] = (int64_t)(SOURCE_MAX_FILE_SIZE - sources[r->files[i]].len) << 32 | i;
        bytes += sources[r->files[i]].len;
    }
    sort_int64(keys, r->file_count);
    jobs->order = xrealloc(jobs->order, (r->file_count + 1) * sizeof *jobs->order);
    for (uint32_t k = 0; k < r->file_count; k++)
        jobs->order[k] = (uint32_t)keys[k];
    free(keys);
    return bytes;
}

/* Every thread parses files of `root` until none is left; then thread 0 (wk) takes the
 * trees and parse diagnostics of the others, file by file. */
static void parse_together(Worker *wk, uint32_t root)
{
    Jobs *jobs = wk->jobs;
    const Root *r = &jobs->w->roots.items[root];
    jobs->files = xrealloc(jobs->files, (r->file_count + 1) * sizeof *jobs->files);
    uint64_t bytes = order_files(jobs, r);
    interner_reserve_for_source(&jobs->names, bytes);   /* the others wait: no lock */
    atomic_store(&jobs->next_file, 0);
    hand_out(jobs, NULL, NULL, r);
    parse_share(wk);
    wait_others(jobs);
    workspace_load_sources(jobs->w, &wk->c, r->files, r->file_count);   /* the others' texts */
    for (uint32_t i = 0; i < r->file_count; i++) {
        const Share *file = &jobs->files[i];
        if (file->worker == wk->index)
            continue;
        const Compiler *from = &jobs->workers[file->worker].c;
        wk->c.asts[r->files[i]] = from->asts[r->files[i]];
        for (uint32_t d = file->first; d < file->end; d++)
            diag_copy(&wk->c.diags, from->diags.items[d]);
    }
}

/* Thread 0's part: each program in turn, parsed by every thread, checked here. */
static void check_by_file(Worker *wk)
{
    Jobs *jobs = wk->jobs;
    for (uint32_t root = 0; root < jobs->w->roots.count; root++) {
        const Root *r = &jobs->w->roots.items[root];
        for (uint32_t i = 0; i < jobs->started + 1; i++)   /* the others wait */
            forget_held(&jobs->workers[i]);
        uint32_t first = wk->c.diags.count;
        uint64_t key;
        if (!load_cached(wk, root, &key) && r->file_count > 0) {
            parse_stdlib(wk);
            parse_together(wk, root);
            check_parsed(wk, root, key, first);
            for (uint32_t i = 0; i < jobs->started + 1; i++)
                if (i != wk->index)
                    jobs->workers[i].held = r;
        }
        keep_diagnostics(wk, root, first);
    }
    pthread_mutex_lock(&jobs->lock);
    jobs->quit = true;
    pthread_cond_broadcast(&jobs->wake);
    pthread_mutex_unlock(&jobs->lock);
}

static void by_file_init(Jobs *jobs)
{
    arena_init(&jobs->names_arena);
    interner_init(&jobs->names, &jobs->names_arena);
    pthread_mutex_init(&jobs->names_lock, NULL);
    pthread_mutex_init(&jobs->lock, NULL);
    pthread_cond_init(&jobs->wake, NULL);
    pthread_cond_init(&jobs->parsed, NULL);
}

static void by_file_free(Jobs *jobs)
{
    free(jobs->files);
    free(jobs->order);
    pthread_cond_destroy(&jobs->parsed);
    pthread_cond_destroy(&jobs->wake);
    pthread_mutex_destroy(&jobs->lock);
    pthread_mutex_destroy(&jobs->names_lock);
    interner_free(&jobs->names);
    arena_free(&jobs->names_arena);
}

/* ---- The run ------------------------------------------------------------------------ */

static void worker_init(Worker *wk, Jobs *jobs, uint32_t index)
{
    memset(wk, 0, sizeof *wk);
    wk->jobs = jobs;
    wk->index = index;
    compiler_init_view(&wk->c, jobs->w->c, jobs->by_file ? share_name : NULL, jobs);
    wk->check = jobs->w->check;
    arena_init(&wk->kept_arena);
    diag_sink_init(&wk->kept, &wk->kept_arena);
}

static void worker_free(Worker *wk)
{
    compiler_free(&wk->c);
    diag_sink_free(&wk->kept);
    arena_free(&wk->kept_arena);
}

/* The run's sink gets each program's diagnostics, in the order of the programs. */
static void gather(Jobs *jobs, DiagSink *sink)
{
    for (uint32_t root = 0; root < jobs->w->roots.count; root++) {
        const Share *share = &jobs->shares[root];
        const DiagSink *from = &jobs->workers[share->worker].kept;
        for (uint32_t i = share->first; i < share->end; i++)
            diag_copy(sink, from->items[i]);
    }
}

/* The threads there is work for, at most `threads` (workspace.h,
 * WORKSPACE_THREADS_MAX): the programs with files, or when there are fewer than
 * `threads`, as many as the largest program keeps busy sharing it by file: its files to
 * parse, or its workflows to check, a thread per WORKSPACE_BYTES_PER_THREAD of it. */
static unsigned useful_threads(const Workspace *w, unsigned threads, uint32_t *busy)
{
    const SourceFile *sources = w->c->sources.files;
    uint32_t widest = 0;
    *busy = 0;
    for (uint32_t i = 0; i < w->roots.count; i++) {
        const Root *r = &w->roots.items[i];
        uint64_t bytes = 0;
        for (uint32_t f = 0; f < r->file_count; f++)
            bytes += sources[r->files[f]].len;
        uint64_t parts = bytes / WORKSPACE_BYTES_PER_THREAD + 1;
        if (r->file_count > parts)
            parts = r->file_count;
        if (r->file_count > 0 && parts > widest)
            widest = parts > UINT32_MAX ? UINT32_MAX : (uint32_t)parts;
        *busy += r->file_count > 0;
    }
    if (threads > WORKSPACE_THREADS_MAX)
        threads = WORKSPACE_THREADS_MAX;
    uint32_t work = *busy > widest ? *busy : widest;
    if (threads > work)
        threads = work;
    return threads ? threads : 1;
}

void workspace_check_jobs(Workspace *w, unsigned threads, CheckCache *cache)
{
    workspace_prepare(w);
    free(w->checked);
    w->checked = xcalloc(w->roots.count + 1, sizeof *w->checked);   /* none kept */
    uint32_t busy;
    threads = useful_threads(w, threads, &busy);
    Jobs jobs = { .w = w, .cache = cache, .by_file = threads > 1 && busy < threads };
    if (jobs.by_file)
        by_file_init(&jobs);
    atomic_init(&jobs.next, 0);
    atomic_init(&jobs.next_file, 0);
    jobs.workers = xcalloc(threads, sizeof *jobs.workers);
    jobs.shares = xcalloc(w->roots.count + 1, sizeof *jobs.shares);
    for (uint32_t i = 0; i < threads; i++)
        worker_init(&jobs.workers[i], &jobs, i);
    /* Worker 0 is this thread; a thread that could not start leaves its share to the
     * others, and the started ones are the first `jobs.started` after it. */
    for (uint32_t i = 1; i < threads && jobs.started == i - 1; i++) {
        Worker *wk = &jobs.workers[i];
        wk->started = pthread_create(&wk->thread, NULL,
                                     jobs.by_file ? work_by_file : work_by_program, wk) == 0;
        jobs.started += wk->started;
    }
    if (jobs.by_file && jobs.started)   /* the checker's passes over workflows, too */
        jobs.workers[0].check.threads = (Threads){ jobs.started + 1, run_on_threads, &jobs };
    if (jobs.by_file)
        check_by_file(&jobs.workers[0]);
    else
        work_by_program(&jobs.workers[0]);
    for (uint32_t i = 1; i < threads; i++)
        if (jobs.workers[i].started)
            pthread_join(jobs.workers[i].thread, NULL);
    gather(&jobs, &w->c->diags);
    diag_finish(&w->c->diags);
    for (uint32_t i = 0; i < threads; i++)
        worker_free(&jobs.workers[i]);
    if (jobs.by_file)
        by_file_free(&jobs);
    free(jobs.workers);
    free(jobs.shares);
}
