// The worker pool and the staged contact pass (see DynamicsPool.h).

// No debug information from this file, for valgrind's sake: see FreeMotion.c. (Casts name builtin types, not
// typedefs, and there is no NULL: clang describes the type of every cast even in a function without debug information.)
#pragma clang attribute push(__attribute__((nodebug)), apply_to = hasType(functionType))

#include "DynamicsPool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

/// The job ticket: the job's generation in the high 32 bits, its task count in the next 16 and the next task to
/// claim in the low 16. Claiming is one compare-and-swap on the whole ticket, so a helper still holding an earlier
/// job's ticket can never claim a task of a newer job, and a task is claimed only while its job runs: the job's
/// function and context (written before the ticket) stay valid until its last task is done.
#define DK_TASKS_MAX DK_POOL_TASKS_MAX

struct dk_pool {
    _Atomic uint64_t ticket;
    _Atomic intptr_t finished;
    dk_task_fn fn;
    void *context;
    /// Nanoseconds the caller waited, beyond the spin phase, for tasks a helper had claimed (`dk_pool_run`).
    _Atomic long long stalled;
    _Atomic int32_t sleepers;
    _Atomic int32_t stop;
    pthread_mutex_t mutex;
    pthread_cond_t wake;
    int32_t helperCount;
    pthread_t *threads;
};

/// A ticket's parts (implicit conversions: see the note on casts above).
static inline uint32_t dk_ticket_generation(uint64_t t) { uint32_t g = t >> 32; return g; }
static inline intptr_t dk_ticket_count(uint64_t t) { intptr_t c = (t >> 16) & DK_TASKS_MAX; return c; }
static inline intptr_t dk_ticket_next(uint64_t t) { intptr_t n = t & DK_TASKS_MAX; return n; }
static inline uint64_t dk_ticket(uint32_t generation, intptr_t count) {
    uint64_t g = generation, c = count;
    return g << 32 | c << 16;
}

static inline void dk_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/// Spins before a helper sleeps: about 0.45 ms where a pause takes 22 ns (the AMD EPYC the benchmarks run on), long
/// enough to stay awake between the stages of one step (a 10,000-item broadphase takes over 1 ms, and sleeping
/// sooner measured no faster, nor better with another process on a core), short enough that a pool waiting for the
/// next frame sleeps.
#define DK_SPINS_BEFORE_SLEEP 20000
/// Spins before a participant waiting for others yields its core (another process may hold the one it waits on),
/// and starts counting the wait as a stall: about 45 µs there.
#define DK_SPINS_BEFORE_YIELD 2000

long long dk_clock_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1000000000LL + now.tv_nsec;
}

/// Waits until `*finished` reaches `target`: spinning at first, then yielding the core. A wait past the spin means the
/// thread that holds the rest of the work is likely not running (another process holds its core); its time is added
/// to `*stalled`, so the world can fall back to one thread while that lasts.
static void dk_wait_for(_Atomic intptr_t *finished, intptr_t target, _Atomic long long *stalled) {
    for (int spin = 0; spin < DK_SPINS_BEFORE_YIELD; spin++) {
        if (atomic_load_explicit(finished, memory_order_acquire) >= target) return;
        dk_relax();
    }
    const long long start = dk_clock_ns();
    while (atomic_load_explicit(finished, memory_order_acquire) < target) sched_yield();
    atomic_fetch_add_explicit(stalled, dk_clock_ns() - start, memory_order_relaxed);
}

/// Claims and runs the tasks of the job `generation` until none is left.
static void dk_pool_work(dk_pool *pool, uint32_t generation) {
    for (;;) {
        uint64_t t = atomic_load_explicit(&pool->ticket, memory_order_acquire);
        if (dk_ticket_generation(t) != generation) return;
        intptr_t count = dk_ticket_count(t), next = dk_ticket_next(t);
        if (next >= count) return;
        if (!atomic_compare_exchange_weak_explicit(&pool->ticket, &t, t + 1, memory_order_acq_rel, memory_order_acquire)) continue;
        pool->fn(pool->context, next);
        atomic_fetch_add_explicit(&pool->finished, 1, memory_order_acq_rel);
    }
}

