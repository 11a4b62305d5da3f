import DynamicsSIMD

/// The threads a world's step runs on: a count, the world's own pool (started when a step first has enough work
/// for it), or an executor the host supplies.
struct WorkerState {
    /// Threads in all, the caller's included.
    var workerCount = WorkerPool.processorCount
    /// The host's executor, used instead of the world's pool when set.
    var hostExecutor: StepExecutor?
    /// The world's pool, started on first use and replaced when `workerCount` changes.
    var pool: WorkerPool?
    /// Passes handed to an executor so far (for tests: that a scene took the parallel path).
    var parallelPasses = 0
    /// This step's time in passes handed to an executor, nanoseconds.
    var parallelNanoseconds: Int64 = 0
    /// Steps left to run on the caller's thread alone after workers were seen held up (`updateWorkerBackoff`), and
    /// the length of the next such back-off.
    var backoffSteps = 0
    var backoffLength = WorkerState.shortestBackoff
    /// Steps on the workers since the last stall (`updateWorkerBackoff`).
    var stepsSinceStall = 0
    /// The time the steps on the workers waited for a participant that was not running (stalled), and their time,
    /// nanoseconds, each summed over about the last 64 such steps (each step's sum loses a 64th before the step's is
    /// added).
    var stallWindow: Int64 = 0, stepWindow: Int64 = 0
    /// The world backs off when over this share of its recent time on the workers (`stallWindow` against
    /// `stepWindow`) was stalled: a core held by another process gives a worker its time in slices of a few
    /// milliseconds, each of which stalls a step by as much; a shared host that preempts a worker now and then for a
    /// millisecond or two stays on the workers.
    static let stallShareToBackOff = 0.10
    /// The trial of one thread: every `trialGap` steps on the workers, `trialLength` steps run on the caller's
    /// thread alone, and their time is set against the mean of the `trialLength` steps on the workers before them and
    /// the `trialLength` after (a scene whose steps grow cheaper as it calms would otherwise make one thread look
    /// faster). A host whose other tenants take a core's time in slices too fine for a participant to see any one
    /// long wait, or whose cores pass each other's writes slowly, can make the workers slower than one thread; the
    /// trial finds that out, and the world backs off as after a stall. The gap doubles from `firstTrial` to
    /// `trialInterval` with each trial that keeps the workers by a close call, and goes to `trialInterval` at once
    /// when they were clearly faster: a scene that is busy for a few hundred steps (a pile landing) is tried while it
    /// is busy, and a scene the workers serve well pays for one trial early and then one every `trialInterval`. A
    /// trial whose first steps are plainly slower than the workers' ends there.
    var untilTrial = WorkerState.firstTrial
    var trialGap = WorkerState.firstTrial
    var trialLeft = 0
    /// Steps on the workers left to time after the trial's.
    var afterTrialLeft = 0
    /// Nanoseconds of the steps on the workers timed for a trial (the `trialLength` before it, then with the
    /// `trialLength` after it) and of the trial's steps; and the longest step on the workers, and of the trial's. The
    /// comparison leaves out the longest step of each side: one step can take several times its neighbours' time for
    /// a reason that has nothing to do with the threads (a table growing with the contacts, its pages touched for the
    /// first time; the process preempted for a moment), and it would decide the trial alone (rain_4000 backed off
    /// after its first trial in 2 runs of 20 for a step of 0.86 ms among steps of 0.2–0.3 ms).
    var workersWindow: Int64 = 0, callerWindow: Int64 = 0
    var workersLongest: Int64 = 0, callerLongest: Int64 = 0
    /// The steps on the workers timed before the trial: `trialLength`, or none for the back-off's (whose steps on the
    /// workers are all after it).
    var workersBefore = WorkerState.trialLength
    static let trialInterval = 240
    static let trialLength = 4
    /// The first trial comes once the workers have run a few steps: the first steps of a pile landing are its
    /// busiest, and where two threads are slower than one they cost the most. A back-off's last `trialLength` steps
    /// are the trial for the `trialLength` on the workers after it (a core held by another process keeps the world on
    /// one thread, its back-offs doubling, and is not given more steps on the workers between them than that), and
    /// the gaps then double again from `firstTrial`. The workers' first steps, which wake the pool, are not timed
    /// for it.
    static let firstTrial = 8
    /// Whether this step runs on the caller's thread alone (a back-off or a trial).
    var callerOnly: Bool { backoffSteps > 0 || trialLeft > 0 }
    /// Whether the back-offs and trials run (`World.workersAdapt`).
    var adapts = true
    /// Back-offs last from one second of steps to a minute.
    static let shortestBackoff = 60
    static let longestBackoff = 3600
    /// The staged passes' shared counters (allocated with the world, freed with it).
    let progress: OpaquePointer = dk_stage_progress_create()
    /// The block passes' claims (`sumOverBlocks` on the world's own pool).
    let blockProgress: OpaquePointer = dk_stage_progress_create()
    /// One count per block of a block pass (`sumOverBlocks`).
    let blockCounts = UnsafeMutablePointer<Int>.allocate(capacity: WorkerState.maximumBlocks)
    /// The most blocks a block pass is cut into.
    static let maximumBlocks = 64

