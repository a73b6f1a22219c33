/* A binary min-heap of timers keyed by (time, sequence). */
#include "timers.h"
#include "memory.h"

#include <stdlib.h>

static bool before(const Timer *a, const Timer *b)
{
    if (a->at != b->at)
        return a->at < b->at;
    if (a->limit != b->limit)
        return b->limit;
    return a->seq < b->seq;
}

static void swap(Timer *a, Timer *b)
{
    Timer t = *a;
    *a = *b;
    *b = t;
}

static void push(TimerQueue *q, Timer timer)
{
    if (q->count == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 64;
        q->items = xrealloc(q->items, cap * sizeof *q->items);
        q->cap = cap;
    }
    size_t i = q->count++;
    timer.seq = q->next_seq++;
    q->items[i] = timer;
    while (i > 0 && before(&q->items[i], &q->items[(i - 1) / 2])) {
        swap(&q->items[i], &q->items[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
}

void timers_push(TimerQueue *q, int64_t at, bool limit, uint8_t kind, uint32_t id, uint32_t gen)
{
    push(q, (Timer){.at = at, .limit = limit, .kind = kind, .id = id, .gen = gen});
}

bool timers_pop(TimerQueue *q, Timer *out)
{
    if (q->count == 0)
        return false;
    *out = q->items[0];
    q->items[0] = q->items[--q->count];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < q->count && before(&q->items[l], &q->items[m]))
            m = l;
        if (r < q->count && before(&q->items[r], &q->items[m]))
            m = r;
        if (m == i)
            break;
        swap(&q->items[i], &q->items[m]);
        i = m;
    }
    return true;
}

const Timer *timers_first(const TimerQueue *q)
{
    return q->count ? &q->items[0] : NULL;
}

void timers_free(TimerQueue *q)
{
    free(q->items);
    q->items = NULL;
    q->count = q->cap = 0;
}