/// The calling thread's index in its pool: 0 for a thread the pool did not start (the caller of `dk_pool_run`),
/// 1 ... helpers for the pool's own.
static _Thread_local intptr_t dk_participant_index __attribute__((nodebug)) = 0;

intptr_t dk_pool_participant(void) { return dk_participant_index; }

struct dk_helper_start { dk_pool *pool; intptr_t index; };

static void *dk_pool_helper(void *argument) {
    struct dk_helper_start *start = argument;
    dk_pool *pool = start->pool;
    dk_participant_index = start->index;
    free(start);
    uint32_t seen = dk_ticket_generation(atomic_load(&pool->ticket));
    for (;;) {
        uint32_t generation = seen;
        for (int spin = 0; spin < DK_SPINS_BEFORE_SLEEP; spin++) {
            generation = dk_ticket_generation(atomic_load_explicit(&pool->ticket, memory_order_acquire));
            if (generation != seen || atomic_load_explicit(&pool->stop, memory_order_relaxed)) break;
            dk_relax();
        }
        if (generation == seen) {
            pthread_mutex_lock(&pool->mutex);
            atomic_fetch_add(&pool->sleepers, 1);
            while ((generation = dk_ticket_generation(atomic_load(&pool->ticket))) == seen && !atomic_load(&pool->stop))
                pthread_cond_wait(&pool->wake, &pool->mutex);
            atomic_fetch_sub(&pool->sleepers, 1);
            pthread_mutex_unlock(&pool->mutex);
        }
        if (atomic_load(&pool->stop)) return 0;
        seen = generation;
        dk_pool_work(pool, generation);
    }
}

dk_pool *dk_pool_create(int32_t helpers) {
    dk_pool *pool = calloc(1, sizeof(dk_pool));
    if (!pool) return 0;
    pool->threads = calloc(helpers > 0 ? helpers : 1, sizeof(pthread_t));
    if (!pool->threads) { free(pool); return 0; }
    pthread_mutex_init(&pool->mutex, 0);
    pthread_cond_init(&pool->wake, 0);
    for (int32_t i = 0; i < helpers; i++) {
        struct dk_helper_start *start = malloc(sizeof(struct dk_helper_start));
        if (start) { start->pool = pool; start->index = i + 1; }
        if (!start || pthread_create(&pool->threads[i], 0, dk_pool_helper, start) != 0) {
            free(start);
            pool->helperCount = i;
            dk_pool_destroy(pool);
            return 0;
        }
    }
    pool->helperCount = helpers;
    return pool;
}

void dk_pool_destroy(dk_pool *pool) {
    if (!pool) return;
    pthread_mutex_lock(&pool->mutex);
    atomic_store(&pool->stop, 1);
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mutex);
    for (int32_t i = 0; i < pool->helperCount; i++) pthread_join(pool->threads[i], 0);
    pthread_cond_destroy(&pool->wake);
    pthread_mutex_destroy(&pool->mutex);
    free(pool->threads);
    free(pool);
}

void dk_pool_run(dk_pool *pool, dk_task_fn fn, void *context, intptr_t taskCount) {
    if (taskCount <= 0) return;
    pool->fn = fn;
    pool->context = context;
    atomic_store_explicit(&pool->finished, 0, memory_order_relaxed);
    uint32_t generation = dk_ticket_generation(atomic_load(&pool->ticket)) + 1;
    atomic_store(&pool->ticket, dk_ticket(generation, taskCount));
    if (atomic_load(&pool->sleepers) > 0) {
        pthread_mutex_lock(&pool->mutex);
        pthread_cond_broadcast(&pool->wake);
        pthread_mutex_unlock(&pool->mutex);
    }
    dk_pool_work(pool, generation);
    dk_wait_for(&pool->finished, taskCount, &pool->stalled);
}