    /// The fewest contact batches (of four constraints) in a claimed block: about half a microsecond of work.
    static let contactBlock = 16
    /// Below this many batches a pass runs on the caller's thread alone: handing it out would cost more than it saves.
    static let parallelContactBatches = 128
    /// Candidate pairs per narrowphase chunk at least, and the fewest pairs worth handing out (tests lower it to
    /// reach the parallel path with small scenes).
    static let pairChunk = 512
    var parallelPairs = 1024
    /// The broadphase's passes on the workers (tests lower these to reach them with small scenes): bodies per block
    /// of the box sweep at least and the fewest awake bodies worth handing out; the same for the candidates'
    /// filter (candidate pairs) and the grid search's cell pass (cell entries). Each pass costs a few nanoseconds an
    /// item and handing one out about a microsecond: from these sizes two threads gain (rain_1000's thousand items
    /// run about 1.15× faster on two workers with these passes handed out than with them on the caller's thread).
    var sweepBlock = 256, parallelSweep = 512
    var candidateBlock = 512, parallelCandidates = 2048
    var cellEntryBlock = 512, parallelCellEntries = 1024
    /// The pair keys' sort on the workers (`sortPairsOnWorkers`): keys per block at least, and the fewest worth it
    /// (rain_4000's 12,000–15,000 pairs: sorted on the caller's thread alone, they are about a tenth of its work
    /// outside the workers' passes).
    var sortBlock = 4096, parallelSortKeys = 8192
    /// The search of the bodies that left their fat boxes (`searchMovers`): movers per block at least, and the fewest
    /// worth handing out.
    var moverBlock = 128, parallelMovers = 256
    /// The fewest contacts for which the coloring reads their bodies' slots on the workers first (`colorContacts`).
    var parallelColoring = 8192
    /// The fewest awake bodies for which the step's other passes over every body (the rest test, the manifolds'
    /// reference poses, the continuous pass's start and its check of the ends) run on the workers, in blocks of
    /// 2,048 at least, and the fewest contacts for which the islands' union-find does. Each pass is a few
    /// nanoseconds a body on the caller's thread while the helper waits: rain_4000 (4,000 bodies) spent 16–17% of
    /// its time on two workers outside their passes with these (and the continuous pass's tests) on the caller's
    /// thread, 12% with them handed out. Its step took as long on two cores (handing a short pass out costs about
    /// what the helper's half saves there); with more cores the shorter part on one thread is what bounds the gain.
    var parallelRestTest = 2048, parallelUnion = 8192
    /// The fewest bodies the continuous pass tests (those near a static shape, and those that ended away from where
    /// their velocity would have taken them: in a pile, most of its bodies) for which the tests run on the workers,
    /// and the fewest per block. A test looks up the static shapes near the body's path, a few hundred instructions.
    var parallelContinuous = 128, continuousBlock = 32
    /// Bodies per block at least of the substeps' passes over the bodies (integration, the packed state's copies):
    /// a pass of 10,000 bodies cut into about twenty blocks, so that the last block to finish ends close to the
    /// others, and one of 1,000 into two (rain_1000 ran 0.93–0.99 of the time on two workers, medians of four sets,
    /// with its packed copies in two blocks of 512 and under instead of on the caller's thread, pyramid_40 0.96;
    /// joint_grid_100 0.98 and pyramid_100 0.97 with blocks half as large).
    static let bodyBlock = 512
    /// The fewest awake bodies for which the substeps' velocity integration and the speed limits run on the workers,
    /// and the fewest bodies of the contacts' or the rods' packed state for which its copies (and the moves and kicks
    /// they take in, `PackedFusion`) do. The velocity integration streams through its columns at about 0.2 ns a body:
    /// 10,000 bodies take 2 µs, too little to hand out (joint_grid_100 ran 2.5% faster on two workers with it on the
    /// caller's thread). The packed state's copies (a few nanoseconds a body) are handed out where they make two
    /// blocks, the second at least half full: a 50-side joint grid (2,500 bodies) ran 0.80 of the time pinned to two
    /// workers with them handed out from 2,048 bodies instead of 4,096 (0.94 free to fall back to one thread).
    var parallelIntegration = 32768, parallelPackedCopy = 768
    /// The same for rod batches (cheaper than contacts: more of them make a block and a pass).
    static let rodBlock = 32
    static let parallelRodBatches = 256
}

