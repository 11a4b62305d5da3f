import Dispatch
import XCTest
@testable import DynamicsCore
import DynamicsScenes
import DynamicsSIMD

/// The step on several threads: the same state to the bit for every worker count and executor.
final class WorkerTests: XCTestCase {
    /// Runs `scene` for `steps` steps on `workers` threads (or the host's `executor`); returns the state hash and how
    /// many passes were handed to the executor.
    /// The hash also covers every step's contact events, in order (the narrowphase makes them, in chunks on
    /// several workers); every pass that can run on the workers does from 64 items here (`handOutEveryPass`), to reach
    /// them with small scenes.
    func run(_ scene: BenchmarkScene, steps: Int, substeps: Int = 4, workers: Int = 1,
             executor: StepExecutor? = nil, settings: WorldSettings = WorldSettings()) throws -> (hash: UInt64, parallel: Int) {
        let world = try World(settings: settings)
        try world.setWorkerCount(workers)
        world.workers.handOutEveryPass(from: 64)
        if let executor { world.setExecutor(executor) }
        _ = try world.build(scene)
        var events: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ id: BodyID) { events = (events ^ UInt64(UInt32(bitPattern: id.index))) &* 0x100_0000_01b3 }
        for _ in 0..<steps {
            try world.step(dt: 1.0 / 60, substeps: substeps)
            for e in world.contactBeganEvents { mix(e.bodyA); mix(e.bodyB) }
            for e in world.contactEndedEvents { mix(e.bodyB); mix(e.bodyA) }
        }
        return (world.stateHash() ^ events, world.workers.parallelPasses)
    }

    /// Runs `scene` on one worker, then on 2, 3 and 4: each of those must hand some pass to the pool and end in the
    /// one-worker run's state, events included. Returns the one-worker run.
    @discardableResult
    func assertSameOnTwoToFourWorkers(_ scene: BenchmarkScene, steps: Int, settings: WorldSettings = WorldSettings(),
                                      file: StaticString = #filePath, line: UInt = #line) throws -> (hash: UInt64, parallel: Int) {
        let one = try run(scene, steps: steps, settings: settings)
        for workers in 2...4 {
            let many = try run(scene, steps: steps, workers: workers, settings: settings)
            XCTAssertGreaterThan(many.parallel, 0, "\(workers) workers: no pass ran in parallel", file: file, line: line)
            XCTAssertEqual(many.hash, one.hash, "\(workers) workers", file: file, line: line)
        }
        return one
    }

    func test_rain_isBitIdenticalOnOneToFourWorkers() throws {
        let one = try assertSameOnTwoToFourWorkers(.rain(1000), steps: 250)
        XCTAssertEqual(one.parallel, 0)
    }

    func test_pyramid_isBitIdenticalOnOneToFourWorkers() throws {
        var stiff = WorldSettings()
        stiff.contactHertz = 60
        try assertSameOnTwoToFourWorkers(.pyramid(40), steps: 40, settings: stiff)
    }

    /// Rigid links: the rod batches' passes, color by color.
    func test_jointGrid_isBitIdenticalOnOneToFourWorkers() throws {
        try assertSameOnTwoToFourWorkers(.jointGrid(40), steps: 20)
    }

    /// The continuous pass's tests in blocks on the workers: 200 small items resting on a static block under an
    /// acceleration far harder than their soft contacts hold (2,000 times gravity), so that they sink into it. The
    /// pass puts them back (it must, or the test proves nothing), with the same bits on one to four workers.
    func test_continuousPass_isBitIdenticalOnOneToFourWorkers() throws {
        func run(workers: Int) throws -> (hash: UInt64, stops: Int) {
            let world = World()
            world.setCollisionMatrix(classCount: 2) { a, b in a == 1 && b == 1 }
            try world.setWorkerCount(workers)
            world.workers.handOutEveryPass(from: 64)
            var block = BodyDefinition(); block.type = .static; block.collisionClass = 1
            block.position = Vec2(700, 600)
            block.shapes = [.box(width: 1400, height: 200)]
            try world.createBody(block)
            for k in 0..<200 {
                var d = BodyDefinition.box(center: Vec2(10 + 6.5 * Float(k), 497.5 + 0.001 * Float(k % 7)), width: 4, height: 4)
                d.collisionClass = 1
                d.gravity = Vec2(Float(k % 5) * 2_000 - 4_000, 2_000_000)
                try world.createBody(d)
            }
            for _ in 0..<10 { try world.step(dt: 1.0 / 60, substeps: 4) }
            return (world.stateHash(), world.continuousPass.stops)
        }
        let one = try run(workers: 1)
        XCTAssertGreaterThan(one.stops, 0, "the continuous pass put no item back")
        for workers in 2...4 {
            let many = try run(workers: workers)
            XCTAssertEqual(many.stops, one.stops, "\(workers) workers")
            XCTAssertEqual(many.hash, one.hash, "\(workers) workers")
        }
    }

    /// Free motion (no contact, no joint): the free-motion pass in blocks of bodies.
    func test_freeMotion_isBitIdenticalOnOneToFourWorkers() throws {
        try assertSameOnTwoToFourWorkers(.fieldSwarm(40000), steps: 10)
    }

    /// Where wide contacts alone hold every awake body (a standing stack, a pile at rest), the solve pass's copy-out
    /// is the substep's position update and the relax pass's the next substep's velocity integration: the same
    /// bits, on one thread and on several, as the passes of their own; with a damped item the velocity pass runs.
    func test_contactsCopyOutMovesTheBodies_matchesThePasses() throws {
        /// The state hash after `steps` steps and the steps whose copy-out moved the bodies.
        func run(_ scene: BenchmarkScene, steps: Int, fused: Bool, workers: Int, damped: Bool = false) throws -> (UInt64, moved: Int, kicked: Int) {
            var settings = WorldSettings()
            settings.contactHertz = 60
            let world = try World(settings: settings)
            try world.setWorkerCount(workers)
            world.workers.handOutEveryPass(from: 64)
            world.contactSolver.moveInCopy = fused
            let (items, _) = try world.build(scene)
            if damped { try world.setMaterial(items[7], restitution: 0, friction: 0.5, linearDamping: 0.5, angularDamping: 0, charge: 0) }
            for _ in 0..<steps { try world.step(dt: 1.0 / 60, substeps: 4) }
            return (world.stateHash(), world.contactSolver.movedSteps, world.contactSolver.kickedSteps)
        }
        for (name, scene, steps) in [("pyramid_30", BenchmarkScene.pyramid(30), 40), ("rain_1000", .rain(1000), 250)] {
            for damped in [false, true] {
                let reference = try run(scene, steps: steps, fused: false, workers: 1, damped: damped)
                XCTAssertEqual(reference.moved, 0)
                for workers in [1, 2, 3] {
                    let fused = try run(scene, steps: steps, fused: true, workers: workers, damped: damped)
                    XCTAssertGreaterThan(fused.moved, steps / 4, "\(name), \(workers) workers: the copy-out moved the bodies")
                    if damped {
                        XCTAssertEqual(fused.kicked, 0, "a damped item keeps the velocity pass")
                    } else {
                        XCTAssertEqual(fused.kicked, fused.moved, "gravity alone: the relax pass's copy-out integrates")
                    }
                    XCTAssertEqual(fused.0, reference.0, "\(name), \(workers) workers, damped: \(damped)")
                }
            }
        }
    }

    /// A host's executor (here Dispatch's) gives the world's results to the bit.
    func test_hostExecutor_givesTheSameState() throws {
        final class DispatchExecutor: StepExecutor {
            let concurrency = 3
            func run(_ count: Int, _ task: (Int) -> Void) {
                // The world's tasks are safe to run at once (each writes its own outputs); Dispatch wants a Sendable
                // closure, so the task is passed as one.
                withoutActuallyEscaping(task) { task in
                    nonisolated(unsafe) let task = task
                    DispatchQueue.concurrentPerform(iterations: count) { task($0) }
                }
            }
        }
        let one = try run(.rain(1000), steps: 250)
        let hosted = try run(.rain(1000), steps: 250, executor: DispatchExecutor())
        XCTAssertGreaterThan(hosted.parallel, 0)
        XCTAssertEqual(hosted.hash, one.hash)
    }

    /// An executor that runs every task on the calling thread, in reverse order: a staged pass still completes
    /// (participants never wait for one that has not started) and gives the same state.
    func test_serialReversedExecutor_completesAndGivesTheSameState() throws {
        final class Reversed: StepExecutor {
            let concurrency = 4
            func run(_ count: Int, _ task: (Int) -> Void) { for i in (0..<count).reversed() { task(i) } }
        }
        let one = try run(.pyramid(30), steps: 30)
        let reversed = try run(.pyramid(30), steps: 30, executor: Reversed())
        XCTAssertEqual(reversed.hash, one.hash)
    }

    /// The pair sort on the workers gives the standard library's sort, whatever the lengths of the buckets: ids
    /// spread thin, a few ids with many pairs (a boundary under a pile) and repeated keys.
    func test_pairSortOnWorkers_matchesTheStandardSort() throws {
        let world = World()
        try world.setWorkerCount(3)
        world.workers.parallelSortKeys = 64; world.workers.sortBlock = 32
        _ = try world.build(.rain(300))
        var rng = SplitMix64(state: 99)
        let ids = UInt64(world.bodies.idCapacity)
        for n in [64, 65, 1000, 20000] {
            var keys = (0..<n).map { k -> UInt64 in
                // One key in four has id 0 or 1 as its lower id; one in eight repeats the key before it.
                let a = k % 4 == 0 ? UInt64(k % 8 == 0 ? 0 : 1) : UInt64.random(in: 0..<ids, using: &rng)
                let b = UInt64.random(in: 0..<ids, using: &rng)
                return min(a, b) << 32 | max(a, b)
            }
            for k in stride(from: 8, to: n, by: 8) { keys[k] = keys[k - 1] }
            let expected = keys.sorted()
            XCTAssertTrue(world.sortPairsOnWorkers(&keys), "\(n) keys on the workers")
            XCTAssertEqual(keys, expected, "\(n) keys")
        }
        world.workers.parallelSortKeys = 100_000
        var few: [UInt64] = [3, 1, 2]
        XCTAssertFalse(world.sortPairsOnWorkers(&few), "below the minimum the caller sorts")
        XCTAssertEqual(few, [3, 1, 2])
    }

    /// A block pass's claims (`dk_blocks_next`): each participant starts on its own run of blocks, and between them
    /// the participants claim every block exactly once, from four threads at once too.
    func test_blockClaims_startAtHome_andCoverEveryBlockOnce() {
        let progress = dk_stage_progress_create()!
        defer { dk_stage_progress_destroy(progress) }
        // More participants than have runs of their own (256) too; and each pass after one left blocks untaken, whose
        // runs must not carry over.
        for (blocks, participants) in [(10, 2), (64, 3), (5, 4), (1, 2), (64, 64), (64, 300), (3, 300)] {
            dk_stage_progress_reset(progress, 1, 1, participants)
            var unused = 0
            _ = dk_blocks_next(progress, blocks, participants - 1, &unused)
            dk_stage_progress_reset(progress, 1, 1, participants)
            var firsts: [Int] = []
            var seen = [Int](repeating: 0, count: blocks)
            for p in 0..<participants {
                var cursor = 0
                let first = dk_blocks_next(progress, blocks, p, &cursor)
                firsts.append(first)
                if first >= 0 { seen[first] += 1 }
            }
            // (With fewer blocks than participants, one without a run of its own takes another's first.)
            for p in 0..<participants where blocks >= participants && participants <= 256 {
                XCTAssertEqual(firsts[p], p * blocks / participants, "participant \(p) of \(participants), \(blocks) blocks")
            }
            for p in 0..<participants {
                var cursor = 0
                while true {
                    let b = dk_blocks_next(progress, blocks, p, &cursor)
                    if b < 0 { break }
                    seen[b] += 1
                }
            }
            XCTAssertEqual(seen, [Int](repeating: 1, count: blocks), "\(blocks) blocks, \(participants) participants")
        }
        // Four threads at once.
        let counts = UnsafeMutablePointer<Int>.allocate(capacity: 64)
        defer { counts.deallocate() }
        for _ in 0..<200 {
            counts.initialize(repeating: 0, count: 64)
            dk_stage_progress_reset(progress, 1, 1, 4)
            nonisolated(unsafe) let shared = counts
            nonisolated(unsafe) let claims = progress
            DispatchQueue.concurrentPerform(iterations: 4) { p in
                var cursor = 0
                while true {
                    let b = dk_blocks_next(claims, 64, p, &cursor)
                    if b < 0 { break }
                    shared[b] += 1
                }
            }
            XCTAssertEqual(Array(UnsafeBufferPointer(start: counts, count: 64)), [Int](repeating: 1, count: 64))
        }
    }

    /// The union-find joined from four threads at once (DynamicsUnion.h) leaves the table one thread's joins leave:
    /// every index pointing at the smallest of its group.
    func test_concurrentUnionFind_leavesTheSerialTable() {
        var rng = SplitMix64(state: 7)
        let n = 5000
        for edgeCount in [10, 2000, 20000] {
            let edges = (0..<edgeCount).map { _ in (Int32.random(in: 0..<Int32(n), using: &rng), Int32.random(in: 0..<Int32(n), using: &rng)) }
            var serial = (0..<Int32(n)).map { $0 }
            serial.withUnsafeMutableBufferPointer { p in
                for (a, b) in edges { UnionFind.join(p.baseAddress!, a, b) }
                for s in 0..<Int32(n) { _ = UnionFind.root(p.baseAddress!, s) }
            }
            var shared = (0..<Int32(n)).map { $0 }
            shared.withUnsafeMutableBufferPointer { p in
                nonisolated(unsafe) let table = p.baseAddress!
                DispatchQueue.concurrentPerform(iterations: 4) { k in
                    for e in stride(from: k, to: edgeCount, by: 4) { dk_union_join(table, edges[e].0, edges[e].1) }
                }
                DispatchQueue.concurrentPerform(iterations: 4) { k in
                    dk_union_flatten(table, k * n / 4, (k + 1) * n / 4)
                }
            }
            XCTAssertEqual(shared, serial, "\(edgeCount) edges")
        }
    }

    func test_workerCount_defaultsToTheCores_andIsChecked() throws {
        let world = World()
        XCTAssertEqual(world.workerCount, WorkerPool.processorCount)
        XCTAssertThrowsError(try world.setWorkerCount(0)) { error in
            XCTAssertEqual("\(error)", "World.workerCount must be between 1 and 256, got 0")
        }
        XCTAssertThrowsError(try world.setWorkerCount(257))
        XCTAssertThrowsError(try WorkerPool(workers: 0)) { error in
            XCTAssertEqual("\(error)", "WorkerPool: workers must be between 1 and 256, got 0")
        }
        try world.setWorkerCount(3)
        XCTAssertEqual(world.workerCount, 3)
    }

    /// A step whose participants waited over a quarter of its parallel time for a held-up worker sends the world to
    /// one thread for a second of steps, doubling while it recurs; the back-off halves only after as many steps in
    /// a row without a stall, so the good steps between a busy core's time slices do not undo it.
    func test_stalledSteps_backOffToOneThread_andShortenOnlyAfterAsManyCleanSteps() {
        var state = WorkerState()
        // Steps of 500 µs, 400 of them in parallel passes; the trials of one thread kept out (the next test).
        func clean(_ n: Int) {
            for _ in 0..<n { state.untilTrial = .max; state.recordStep(stalled: 0, parallel: 400_000, step: 500_000) }
        }
        /// A step that waited `stall` for a worker that was not running.
        func held(_ stall: Int64) {
            state.untilTrial = .max
            state.recordStep(stalled: stall, parallel: 400_000 + stall, step: 500_000 + stall)
        }
        // One thread is slower when no worker is held up (900 µs), so the steps on the workers after each back-off,
        // held up once in their first few, keep the workers.
        func onCaller(_ n: Int) { for _ in 0..<n { state.recordStep(stalled: 0, parallel: 0, step: 900_000) } }
        clean(1)
        XCTAssertFalse(state.callerOnly)
        // A worker preempted for a moment, once in a while (1.5 ms every 40 steps): the world stays on the workers.
        for _ in 0..<10 { held(1_500_000); clean(39) }
        XCTAssertFalse(state.callerOnly)
        XCTAssertEqual(state.backoffLength, WorkerState.shortestBackoff)
        // A core held by another process: the worker runs in slices, and a step waits 4 ms for it every 10 steps.
        // Within a few slices the stalls pass 10% of the time: one thread for 60 steps, the next back-off 120.
        var slices = 0
        while !state.callerOnly && slices < 10 { held(4_000_000); clean(9); slices += 1 }
        XCTAssertLessThanOrEqual(slices, 3)
        XCTAssertTrue(state.callerOnly)
        XCTAssertEqual(state.backoffLength, 120)
        onCaller(state.backoffSteps)
        XCTAssertFalse(state.callerOnly)
        // Good steps between stalls, as a shared core gives: the next back-off is longer, not shorter.
        slices = 0
        while !state.callerOnly && slices < 10 { held(4_000_000); clean(9); slices += 1 }
        XCTAssertTrue(state.callerOnly)
        XCTAssertEqual(state.backoffLength, 240)
        onCaller(state.backoffSteps)
        // A wait under a quarter of the parallel time is no stall for the shortening.
        state.recordStep(stalled: 90_000, parallel: 400_000, step: 500_000)
        XCTAssertFalse(state.callerOnly)
        // 240 clean steps in a row halve the back-off, and 120 more halve it again.
        clean(239)
        XCTAssertEqual(state.backoffLength, 120)
        clean(120)
        XCTAssertEqual(state.backoffLength, 60)
        clean(600)
        XCTAssertEqual(state.backoffLength, WorkerState.shortestBackoff)
    }

    /// After 8 steps on the workers, then 16, 32, 64, 128 and every 240 (every 240 from the first trial the workers
    /// clearly win), 4 run on the caller's thread alone; unless the 4 steps on the workers before them and the 4
    /// after took less time, on average, by over 2%, the world backs off as
    /// after a stall: a host whose other tenants take a core in slices too fine for any one wait to show can make two
    /// threads slower than one. Steps growing cheaper as a scene calms do not make one thread look faster. A trial
    /// whose steps so far took over 1.5 times the workers' ends early.
    func test_trialOfOneThread_backsOffWhenOneThreadIsFaster() {
        var state = WorkerState()
        /// `steps` on the workers (100 µs), the last starting a trial whose 4 steps run on the caller's thread
        /// (`caller`, 140 µs: two threads clearly faster), then the 4 after it on the workers: the workers stay.
        func trialKeepingTheWorkers(after steps: Int, caller: Int64 = 140_000, line: UInt = #line) {
            state.onWorkers(steps - 1, step: 100_000)
            XCTAssertFalse(state.callerOnly, line: line)
            state.onWorkers(1, step: 100_000)
            XCTAssertTrue(state.callerOnly, "the trial's 4 steps run on the caller's thread", line: line)
            state.onCaller(4, step: caller)
            XCTAssertFalse(state.callerOnly, line: line)
            state.onWorkers(4, step: 100_000)
            XCTAssertEqual(state.backoffSteps, 0, line: line)
        }
        // The first trial after 8 steps; while one thread comes close (110 µs against 100), the gap doubles up to
        // 240 steps on the workers after each trial's; when the workers are clearly faster, it is 240 at once.
        trialKeepingTheWorkers(after: 8, caller: 110_000)
        trialKeepingTheWorkers(after: 16, caller: 110_000)
        trialKeepingTheWorkers(after: 32, caller: 110_000)
        trialKeepingTheWorkers(after: 64)
        trialKeepingTheWorkers(after: 240)
        trialKeepingTheWorkers(after: 240, caller: 110_000)
        trialKeepingTheWorkers(after: 240)
        // A trial whose first step takes over 1.5 times the workers' ends after it: the workers stay, and the next
        // trial comes 240 steps on the workers later.
        state.onWorkers(240, step: 100_000)
        XCTAssertTrue(state.callerOnly)
        state.onCaller(1, step: 160_000)
        XCTAssertFalse(state.callerOnly, "one step of the trial plainly slower ends it")
        state.onWorkers(239, step: 100_000)
        XCTAssertFalse(state.callerOnly)
        XCTAssertEqual(state.backoffSteps, 0)
        // Two steps of 140 and 170 µs: 1.55 times on average, the trial ends after the second.
        state.onWorkers(1, step: 100_000)
        state.onCaller(1, step: 140_000)
        XCTAssertTrue(state.callerOnly)
        state.onCaller(1, step: 170_000)
        XCTAssertFalse(state.callerOnly)
        state.onWorkers(239, step: 100_000)
        XCTAssertFalse(state.callerOnly)
        state.onWorkers(1, step: 100_000)
        XCTAssertTrue(state.callerOnly)
        state.onCaller(4, step: 140_000)
        state.onWorkers(4, step: 100_000)
        // One thread faster (the workers' steps 100 µs, the caller's 90 µs): the back-off comes once the 4 steps after
        // the trial are timed.
        state.onWorkers(240, step: 100_000)
        state.onCaller(3, step: 90_000)
        XCTAssertTrue(state.callerOnly)
        state.onCaller(1, step: 90_000)
        XCTAssertFalse(state.callerOnly)
        state.onWorkers(3, step: 100_000)
        XCTAssertEqual(state.backoffSteps, 0)
        state.onWorkers(1, step: 100_000)
        XCTAssertEqual(state.backoffSteps, 60)
        XCTAssertEqual(state.backoffLength, 120)
        // The back-off's last 4 steps are the trial for the 4 on the workers after it; one thread still faster: the
        // next back-off, twice as long, comes after those 4.
        state.onCaller(60, step: 90_000)
        state.onWorkers(3, step: 100_000)
        XCTAssertFalse(state.callerOnly)
        XCTAssertEqual(state.backoffSteps, 0)
        state.onWorkers(1, step: 100_000)
        XCTAssertEqual(state.backoffSteps, 120)
        XCTAssertEqual(state.backoffLength, 240)
        // The workers saving 3% of one thread's time after it: they stay, and the trial after comes 16 steps on (the
        // gaps double again after a back-off).
        state.onCaller(120, step: 103_000)
        state.onWorkers(4, step: 100_000)
        XCTAssertEqual(state.backoffSteps, 0)
        XCTAssertFalse(state.callerOnly)
        // A scene calming: the workers' steps 130 µs before the trial and 70 µs after, the caller's 110 µs, less than
        // those before but more than the mean of both sides: no back-off.
        state.onWorkers(12, step: 100_000)
        state.onWorkers(4, step: 130_000)
        XCTAssertTrue(state.callerOnly)
        state.onCaller(4, step: 110_000)
        state.onWorkers(4, step: 70_000)
        XCTAssertEqual(state.backoffSteps, 0)
        XCTAssertFalse(state.callerOnly)
        // The workers saving 1%: not worth a second core, the world backs off (the gap had doubled to 32).
        state.onWorkers(32, step: 100_000)
        XCTAssertTrue(state.callerOnly)
        state.onCaller(4, step: 101_000)
        state.onWorkers(4, step: 100_000)
        XCTAssertEqual(state.backoffSteps, 240)
    }

    /// One step several times as long as its neighbours (a table growing, a preemption) does not decide a trial: each
    /// side's longest step is left out of its mean. The steps are rain_4000's first trial where it backed off: 0.86
    /// ms among the workers' 0.19–0.21 ms, the caller's 0.28–0.31 ms.
    func test_trialOfOneThread_leavesOutEachSidesLongestStep() {
        var state = WorkerState()
        state.onWorkers([290_000, 280_000, 270_000, 260_000, 862_000, 209_000, 197_000])
        XCTAssertFalse(state.callerOnly)
        state.onWorkers([194_000])
        XCTAssertTrue(state.callerOnly)
        state.onCaller([307_000, 298_000, 292_000, 277_000])
        XCTAssertFalse(state.callerOnly)
        state.onWorkers([234_000, 212_000, 206_000, 229_000])
        XCTAssertEqual(state.backoffSteps, 0, "the workers' mean without the long step is 0.21 ms against the caller's 0.29")
        XCTAssertEqual(state.trialGap, WorkerState.trialInterval, "the workers clearly faster")
        // Where one thread is faster, a long step on its side does not hide it: the workers' steps 100 µs, the
        // trial's 90 µs but one of 300.
        state.onWorkers(Array(repeating: 100_000, count: WorkerState.trialInterval - 1))
        XCTAssertFalse(state.callerOnly)
        state.onWorkers([100_000])
        XCTAssertTrue(state.callerOnly)
        state.onCaller([90_000, 90_000, 90_000, 300_000])
        state.onWorkers([100_000, 100_000, 100_000, 100_000])
        XCTAssertEqual(state.backoffSteps, WorkerState.shortestBackoff)
    }

    /// The back-off's last steps stand for one thread only against the steps on the workers right after them: where
    /// steps with nothing handed out come between (a pile asleep at the back-off's end, woken later), the comparison
    /// is dropped, and the next trial comes after twice `firstTrial` steps on the workers.
    func test_backOffsTrial_isDroppedWhenStepsWithoutWorkersComeBetween() {
        var state = WorkerState()
        // One thread faster at the first trial: a back-off of 60 steps.
        state.onWorkers(8, step: 100_000)
        state.onCaller(4, step: 90_000)
        state.onWorkers(4, step: 100_000)
        XCTAssertEqual(state.backoffSteps, WorkerState.shortestBackoff)
        // The pile falls asleep during the back-off: its last steps take 5 µs, and so do the steps after it.
        state.onCaller(56, step: 90_000)
        state.onCaller(4, step: 5_000)
        XCTAssertFalse(state.callerOnly)
        state.onCaller(30, step: 5_000)
        // Woken, the steps on the workers take 100 µs (one thread would take 150): they stay on the workers.
        state.onWorkers(4, step: 100_000)
        XCTAssertEqual(state.backoffSteps, 0)
        XCTAssertFalse(state.callerOnly)
        state.onWorkers(2 * WorkerState.firstTrial - 4 - 1, step: 100_000)
        XCTAssertFalse(state.callerOnly)
        state.onWorkers(1, step: 100_000)
        XCTAssertTrue(state.callerOnly, "the next trial, 2 · firstTrial steps on the workers after the back-off")
        state.onCaller(4, step: 150_000)
        state.onWorkers(4, step: 100_000)
        XCTAssertEqual(state.backoffSteps, 0)
    }

    /// With the workers pinned (`World.workersAdapt` off), no trial and no back-off take a step off them, however
    /// slow the workers or long their stalls; turned off during a trial or back-off, the next step is on the workers.
    func test_pinnedWorkers_neverFallBackToOneThread() throws {
        var state = WorkerState()
        state.adapts = false
        for _ in 0..<300 { state.recordStep(stalled: 90_000, parallel: 100_000, step: 100_000) }
        XCTAssertFalse(state.callerOnly)
        XCTAssertEqual(state.backoffSteps, 0)
        let world = World()
        for _ in 0..<8 { world.workers.recordStep(stalled: 0, parallel: 50_000, step: 100_000) }
        XCTAssertTrue(world.workers.callerOnly, "the trial of one thread")
        world.workersAdapt = false
        XCTAssertFalse(world.workers.callerOnly)
        XCTAssertFalse(world.workersAdapt)
    }

    /// The pool runs every task once, whatever the count, and returns only when all have run.
    func test_pool_runsEveryTaskOnce() throws {
        let pool = try WorkerPool(workers: 3)
        for count in [0, 1, 2, 7, 1000] {
            let hits = UnsafeMutablePointer<Int32>.allocate(capacity: Swift.max(count, 1))
            defer { hits.deallocate() }
            hits.initialize(repeating: 0, count: Swift.max(count, 1))
            pool.run(count) { i in hits[i] += 1 }
            for i in 0..<count { XCTAssertEqual(hits[i], 1, "task \(i) of \(count)") }
        }
    }
}