/// A Swift closure `(Int) -> Void` as Swift passes it: its function, called with the task and, in the Swift calling
/// convention's context register, the closure's context.
typedef __attribute__((swiftcall)) void (*dk_swift_task_fn)(intptr_t task, __attribute__((swift_context)) void *context);

typedef struct dk_swift_job {
    dk_swift_task_fn fn;
    void *context;
    intptr_t offset;
} dk_swift_job;

static void dk_swift_job_run(void *job, intptr_t task) {
    dk_swift_job *j = job;
    j->fn(j->offset + task, j->context);
}

/// `dk_pool_run` for a Swift closure, declared on the Swift side (`WorkerPool.run`) with `@_silgen_name`, which passes
/// a non-escaping closure argument as its function and its context. Nothing is allocated: the closure's context stays
/// where its caller put it (often the caller's stack), read by the helpers only until this returns. Any number of
/// tasks, in rounds of at most DK_POOL_TASKS_MAX.
__attribute__((swiftcall)) void dk_pool_run_swift(dk_pool *pool, intptr_t taskCount, dk_swift_task_fn fn, void *context);
__attribute__((swiftcall)) void dk_pool_run_swift(dk_pool *pool, intptr_t taskCount, dk_swift_task_fn fn, void *context) {
    dk_swift_job job = { fn, context, 0 };
    while (job.offset < taskCount) {
        intptr_t chunk = taskCount - job.offset;
        if (chunk > DK_POOL_TASKS_MAX) chunk = DK_POOL_TASKS_MAX;
        dk_pool_run(pool, dk_swift_job_run, &job, chunk);
        job.offset += chunk;
    }
}

long long dk_pool_take_stalled(dk_pool *pool) {
    return atomic_exchange_explicit(&pool->stalled, 0, memory_order_relaxed);
}

// MARK: - Staged passes

/// Stages of one pass: up to 64 colors of center rods and 64 of the others, and two geometry sweeps.
#define DK_STAGES_MAX 160
/// Participants with a run of blocks of their own (`WorkerPool.maximumWorkers`); any others only take what is left.
#define DK_RUNS_MAX 256

/// One participant's run of blocks in the current stage, on a cache line of its own: the stage's tag in the high 40
/// bits, the next block to take from the front in the next 12 and the end of the run in the low 12. Its owner takes
/// from the front and the others from the end, each with one compare-and-swap; while it works through its run no
/// other core touches the line, so its claims cost no transfer between cores (a claim on a line every participant
/// writes costs one whenever the last claim was another's). A run whose tag is older than the stage is set to the
/// stage's by whoever reaches it first: the value depends on the stage alone, so it does not matter who.
typedef struct {
    _Alignas(64) _Atomic uint64_t range;
} dk_run;

struct dk_stage_progress {
    dk_run runs[DK_RUNS_MAX];
    /// Per stage, the blocks finished.
    _Alignas(64) _Atomic intptr_t finished[DK_STAGES_MAX];
    /// Whether a participant has taken the small colors at the end of a contact pass.
    _Alignas(64) _Atomic intptr_t tailTaken;
    /// The tag of the pass's stage 0; stage s is tagged base + s. Grows with every pass, so no run of an earlier pass
    /// is ever taken for one of this pass.
    uint64_t tagBase;
    /// The pass's participants, and how many of them have a run of their own (at most DK_RUNS_MAX).
    intptr_t minimumBlock, participants, runCount;
    /// Nanoseconds participants spent waiting beyond the spin phase for blocks another had claimed.
    _Atomic long long stalled;
};