extension WorkerState {
    /// The back-off's bookkeeping after a step of `step` nanoseconds that spent `parallel` of them in passes handed
    /// to the workers, `stalled` of those waiting for work another participant had claimed
    /// (`World.updateWorkerBackoff`).
    mutating func recordStep(stalled: Int64, parallel: Int64, step: Int64) {
        guard adapts else { return }
        if backoffSteps > 0 {
            backoffSteps -= 1
            // The back-off's last steps are the trial of one thread for the steps on the workers after it: where the
            // workers are still no faster (a core still held, a host still slow), the world backs off again after
            // `trialLength` steps on them, not after more steps on them and a trial's on one thread.
            if backoffSteps < WorkerState.trialLength {
                if backoffSteps == WorkerState.trialLength - 1 { startCallerWindow() }
                timeCaller(step)
                if backoffSteps == 0 {
                    clearWorkersWindow()
                    startWorkersAfter(timedBefore: 0)
                }
            }
            return
        }
        if trialLeft > 0 {
            timeCaller(step)
            trialLeft -= 1
            // One thread already plainly slower (its steps so far took over 1.5 times as long as the workers' before
            // the trial, on average): the rest of the trial would only cost their time, and a scene growing busier
            // does not grow 1.5 times busier in a step or two. The workers stay, the next trial the longest gap on.
            let run = Int64(WorkerState.trialLength - trialLeft)
            if callerWindow * 2 * Int64(WorkerState.trialLength) > workersWindow * 3 * run {
                trialLeft = 0
                trialGap = WorkerState.trialInterval
                untilTrial = trialGap
                clearWorkersWindow()
                return
            }
            if trialLeft == 0 { startWorkersAfter(timedBefore: WorkerState.trialLength) }
            return
        }
        guard parallel > 0 else {
            // A step with nothing handed out (a scene asleep, or too small for the workers) parts the steps a pending
            // comparison would set side by side: a pile asleep at a back-off's end must not stand for the steps on
            // the workers once it wakes. The comparison is dropped, and the next trial comes twice the gap on (a scene
            // whose steps hand out work only now and then is not tried every few steps).
            if afterTrialLeft > 0 {
                afterTrialLeft = 0
                clearWorkersWindow()
                trialGap = Swift.min(2 * trialGap, WorkerState.trialInterval)
                untilTrial = trialGap
            }
            return
        }
        // The window starts as if the steps before had run this long, unstalled.
        if stepWindow == 0 { stepWindow = 64 * step }
        stallWindow += stalled - stallWindow / 64
        stepWindow += step - stepWindow / 64
        if Double(stallWindow) > WorkerState.stallShareToBackOff * Double(stepWindow) {
            backOff()
            return
        }
        // The back-off shortens again only after as many steps in a row without a stall (a wait over a quarter of
        // the step's parallel time): a core shared with another process gives the worker its time in slices, and a
        // few good steps between them do not mean the core is free.
        if stalled * 4 > parallel {
            stepsSinceStall = 0
        } else {
            stepsSinceStall += 1
            if stepsSinceStall >= backoffLength {
                backoffLength = Swift.max(backoffLength / 2, WorkerState.shortestBackoff)
                stepsSinceStall = 0
            }
        }
        if afterTrialLeft > 0 {
            timeWorkers(step)
            afterTrialLeft -= 1
            if afterTrialLeft == 0 {
                // The workers stay only where they saved over 2% of one thread's time (their mean step against the
                // trial's): a second thread that saves less, or loses, is not worth its core (pyramid_20, 210 items,
                // ran 4% slower on two). The margin is as wide as the noise of a few steps, so a scene the workers
                // serve by 10% or more is not taken off them by chance. Each side's mean leaves out its longest step:
                // the workers' over their steps before the trial (none after a back-off) and after it, less one; the
                // trial's over trialLength − 1.
                let length = Int64(WorkerState.trialLength), workersTimed = Int64(workersBefore) + length
                let workers = (workersWindow - workersLongest) * (length - 1)
                let caller = (callerWindow - callerLongest) * (workersTimed - 1)
                let oneThreadFaster = workers * 50 >= caller * 49
                // The workers clearly faster (one thread took 30% longer): the longest gap at once, as each trial
                // costs its steps' time on one thread; a close call, twice the last gap.
                let workersClearlyFaster = caller * 10 > workers * 13
                trialGap = workersClearlyFaster ? WorkerState.trialInterval : Swift.min(2 * trialGap, WorkerState.trialInterval)
                untilTrial = trialGap
                clearWorkersWindow()
                if oneThreadFaster { backOff() }
            }
            return
        }
        untilTrial -= 1
        if untilTrial < WorkerState.trialLength { timeWorkers(step) }
        if untilTrial == 0 {
            trialLeft = WorkerState.trialLength
            startCallerWindow()
        }
    }

