/* The virtual clock's queue: a binary min-heap of timers ordered by time, then limits
 * after every other timer of the same millisecond, then by the order they were set, so
 * that a run is deterministic (docs/runtime.md, "Ties"). */
#ifndef ORBIT_RUN_TIMERS_H
#define ORBIT_RUN_TIMERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct Timer {
    int64_t at;
    uint64_t seq;
    bool limit;          /* a timeout or deadline: fires after the other timers of its ms */
    uint8_t kind;
    uint32_t gen;        /* compared with the target's generation when the timer fires */
    void *target;
} Timer;

typedef struct TimerQueue {
    Timer *items;
    size_t count, cap;
    uint64_t next_seq;
} TimerQueue;

void timers_push(TimerQueue *q, int64_t at, uint8_t kind, void *target, uint32_t gen);
/* The same for a limit: a timeout, a queue timeout or a workflow deadline. */
void timers_push_limit(TimerQueue *q, int64_t at, uint8_t kind, void *target, uint32_t gen);
bool timers_pop(TimerQueue *q, Timer *out);
void timers_free(TimerQueue *q);

#endif