dk_stage_progress *dk_stage_progress_create(void) {
    dk_stage_progress *progress = aligned_alloc(64, sizeof(dk_stage_progress));
    if (progress) {
        for (intptr_t p = 0; p < DK_RUNS_MAX; p++) atomic_init(&progress->runs[p].range, 0);
        for (intptr_t c = 0; c < DK_STAGES_MAX; c++) atomic_init(&progress->finished[c], 0);
        atomic_init(&progress->tailTaken, 0);
        atomic_init(&progress->stalled, 0);
        progress->tagBase = 0;
        progress->minimumBlock = 1;
        progress->participants = 1;
        progress->runCount = 1;
    }
    return progress;
}
void dk_stage_progress_destroy(dk_stage_progress *progress) { free(progress); }

void dk_stage_progress_reset(dk_stage_progress *progress, intptr_t stageCount, intptr_t minimumBlock, intptr_t participants) {
    for (intptr_t c = 0; c < stageCount && c < DK_STAGES_MAX; c++)
        atomic_store_explicit(&progress->finished[c], 0, memory_order_relaxed);
    atomic_store_explicit(&progress->tailTaken, 0, memory_order_relaxed);
    progress->tagBase += DK_STAGES_MAX;
    progress->minimumBlock = minimumBlock;
    progress->participants = participants > 0 ? participants : 1;
    progress->runCount = progress->participants < DK_RUNS_MAX ? progress->participants : DK_RUNS_MAX;
    atomic_thread_fence(memory_order_release);
}

/// A run's parts (implicit conversions: see the note on casts above).
static inline uint64_t dk_run_tag(uint64_t r) { return r >> 24; }
static inline intptr_t dk_run_next(uint64_t r) { intptr_t n = (r >> 12) & 0xFFF; return n; }
static inline intptr_t dk_run_end(uint64_t r) { intptr_t e = r & 0xFFF; return e; }
static inline uint64_t dk_run_value(uint64_t tag, intptr_t next, intptr_t end) {
    uint64_t n = next, e = end;
    return tag << 24 | n << 12 | e;
}

/// Run p's blocks among `blocks`: the p-th of P equal runs, in order (P: the participants, at most DK_RUNS_MAX).
static inline void dk_block_home(intptr_t blocks, intptr_t participant, intptr_t participants, intptr_t *home, intptr_t *homeEnd) {
    *home = participant * blocks / participants;
    *homeEnd = (participant + 1) * blocks / participants;
}

/// Run q's value for the stage tagged `tag` of `blocks` blocks, set to the stage's start if it still holds an
/// earlier stage's; 0 if it holds a later stage's (this stage is then finished).
static inline uint64_t dk_run_load(dk_stage_progress *progress, intptr_t q, uint64_t tag, intptr_t blocks) {
    _Atomic uint64_t *range = &progress->runs[q].range;
    uint64_t r = atomic_load_explicit(range, memory_order_acquire);
    while (dk_run_tag(r) < tag) {
        intptr_t home, homeEnd;
        dk_block_home(blocks, q, progress->runCount, &home, &homeEnd);
        if (atomic_compare_exchange_weak_explicit(range, &r, dk_run_value(tag, home, homeEnd), memory_order_acq_rel,
                                                  memory_order_acquire))
            return dk_run_value(tag, home, homeEnd);
    }
    return dk_run_tag(r) == tag ? r : 0;
}

/// The next block of run q for the stage tagged `tag`, from its front (its owner) or its end (another), or -1 when
/// the run is empty.
static inline intptr_t dk_run_take(dk_stage_progress *progress, intptr_t q, uint64_t tag, intptr_t blocks, int front) {
    _Atomic uint64_t *range = &progress->runs[q].range;
    uint64_t r = dk_run_load(progress, q, tag, blocks);
    for (;;) {
        if (r == 0) return -1;
        const intptr_t next = dk_run_next(r), end = dk_run_end(r);
        if (next >= end) return -1;
        const uint64_t taken = front ? dk_run_value(tag, next + 1, end) : dk_run_value(tag, next, end - 1);
        if (atomic_compare_exchange_weak_explicit(range, &r, taken, memory_order_acq_rel, memory_order_acquire))
            return front ? next : end - 1;
        if (dk_run_tag(r) != tag) return -1;
    }
}