    private mutating func startCallerWindow() { callerWindow = 0; callerLongest = 0 }
    private mutating func timeCaller(_ step: Int64) {
        callerWindow += step
        callerLongest = Swift.max(callerLongest, step)
    }
    private mutating func clearWorkersWindow() { workersWindow = 0; workersLongest = 0 }
    private mutating func timeWorkers(_ step: Int64) {
        workersWindow += step
        workersLongest = Swift.max(workersLongest, step)
    }
    /// Times the next `trialLength` steps on the workers too, after `timedBefore` timed before the trial.
    private mutating func startWorkersAfter(timedBefore: Int) {
        afterTrialLeft = WorkerState.trialLength
        workersBefore = timedBefore
    }

    /// Runs the next `backoffLength` steps on the caller's thread, and doubles the length of the next back-off.
    private mutating func backOff() {
        stallWindow = 0
        backoffSteps = backoffLength
        backoffLength = Swift.min(2 * backoffLength, WorkerState.longestBackoff)
        stepsSinceStall = 0
        untilTrial = WorkerState.firstTrial
        trialGap = WorkerState.firstTrial
        clearWorkersWindow()
        afterTrialLeft = 0
    }
}

extension World {
    /// Whether the step leaves its workers for the caller's thread alone while they are held up (another process
    /// holds a core) or slower than one thread (the trials); default true. Off, every pass with enough work runs on
    /// the workers, whatever the timing: for measuring that path, e.g. its allocations, the same in every run. The
    /// results are the same either way.
    public var workersAdapt: Bool {
        get { workers.adapts }
        set {
            workers.adapts = newValue
            if !newValue { workers.backoffSteps = 0; workers.trialLeft = 0; workers.afterTrialLeft = 0 }
        }
    }

