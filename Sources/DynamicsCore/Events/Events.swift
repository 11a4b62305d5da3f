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

/// Time spent in each stage of the last step, seconds. Measured with a monotonic clock; never read by the step.
public struct StepProfile: Sendable, CustomStringConvertible {
    public var forces: Double = 0
    public var broadphase: Double = 0
    public var narrowphase: Double = 0
    public var solve: Double = 0
    public var islands: Double = 0
    public var total: Double = 0
    public init() {}
    public var description: String {
        func ms(_ s: Double) -> String {
            let v = (s * 1e5).rounded() / 100
            return "\(v)"
        }
        return "forces \(ms(forces)) ms, broadphase \(ms(broadphase)) ms, narrowphase \(ms(narrowphase)) ms, solve \(ms(solve)) ms, islands \(ms(islands)) ms, total \(ms(total)) ms"
    }
}