/// The next block participant p takes of a stage's `blocks`, or -1 when none is left: its own run from the front,
/// then the others' from their ends, the run before its own first (wrapping). `*cursor` (0 at the stage's start)
/// is how many runs it has found empty.
static inline intptr_t dk_stage_next(dk_stage_progress *progress, uint64_t tag, intptr_t blocks, intptr_t participant,
                                     intptr_t *cursor) {
    const intptr_t runs = progress->runCount;
    while (*cursor < runs) {
        const intptr_t q = (participant - *cursor + runs) % runs;
        const intptr_t b = dk_run_take(progress, q, tag, blocks, *cursor == 0 && participant < runs);
        if (b >= 0) return b;
        (*cursor)++;
    }
    return -1;
}

/// One participant's share of stage `stage`, items from ..< to: it takes blocks until none is left, then waits
/// until every block is finished (the next stage reads what this one writes).
///
/// Participant p first takes the p-th of P equal runs of blocks, in order, then what is left of the others' from the
/// far end back. Each color's batches lie in the order the constraints were made, so the same participant takes the
/// same part of the scene in every color, pass and substep, and the bodies' velocities stay in its core's cache: with
/// the blocks handed out first come, first served, each color moved most of them between cores, and two threads
/// were slower than one. Which participant runs a block changes no result.
static inline void dk_stage(dk_stage_progress *progress, intptr_t stage, intptr_t from, intptr_t to,
                            void (*run)(const void *pass, intptr_t from, intptr_t to, int kind), const void *pass,
                            int kind, intptr_t participant) {
    if (to <= from) return;
    // About four blocks per participant: blocks much smaller spend as long being handed out and waited for as being
    // solved. At most 64.
    const intptr_t count = to - from, participants = progress->participants;
    const intptr_t shares = 4 * participants;
    intptr_t blockSize = (count + shares - 1) / shares;
    if (blockSize < progress->minimumBlock) blockSize = progress->minimumBlock;
    if (blockSize < (count + 63) / 64) blockSize = (count + 63) / 64;
    const intptr_t blocks = (count + blockSize - 1) / blockSize;
    const uint64_t tag = progress->tagBase + stage;
    participant %= participants;
    intptr_t done = 0, cursor = 0;
    for (intptr_t b; (b = dk_stage_next(progress, tag, blocks, participant, &cursor)) >= 0; ) {
        const intptr_t start = from + b * blockSize, end = start + blockSize < to ? start + blockSize : to;
        run(pass, start, end, kind);
        done++;
    }
    // The blocks it ran, counted once when it has claimed its last (one write to the shared line per participant,
    // not one per block): the count reaches `blocks` when every claimed block is finished.
    if (done > 0) atomic_fetch_add_explicit(&progress->finished[stage], done, memory_order_acq_rel);
    dk_wait_for(&progress->finished[stage], blocks, &progress->stalled);
}

intptr_t dk_stage_blocks_next(dk_stage_progress *progress, intptr_t stage, intptr_t blocks, intptr_t participant,
                              intptr_t *cursor) {
    if (blocks > 64) blocks = 64;
    // The same order as a stage's (dk_stage).
    return dk_stage_next(progress, progress->tagBase + stage, blocks, participant % progress->participants, cursor);
}

intptr_t dk_blocks_next(dk_stage_progress *progress, intptr_t blocks, intptr_t participant, intptr_t *cursor) {
    return dk_stage_blocks_next(progress, 0, blocks, participant, cursor);
}

long long dk_stage_progress_take_stalled(dk_stage_progress *progress) {
    return atomic_exchange_explicit(&progress->stalled, 0, memory_order_relaxed);
}

