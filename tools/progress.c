/* The progress bar of `ossa bake` on a terminal. A ticker thread redraws it while one long stage
 * (a single animation's build) runs; without POSIX threads it is redrawn between stages only. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef OSSA_HAVE_PTHREADS
#include <pthread.h>
#endif

#include "tools.h"

/* Nothing is drawn before the bake has taken this long: short bakes stay quiet. */
#define DELAY_SECONDS 1.0

struct tool_progress {
    double start, drawn_at;
    const char *stage; /* static text */
    size_t index, count;
    float fraction;     /* of the stage, from tool_progress_fraction; 0 when it gives none */
    const char *detail; /* the step within the stage (static text); NULL when none */
    bool drawn;
#ifdef OSSA_HAVE_PTHREADS
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    bool stop;
#endif
};

/* Draws the bar in place of the previous one (the caller holds the lock). */
static void draw(tool_progress *p)
{
    const double elapsed = tool_now() - p->start;
    if (elapsed < DELAY_SECONDS) return;
    /* The share of the bake done: the animations' builds are most of the work, each its equal
     * share, and within one the builder's own report. */
    const unsigned percent = !strcmp(p->stage, "write") ? 100u
                             : p->count
                                 ? (unsigned)(100.0 * ((double)(p->index - 1) + (double)p->fraction) / (double)p->count)
                                 : 0u;
    char bar[21], within[64] = "";
    for (unsigned i = 0; i < 20; ++i) bar[i] = i < percent / 5 ? '#' : '-';
    bar[20] = '\0';
    if (p->detail) snprintf(within, sizeof within, " (%s, %.0f %%)", p->detail, 100.0 * (double)p->fraction);
    if (p->count)
        fprintf(stderr, "\r[%s] %3u %% %s %zu of %zu%s, %.0f s\033[K", bar, percent, p->stage, p->index, p->count,
                within, elapsed);
    else
        fprintf(stderr, "\r[%s] %3u %% %s%s, %.0f s\033[K", bar, percent, p->stage, within, elapsed);
    fflush(stderr);
    p->drawn = true;
    p->drawn_at = tool_now();
}

static void erase(tool_progress *p)
{
    if (!p->drawn) return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    p->drawn = false;
}

#ifdef OSSA_HAVE_PTHREADS
static void *tick(void *arg)
{
    tool_progress *p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 250000000L;
        if (until.tv_nsec >= 1000000000L) until.tv_sec += 1, until.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&p->wake, &p->lock, &until);
        if (!p->stop) draw(p);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}
#endif

tool_progress *tool_progress_start(bool enabled)
{
    tool_progress *p = enabled ? calloc(1, sizeof *p) : NULL;
    if (!p) return NULL;
    p->start = tool_now();
    p->stage = "import";
#ifdef OSSA_HAVE_PTHREADS
    if (pthread_mutex_init(&p->lock, NULL) != 0) return free(p), NULL;
    if (pthread_cond_init(&p->wake, NULL) != 0) {
        pthread_mutex_destroy(&p->lock);
        return free(p), NULL;
    }
    if (pthread_create(&p->thread, NULL, tick, p) != 0) {
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->lock);
        return free(p), NULL;
    }
#endif
    return p;
}

static void lock(tool_progress *p)
{
#ifdef OSSA_HAVE_PTHREADS
    pthread_mutex_lock(&p->lock);
#else
    (void)p;
#endif
}

static void unlock(tool_progress *p)
{
#ifdef OSSA_HAVE_PTHREADS
    pthread_mutex_unlock(&p->lock);
#else
    (void)p;
#endif
}

void tool_progress_stage(tool_progress *p, const char *stage, size_t index, size_t count)
{
    if (!p) return;
    lock(p);
    p->stage = stage;
    p->index = index;
    p->count = count;
    p->fraction = 0.f;
    p->detail = NULL;
    draw(p);
    unlock(p);
}

void tool_progress_fraction(tool_progress *p, float fraction, const char *detail)
{
    if (!p) return;
    lock(p);
    p->fraction = fraction < 0.f ? 0.f : fraction > 1.f ? 1.f : fraction;
    p->detail = detail;
#ifndef OSSA_HAVE_PTHREADS
    /* No ticker: redrawn here, four times a second at most. */
    if (tool_now() - p->drawn_at >= 0.25) draw(p);
#endif
    unlock(p);
}

void tool_progress_clear(tool_progress *p)
{
    if (!p) return;
    lock(p);
    erase(p);
    unlock(p);
}

void tool_progress_stop(tool_progress *p)
{
    if (!p) return;
#ifdef OSSA_HAVE_PTHREADS
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
#endif
    erase(p);
    free(p);
}