    /// The number of threads the step runs on, the caller's included (1: the caller's only). Defaults to the
    /// machine's processor cores. Results are bit-identical for every count.
    public var workerCount: Int { workers.hostExecutor?.concurrency ?? workers.workerCount }

    /// Sets the number of threads the step runs on (the world's own pool; see `setExecutor(_:)` for a host's).
    /// Throws a `DynamicsError` unless `count` is between 1 and `WorkerPool.maximumWorkers`.
    public func setWorkerCount(_ count: Int) throws {
        guard count >= 1 && count <= WorkerPool.maximumWorkers else {
            throw DynamicsError("World.workerCount must be between 1 and \(WorkerPool.maximumWorkers), got \(count)")
        }
        workers.workerCount = count
        if workers.pool?.concurrency != count { workers.pool = nil }
    }

    /// Runs the step's parallel stages on `executor` instead of the world's own pool (nil: back to the pool). The
    /// results are the same to the bit.
    public func setExecutor(_ executor: StepExecutor?) {
        workers.hostExecutor = executor
        if executor != nil { workers.pool = nil }
    }

    /// Runs `body` over `0 ..< count` cut into consecutive blocks of at least `minimumBlock` (a multiple of 16, so
    /// blocks start on every kernel's lane boundary) and at most `WorkerState.maximumBlocks` blocks, on the executor
    /// when `count` reaches `parallelMinimum`; returns the sum of what the calls return. Each call must write only to
    /// its own block's slots: the result is then the same whichever thread runs which block.
    func sumOverBlocks(count: Int, minimumBlock: Int, parallelMinimum: Int, _ body: (Range<Int>) -> Int) -> Int {
        guard count > 0 else { return 0 }
        guard let executor = executor(work: count, minimum: parallelMinimum) else { return body(0..<count) }
        let perBlock = Swift.max(minimumBlock, (count + WorkerState.maximumBlocks - 1) / WorkerState.maximumBlocks + 15) & ~15
        let blocks = (count + perBlock - 1) / perBlock
        let counts = workers.blockCounts
        @inline(__always) func run(_ k: Int) {
            let from = k * perBlock
            counts[k] = body(from..<Swift.min(from + perBlock, count))
        }
        if executor is WorkerPool {
            // Each thread takes the same part of the bodies in every pass first (`dk_blocks_next`).
            let progress = workers.blockProgress
            dk_stage_progress_reset(progress, 1, 1, executor.concurrency)
            runParticipants(executor) { participant in
                var cursor = 0
                while case let k = dk_blocks_next(progress, blocks, participant, &cursor), k >= 0 { run(k) }
            }
        } else {
            runParallel(executor, blocks) { run($0) }
        }
        var sum = 0
        for k in 0..<blocks { sum += counts[k] }
        return sum
    }

    /// The blocks of a pass over `count` bodies (or entries) that the participants of a staged pass run after its
    /// stages, in the same task: stage `stage` of the pass's `progress`, cut as `sumOverBlocks` cuts it, each
    /// participant taking its own part first (`dk_stage_blocks_next`). One task on the workers instead of two, and no
    /// gap between the pass and the copy; which participant runs a block changes no result.
    @inline(__always)
    func runBlocksAfterStages(_ progress: OpaquePointer, stage: Int, count: Int, participant: Int,
                              _ body: (Range<Int>) -> Void) {
        guard count > 0 else { return }
        let perBlock = Swift.max(WorkerState.bodyBlock, (count + WorkerState.maximumBlocks - 1) / WorkerState.maximumBlocks + 15) & ~15
        let blocks = (count + perBlock - 1) / perBlock
        var cursor = 0
        while case let k = dk_stage_blocks_next(progress, stage, blocks, participant, &cursor), k >= 0 {
            let from = k * perBlock
            body(from..<Swift.min(from + perBlock, count))
        }
    }

