/// The per-step timings of the last step, seconds.
public struct AnimatorTimings: Sendable, CustomStringConvertible {
    /// Compiling the behavior tree into the engine's tables (only when something changed).
    public var compile: Double = 0
    /// The engine's stages.
    public var engine = StepProfile()
    /// Writing `center` and `transform` back to the items that moved.
    public var writeBack: Double = 0
    /// Delegate callbacks and `action` blocks.
    public var callbacks: Double = 0
    public var description: String {
        func ms(_ s: Double) -> String { "\((s * 1e5).rounded() / 100)" }
        return "compile \(ms(compile)) ms, \(engine), write-back \(ms(writeBack)) ms, callbacks \(ms(callbacks)) ms"
    }
}
