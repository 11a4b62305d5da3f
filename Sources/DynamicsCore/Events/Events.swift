/// Two shapes started touching during the last step.
public struct ContactBeganEvent: Sendable {
    public var bodyA: BodyID
    public var bodyB: BodyID
    /// Index of the shape within its body (item groups have several).
    public var shapeA: Int
    public var shapeB: Int
    /// World point of first contact, points.
    public var point: Vec2
    /// From A to B.
    public var normal: Vec2
}

/// Two shapes stopped touching during the last step, or one of them was removed.
public struct ContactEndedEvent: Sendable {
    public var bodyA: BodyID
    public var bodyB: BodyID
    public var shapeA: Int
    public var shapeB: Int
}

/// The stages of `World.step`, in the order it runs them (ARCHITECTURE.md lists the file of each).
public enum StepStage: CaseIterable, Sendable {
    /// Fields evaluated and folded into each body's acceleration; the substep's damping factors.
    case forces
    /// Swept boxes of the awake bodies; the pairs that can come within reach this step.
    case broadphase
    /// Manifolds of those pairs, contact events, bodies woken by contact.
    case narrowphase
    /// The substepped solve, restitution, the speed limits and the continuous pass (or the free-motion pass).
    case solve
    /// The rest test and sleep; scratch given back.
    case islands
}

/// Time spent in each stage of the last step, seconds. Measured with a monotonic clock; never read by the step.
public struct StepProfile: Sendable, CustomStringConvertible {
    public var forces: Double = 0
    public var broadphase: Double = 0
    public var narrowphase: Double = 0
    public var solve: Double = 0
    public var islands: Double = 0
    public var total: Double = 0
    /// Of `total`, the time in passes handed to the workers (0 on one thread): the rest ran on the caller's thread
    /// alone, which bounds what more workers can gain (with a share `s` of the step on the caller alone, `w` workers
    /// take at least `s + (1 − s) / w` of one thread's time).
    public var onWorkers: Double = 0
    public init() {}

    /// The time of one stage.
    public subscript(stage: StepStage) -> Double {
        get {
            switch stage {
            case .forces: return forces
            case .broadphase: return broadphase
            case .narrowphase: return narrowphase
            case .solve: return solve
            case .islands: return islands
            }
        }
        set {
            switch stage {
            case .forces: forces = newValue
            case .broadphase: broadphase = newValue
            case .narrowphase: narrowphase = newValue
            case .solve: solve = newValue
            case .islands: islands = newValue
            }
        }
    }

    public var description: String {
        func ms(_ s: Double) -> String {
            let v = (s * 1e5).rounded() / 100
            return "\(v)"
        }
        let workers = onWorkers > 0 ? " (\(ms(onWorkers)) ms of it on the workers)" : ""
        return "forces \(ms(forces)) ms, broadphase \(ms(broadphase)) ms, narrowphase \(ms(narrowphase)) ms, solve \(ms(solve)) ms, islands \(ms(islands)) ms, total \(ms(total)) ms\(workers)"
    }
}