    /// Runs `body` over `0 ..< count` in blocks as the packed states' copies do (`forEachBlock`).
    func copyBlocks(_ count: Int, _ body: (Range<Int>) -> Void) {
        forEachBlock(count: count, minimumBlock: WorkerState.bodyBlock, parallelMinimum: workers.parallelPackedCopy, body)
    }

    /// `sumOverBlocks` for a body that says whether something holds in its block: whether it held in any.
    func anyInBlocks(count: Int, minimumBlock: Int, parallelMinimum: Int, _ body: (Range<Int>) -> Bool) -> Bool {
        sumOverBlocks(count: count, minimumBlock: minimumBlock, parallelMinimum: parallelMinimum) { body($0) ? 1 : 0 } > 0
    }

    /// `anyInBlocks` for a body that only writes its block.
    func forEachBlock(count: Int, minimumBlock: Int, parallelMinimum: Int, _ body: (Range<Int>) -> Void) {
        _ = anyInBlocks(count: count, minimumBlock: minimumBlock, parallelMinimum: parallelMinimum) { range -> Bool in
            body(range)
            return false
        }
    }

    /// Runs one task per participant of a staged pass on `executor`, each told which participant it is: on the world's
    /// own pool the thread's index in it, so the same thread starts on the same part of each color in every pass (a
    /// host's executor gets the task's index).
    func runParticipants(_ executor: StepExecutor, _ task: (Int) -> Void) {
        let own = executor is WorkerPool
        runParallel(executor, executor.concurrency) { k in task(own ? dk_pool_participant() : k) }
    }

    /// Runs `count` tasks on `executor`, timing them for the back-off.
    func runParallel(_ executor: StepExecutor, _ count: Int, _ task: (Int) -> Void) {
        let start = dk_clock_ns()
        workers.parallelPasses &+= 1
        executor.run(count, task)
        workers.parallelNanoseconds &+= dk_clock_ns() - start
    }

    /// Once per step: when participants of the passes waited, for blocks or tasks another had claimed, a worker was
    /// not running (another process holds its core); when such waits took over `WorkerState.stallShareToBackOff` of
    /// the last steps' time, spinning for it costs more than it saves. The step then runs on the caller's thread
    /// alone for a while (a second of steps, doubling while it recurs, up to a minute), and tries its workers again.
    /// So it does when a trial of one thread (`WorkerState.trialLength` steps, after gaps of `firstTrial` growing to
    /// `trialInterval`) took less time than the workers' steps on either side of it. The results are the same either
    /// way.
    func updateWorkerBackoff(stepNanoseconds: Int64) {
        // The staged passes' waits, and the waits of the world's own pool for the other passes' tasks.
        let stalled = dk_stage_progress_take_stalled(workers.progress) + (workers.pool?.takeStalledNanoseconds() ?? 0)
        workers.recordStep(stalled: stalled, parallel: workers.parallelNanoseconds, step: stepNanoseconds)
        workers.parallelNanoseconds = 0
    }

    /// The executor for a stage with `work` units of at least `minimum`, or nil to run it on the caller's thread.
    func executor(work: Int, minimum: Int) -> StepExecutor? {
        guard work >= minimum, !workers.callerOnly else { return nil }
        if let host = workers.hostExecutor { return host.concurrency > 1 ? host : nil }
        guard workers.workerCount > 1 else { return nil }
        if let pool = workers.pool { return pool }
        do {
            let pool = try WorkerPool(workers: workers.workerCount)
            workers.pool = pool
            return pool
        } catch {
            // Threads could not be started: the step runs on the caller's thread (the same results), and says so.
            warnings.append("\(error); the step runs on one thread")
            workers.workerCount = 1
            return nil
        }
    }
}

/// How a copy out of a packed state runs its blocks (`moveInCopy`, `kickPacked`, the plain copies) after the pass
/// before it (`RodPassThenCopy`, `ContactPassThenCopy`): `body` over `0 ..< count` in blocks, each writing its own
/// entries' bodies only. Generic rather than a closure, so that each copy's loop is compiled for the way it runs.
protocol CopyBlocks {
    func callAsFunction(_ count: Int, _ body: (Range<Int>) -> Void)
}