extension WorkerState {
    /// Hands every pass that can run on the workers out from `minimum` items (pairs, bodies, keys, cell entries,
    /// contacts; a sixteenth as many movers and bodies the continuous pass tests), in blocks of as many (keys: half), so that small scenes reach the
    /// parallel paths.
    mutating func handOutEveryPass(from minimum: Int) {
        parallelPairs = minimum
        parallelSweep = minimum; sweepBlock = minimum
        parallelCandidates = minimum; candidateBlock = minimum
        parallelCellEntries = minimum; cellEntryBlock = minimum
        parallelSortKeys = minimum; sortBlock = Swift.max(1, minimum / 2)
        parallelMovers = Swift.max(2, minimum / 16); moverBlock = Swift.max(1, minimum / 32)
        parallelColoring = minimum; parallelRestTest = minimum; parallelUnion = minimum
        parallelContinuous = Swift.max(2, minimum / 16); continuousBlock = Swift.max(1, minimum / 32)
        parallelIntegration = minimum; parallelPackedCopy = minimum
    }
}

extension WorkerState {
    /// Records `n` steps of `step` nanoseconds on the workers (half of each in passes handed to them), or those of
    /// `steps`; and the same on the caller's thread alone.
    mutating func onWorkers(_ n: Int, step: Int64) { for _ in 0..<n { recordStep(stalled: 0, parallel: step / 2, step: step) } }
    mutating func onWorkers(_ steps: [Int64]) { for step in steps { recordStep(stalled: 0, parallel: step / 2, step: step) } }
    mutating func onCaller(_ n: Int, step: Int64) { for _ in 0..<n { recordStep(stalled: 0, parallel: 0, step: step) } }
    mutating func onCaller(_ steps: [Int64]) { for step in steps { recordStep(stalled: 0, parallel: 0, step: step) } }
}
