import Dispatch

/// Drives an animator in real time for apps, the stand-in for a display link: about `framesPerSecond` times a
/// second it calls `advance(by:)` with the wall-clock time since the last frame, then `onFrame`.
///
/// All calls happen on `queue`; use the animator only from that queue while the driver runs. Wall time decides how
/// many fixed steps run, never what a step computes, so results stay deterministic per step.
public final class RealTimeDriver {
    public let animator: DynamicAnimator
    public let queue: DispatchQueue
    public let framesPerSecond: Double
    /// Called on `queue` after each frame's steps.
    public var onFrame: ((DynamicAnimator) -> Void)?
    private var timer: DispatchSourceTimer?
    private var last: DispatchTime?

    public init(animator: DynamicAnimator, queue: DispatchQueue = DispatchQueue(label: "DynamicsKit.RealTimeDriver"), framesPerSecond: Double = 60) {
        precondition(framesPerSecond.isFinite && framesPerSecond > 0, "RealTimeDriver: framesPerSecond must be positive and finite")
        self.animator = animator
        self.queue = queue
        self.framesPerSecond = framesPerSecond
    }

    public var isActive: Bool { timer != nil }

    public func start() {
        guard timer == nil else { return }
        let t = DispatchSource.makeTimerSource(queue: queue)
        let interval = DispatchTimeInterval.nanoseconds(Int(1e9 / framesPerSecond))
        t.schedule(deadline: .now() + interval, repeating: interval)
        t.setEventHandler { [weak self] in self?.frame() }
        timer = t
        last = nil
        t.resume()
    }

    public func stop() {
        timer?.cancel()
        timer = nil
    }

    private func frame() {
        let now = DispatchTime.now()
        if let last {
            let dt = Double(now.uptimeNanoseconds - last.uptimeNanoseconds) / 1e9
            // A stalled app should not try to catch up on seconds of simulation in one frame.
            animator.advance(by: min(dt, 0.25))
        }
        last = now
        onFrame?(animator)
    }

    deinit { timer?.cancel() }
}