static void dk_contact_blocks(const void *pass, intptr_t from, intptr_t to, int kind) {
    (void)kind;
    dk_contact_pass_run_batches(pass, from, to);
}

/// A contact pass's share (see DynamicsPool.h); with `whole`, every participant returns only once the whole pass is
/// done, the small colors at its end too (their solver counts them finished in stage `colors`).
static void dk_contact_pass_share(const dk_contact_pass *pass, dk_stage_progress *progress, intptr_t participant,
                                  int whole) {
    // The coloring fills its first colors most: the last ones often hold a few batches each, too few to share
    // (waiting for the others at each one's end would cost more than solving it). From the first of the colors
    // that are all that small, one participant solves the rest alone, in color order, and the others are done.
    intptr_t colors = pass->colorCount < DK_STAGES_MAX - 2 ? pass->colorCount : DK_STAGES_MAX - 2;
    intptr_t tail = colors;
    while (tail > 0 && pass->colorEnds[tail - 1] - (tail > 1 ? pass->colorEnds[tail - 2] : 0) < 2 * progress->minimumBlock)
        tail--;
    intptr_t start = 0;
    for (intptr_t c = 0; c < tail; c++) {
        const intptr_t end = pass->colorEnds[c];
        dk_stage(progress, c, start, end, dk_contact_blocks, pass, 0, participant);
        start = end;
    }
    if (tail < colors && atomic_fetch_add_explicit(&progress->tailTaken, 1, memory_order_acq_rel) == 0) {
        for (intptr_t c = tail; c < colors; c++) {
            dk_contact_pass_run_batches(pass, start, pass->colorEnds[c]);
            start = pass->colorEnds[c];
        }
        if (whole) atomic_fetch_add_explicit(&progress->finished[colors], 1, memory_order_acq_rel);
    }
    if (whole && tail < colors) dk_wait_for(&progress->finished[colors], 1, &progress->stalled);
}

void dk_contact_pass_participate(const dk_contact_pass *pass, dk_stage_progress *progress, intptr_t participant) {
    dk_contact_pass_share(pass, progress, participant, 0);
}

void dk_contact_pass_participate_whole(const dk_contact_pass *pass, dk_stage_progress *progress, intptr_t participant) {
    dk_contact_pass_share(pass, progress, participant, 1);
}

/// kind: bit 0 general (else center), bit 1 the geometry sweep alone, bit 2 the geometry and then the pass.
static void dk_rod_blocks(const void *pass, intptr_t from, intptr_t to, int kind) {
    const int sweepOnly = (kind >> 1) & 1;
    if (kind & 4) {
        if (kind & 1) dk_rod_pass_run_general(pass, from, to, 1);
        else dk_rod_pass_run_center(pass, from, to, 1);
    }
    if (kind & 1) dk_rod_pass_run_general(pass, from, to, sweepOnly);
    else dk_rod_pass_run_center(pass, from, to, sweepOnly);
}

void dk_rod_pass_participate(const dk_rod_pass *pass, const int32_t *centerEnds, intptr_t centerColors,
                             const int32_t *generalEnds, intptr_t generalColors, dk_stage_progress *progress,
                             intptr_t participant) {
    // The geometry of a batch depends on the poses alone, which the pass does not change: each block computes its
    // batches' geometry just before solving them, in the block's own stage, rather than in a sweep of its own that
    // every participant would have to wait for.
    const int geometry = pass->geometry ? 4 : 0;
    intptr_t stage = 0;
    intptr_t start = 0;
    for (intptr_t c = 0; c < centerColors; c++) {
        dk_stage(progress, stage++, start, centerEnds[c], dk_rod_blocks, pass, geometry, participant);
        start = centerEnds[c];
    }
    start = 0;
    for (intptr_t c = 0; c < generalColors; c++) {
        dk_stage(progress, stage++, start, generalEnds[c], dk_rod_blocks, pass, 1 | geometry, participant);
        start = generalEnds[c];
    }
}

#pragma clang attribute pop
