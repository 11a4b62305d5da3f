import DynamicsSIMD
#if canImport(Glibc)
import Glibc
#endif

/// Runs the step's parallel stages: the world hands it a number of tasks and it runs them, on as many threads as it
/// likes, returning when all have run.
///
/// A world uses its own `WorkerPool` unless a host supplies another executor (`World.setExecutor(_:)`), for example
/// to share threads with the rest of an app:
///
/// ```swift
/// final class DispatchExecutor: StepExecutor {
///     let concurrency = 4
///     func run(_ count: Int, _ task: (Int) -> Void) {
///         withoutActuallyEscaping(task) { task in
///             nonisolated(unsafe) let task = task   // the world's tasks may run at once
///             DispatchQueue.concurrentPerform(iterations: count) { task($0) }
///         }
///     }
/// }
/// world.setExecutor(DispatchExecutor())
/// ```
///
/// (`withoutActuallyEscaping` allocates a small box for each pass; the world's own pool hands passes to its threads
/// without allocating.)
///
/// The step's results never depend on the executor: each task writes its own outputs, and a stage that must follow
/// another waits for it, so a step is bit-identical for every executor and every worker count.
public protocol StepExecutor: AnyObject {
    /// How many tasks it runs at once. A staged pass (the solver's colors, one after another) asks for this many
    /// participants.
    var concurrency: Int { get }
    /// Runs `task(i)` for every `i` in `0 ..< count`, in any order and on any threads, and returns when all have
    /// run. `task` does not escape the call.
    func run(_ count: Int, _ task: (Int) -> Void)
}

/// The world's own executor: `workers − 1` helper threads and the caller's. Helpers spin briefly between the stages of
/// a step and then sleep, so a pool costs no processor time between steps; a helper whose core is taken by another
/// process only leaves more of the tasks to the others.
public final class WorkerPool: StepExecutor {
    public let concurrency: Int
    private let pool: OpaquePointer?

    /// A pool of `workers` threads in all, the caller's included (1: no helper thread).
    public init(workers: Int) throws {
        guard workers >= 1 && workers <= WorkerPool.maximumWorkers else {
            throw DynamicsError("WorkerPool: workers must be between 1 and \(WorkerPool.maximumWorkers), got \(workers)")
        }
        concurrency = workers
        if workers > 1 {
            guard let p = dk_pool_create(Int32(workers - 1)) else {
                throw DynamicsError("WorkerPool: could not start \(workers - 1) helper threads")
            }
            pool = p
        } else {
            pool = nil
        }
    }

    deinit { if let pool { dk_pool_destroy(pool) } }

    /// Nanoseconds `run` waited, beyond a short spin, for tasks a helper had claimed since the last call (a helper
    /// descheduled while it held one); resets the count.
    func takeStalledNanoseconds() -> Int64 { pool.map { Int64(dk_pool_take_stalled($0)) } ?? 0 }

    /// The most workers a pool or a world takes.
    public static let maximumWorkers = 256

    /// The processor cores the system has online (at least 1).
    public static var processorCount: Int {
        #if canImport(Glibc)
        return Swift.max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        #else
        return 1
        #endif
    }

    public func run(_ count: Int, _ task: (Int) -> Void) {
        guard let pool, count > 1 else {
            for i in 0..<Swift.max(0, count) { task(i) }
            return
        }
        dk_pool_run_swift(pool, count, task)
    }
}

/// The pool's entry for a Swift closure (Pool.c): it takes the non-escaping closure as Swift passes it, its function
/// and its context, and calls it from the helpers until it returns. So a pass handed to the pool allocates nothing,
/// where converting the closure to an escaping one (`withoutActuallyEscaping`) would allocate a box on every call.
@_silgen_name("dk_pool_run_swift")
private func dk_pool_run_swift(_ pool: OpaquePointer, _ count: Int, _ task: (Int) -> Void)
