/* A host's timer queue: a binary min-heap of timers ordered by time, then limits after
 * every other timer of the same millisecond, then by the order they were set, so that a
 * run is deterministic (docs/runtime.md, "Ties"; docs/engine.md, "Time"). The engine
 * core never uses it: a host that runs the core's timers does, with the events of its
 * world in the same queue (not limits: they take their place by time, then by arrival) —
 * orbit-run (runtime/sim.c) and, through hosts/wasm, the Restate host. This file is the
 * one place that tie order is written. */
#ifndef ORBIT_ENGINE_TIMERS_H
#define ORBIT_ENGINE_TIMERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct Timer {
    int64_t at;
    uint64_t seq;
    bool limit;          /* a timeout or deadline: fires after the other timers of its ms */
    uint8_t kind;        /* the host's */
    uint32_t id;         /* what it is for, in the host's terms */
    uint32_t gen;
} Timer;

typedef struct TimerQueue {
    Timer *items;
    size_t count, cap;
    uint64_t next_seq;
} TimerQueue;

/* `limit`: a timeout, a queue timeout or a workflow deadline. */
void timers_push(TimerQueue *q, int64_t at, bool limit, uint8_t kind, uint32_t id, uint32_t gen);
bool timers_pop(TimerQueue *q, Timer *out);
/* The timer timers_pop would give next, or NULL when the queue is empty. */
const Timer *timers_first(const TimerQueue *q);
void timers_free(TimerQueue *q);

#endif
