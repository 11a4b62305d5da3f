// A pool of worker threads for the step's parallel stages, and the staged passes that run on it.
//
// `dk_pool_run` is fork-join: it runs `fn(context, task)` for every task in 0 ..< taskCount, on the caller and the
// pool's helper threads, and returns when all have run. Tasks are claimed one at a time from a shared counter, so a
// helper that is late (asleep, or its core taken by another process) only means the others take more of the tasks.
// Helpers spin briefly for the next job, then sleep on a condition variable: a pool costs no processor time between
// steps.
//
// The engine's results never depend on which thread ran a task or in what order: every task writes its own outputs,
// and a stage that must follow another (the next color of a solver pass) waits for it. So a step is bit-identical
// for any worker count and any executor.
#ifndef DYNAMICS_POOL_H
#define DYNAMICS_POOL_H

#include <stdint.h>
#include "DynamicsContacts.h"
#include "DynamicsRods.h"

typedef struct dk_pool dk_pool;
typedef void (*dk_task_fn)(void *context, intptr_t task);

/// The most tasks one `dk_pool_run` takes.
#define DK_POOL_TASKS_MAX 0xFFFF

/// A pool with `helpers` threads besides the caller's; NULL if a thread could not be started.
dk_pool *dk_pool_create(int32_t helpers);
/// Stops and joins the helpers and frees the pool.
void dk_pool_destroy(dk_pool *pool);
/// Runs fn(context, t) for t in 0 ..< taskCount (at most DK_POOL_TASKS_MAX) and returns when every task has run. One
/// job at a time per pool.
void dk_pool_run(dk_pool *pool, dk_task_fn fn, void *context, intptr_t taskCount);

/// A monotonic clock's reading in nanoseconds: the step's timing (its stages, its passes on the workers, the back-off's
/// comparisons) reads it a few dozen times a step, and a reading costs a call to the system's clock and nothing more.
long long dk_clock_ns(void);

/// Nanoseconds `dk_pool_run` has waited, beyond a short spin, for tasks a helper had claimed, since the last call;
/// resets the count.
long long dk_pool_take_stalled(dk_pool *pool);

/// The shared progress of one staged pass: each participant's run of the current stage's blocks (a color, or a sweep),
/// which it takes from the front and the others from the end, and per stage the blocks finished.
typedef struct dk_stage_progress dk_stage_progress;
dk_stage_progress *dk_stage_progress_create(void);
void dk_stage_progress_destroy(dk_stage_progress *progress);
/// Clears the counters for a pass of `stageCount` stages (at most 160) by `participants`, in blocks of at least
/// `minimumBlock` batches.
void dk_stage_progress_reset(dk_stage_progress *progress, intptr_t stageCount, intptr_t minimumBlock, intptr_t participants);

/// Nanoseconds participants have spent waiting, beyond a short spin, for a block another participant claimed,
/// since the last call; resets the count. A participant that claims a block and is then descheduled (another
/// process holds its core) holds up the others this long.
long long dk_stage_progress_take_stalled(dk_stage_progress *progress);

/// A block pass's claims, on a progress reset for one stage by its participants (`dk_stage_progress_reset(progress,
/// 1, 1, participants)`): the next of `blocks` (at most 64) blocks `participant` claims, or -1 when every block is
/// claimed. `*cursor` starts at 0 for each participant's share. As in a staged pass, participant p first takes the
/// p-th of P equal runs of blocks, then what is left of the others' from their far ends: a pass over the bodies
/// then finds them in the cache of the core whose part of the scene they are in the solver's passes.
intptr_t dk_blocks_next(dk_stage_progress *progress, intptr_t blocks, intptr_t participant, intptr_t *cursor);
/// `dk_blocks_next` for stage `stage` of a staged pass's progress: blocks of a pass over the bodies that the pass's
/// participants run after its stages, in the same task (reset the progress for the pass's stages and this one).
intptr_t dk_stage_blocks_next(dk_stage_progress *progress, intptr_t stage, intptr_t blocks, intptr_t participant,
                              intptr_t *cursor);

/// The calling thread's index in the pool that started it (1 ... helpers), or 0 for any other thread (the caller of
/// `dk_pool_run`): the `participant` to pass to the staged passes from a task of the world's own pool.
intptr_t dk_pool_participant(void);

/// One participant's share of a contact pass (`dk_contact_pass_run`): color by color, it claims blocks of the color's
/// batches until none is left, then waits until every block of the color is finished before the next. Every
/// participant of the pass calls it with the same pass and progress; the first to arrive may do all of it.
/// `participant` (0 ..< participants; others are taken modulo) picks the part of each color it takes first: the same
/// thread should pass the same number in every pass, so that it keeps working on the same bodies.
void dk_contact_pass_participate(const dk_contact_pass *pass, dk_stage_progress *progress, intptr_t participant);
/// `dk_contact_pass_participate` that returns only once the whole pass is done: the small colors at its end, which
/// one participant solves alone, are counted finished in stage `colorCount`. A pass of colorCount + 1 stages (at
/// most 64 colors), after which the participants may go on to a stage of their own in the same task.
void dk_contact_pass_participate_whole(const dk_contact_pass *pass, dk_stage_progress *progress, intptr_t participant);

/// One participant's share of a rod pass (`dk_rod_pass_run`): the center batches color by color (color c ends at
/// centerEnds[c]), then the others (generalEnds), each block's geometry computed just before it is solved when the
/// pass asks for it. A pass of centerColors + generalColors stages. `participant` as for `dk_contact_pass_participate`.
void dk_rod_pass_participate(const dk_rod_pass *pass, const int32_t *centerEnds, intptr_t centerColors,
                             const int32_t *generalEnds, intptr_t generalColors, dk_stage_progress *progress,
                             intptr_t participant);

#endif
