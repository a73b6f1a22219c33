/* workspace_check_jobs (workspace.h): the pipeline of `orbitc check` over several
 * threads, each program (root) parsed and checked by one of them, with the cache.
 *
 * The run's compiler holds every source and parses only the programs' configurations
 * (workspace_prepare with Workspace.parse_programs false). Each thread has a compiler of
 * its own over the same sources at the same positions (compiler_init_view): its arena,
 * its names, its diagnostics, the standard library parsed once, when it first parses a
 * program. It takes the next program not taken, parses its files and checks them (or reads its diagnostics from
 * the cache), and notes which of its diagnostics are that program's. When every thread
 * is done, the diagnostics are copied into the run's sink program by program, in the
 * order of the programs, and finished there: the same sort as a run on one thread, so
 * the output is the same byte for byte whatever the number of threads. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "check_cache.h"
#include "memory.h"
#include "workspace.h"

/* Where the diagnostics of one program are: items [first, end) of a worker's sink. */
typedef struct Share {
    uint32_t worker;
    uint32_t first, end;
} Share;

typedef struct Worker Worker;

typedef struct Jobs {
    Workspace *w;
    CheckCache *cache;        /* NULL: no cache */
    Worker *workers;
    Share *shares;            /* [roots.count] */
    atomic_uint next;         /* the next program to take */
} Jobs;

struct Worker {
    Jobs *jobs;
    uint32_t index;
    Compiler c;
    pthread_t thread;
    bool started;
};

/* Parses (or reads from the cache) and checks program `root` on worker `wk`. */
static void check_one(Worker *wk, uint32_t root)
{
    Jobs *jobs = wk->jobs;
    Workspace *w = jobs->w;
    Compiler *c = &wk->c;
    const Root *r = &w->roots.items[root];
    Share *share = &jobs->shares[root];
    share->worker = wk->index;
    share->first = c->diags.count;
    uint64_t key = 0;
    bool cached = false;
    if (jobs->cache && r->file_count > 0) {
        key = check_cache_key(jobs->cache, w, root);
        cached = check_cache_load(jobs->cache, w, root, key, c);
    }
    if (!cached && r->file_count > 0) {
        uint32_t stdlib = 0;
        compiler_parse_only(c, &stdlib, 1);   /* once per thread, when first needed */
        memset(c->diags.level, LINT_DEFAULT, sizeof c->diags.level);   /* as one parse of
                                                                          all files */
        workspace_load_sources(w, c, r->files, r->file_count);   /* what the index left */
        compiler_parse_only(c, r->files, r->file_count);
        roots_check(&w->roots, c, root, w->overrides);
        if (jobs->cache)
            check_cache_store(jobs->cache, w, root, key, c, share->first, c->diags.count);
    }
    share->end = c->diags.count;
}

static void *work(void *arg)
{
    Worker *wk = arg;
    Jobs *jobs = wk->jobs;
    uint32_t count = jobs->w->roots.count;
    for (uint32_t root; (root = atomic_fetch_add(&jobs->next, 1)) < count;)
        check_one(wk, root);
    return NULL;
}

static void worker_init(Worker *wk, Jobs *jobs, uint32_t index)
{
    memset(wk, 0, sizeof *wk);
    wk->jobs = jobs;
    wk->index = index;
    compiler_init_view(&wk->c, jobs->w->c);
}

/* The run's sink gets each program's diagnostics, in the order of the programs. */
static void gather(Jobs *jobs, DiagSink *sink)
{
    for (uint32_t root = 0; root < jobs->w->roots.count; root++) {
        const Share *share = &jobs->shares[root];
        const DiagSink *from = &jobs->workers[share->worker].c.diags;
        for (uint32_t i = share->first; i < share->end; i++)
            diag_copy(sink, from->items[i]);
    }
}

void workspace_check_jobs(Workspace *w, unsigned threads, CheckCache *cache)
{
    workspace_prepare(w);
    free(w->checked);
    w->checked = xcalloc(w->roots.count + 1, sizeof *w->checked);   /* none kept */
    uint32_t busy = 0;
    for (uint32_t i = 0; i < w->roots.count; i++)
        busy += w->roots.items[i].file_count > 0;
    if (threads > busy)
        threads = busy;
    if (threads == 0)
        threads = 1;
    Jobs jobs = { .w = w, .cache = cache };
    atomic_init(&jobs.next, 0);
    jobs.workers = xcalloc(threads, sizeof *jobs.workers);
    jobs.shares = xcalloc(w->roots.count + 1, sizeof *jobs.shares);
    for (uint32_t i = 0; i < threads; i++)
        worker_init(&jobs.workers[i], &jobs, i);
    for (uint32_t i = 1; i < threads; i++)   /* worker 0 is this thread */
        jobs.workers[i].started = pthread_create(&jobs.workers[i].thread, NULL, work,
                                                 &jobs.workers[i]) == 0;
    work(&jobs.workers[0]);   /* a thread that could not start leaves its share to the others */
    for (uint32_t i = 1; i < threads; i++)
        if (jobs.workers[i].started)
            pthread_join(jobs.workers[i].thread, NULL);
    gather(&jobs, &w->c->diags);
    diag_finish(&w->c->diags);
    for (uint32_t i = 0; i < threads; i++)
        compiler_free(&jobs.workers[i].c);
    free(jobs.workers);
    free(jobs.shares);
}
