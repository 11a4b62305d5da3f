import DynamicsKit

// What a ported app brings besides UIKit Dynamics, per PORTING.md: a view is a `HeadlessItem(frame:)`, the screen
// (the reference view) another; a gesture recognizer is a script of touch locations and velocities replayed one
// frame at a time; a view controller transition context is a plain object holding the views and recording how the
// transition ended. These are test scaffolding, not part of the library.

typealias UIView = HeadlessItem

/// A screen-sized reference view (an iPhone's 375 × 667 points).
func makeScreen() -> UIView { UIView(frame: CGRect(x: 0, y: 0, width: 375, height: 667)) }

/// `UIGestureRecognizer.State`, the cases ported handlers switch over.
enum GestureState { case began, changed, ended, cancelled, failed, possible }

/// A scripted pan: a straight stroke from `start` at `velocity` (points/s) for `duration` seconds, reported once per
/// frame (1/60 s) as UIKit's pan recognizer reports it: `.began`, then `.changed` every frame, then `.ended`.
struct ScriptedPan {
    var start: CGPoint
    var velocity: CGPoint
    var duration: TimeInterval

    /// Calls `handler` with each event's state, location and velocity; `frame` runs the animator between events.
    func play(_ handler: (GestureState, CGPoint, CGPoint) -> Void, frame: () -> Void) {
        let frames = Int((duration * 60).rounded())
        handler(.began, start, velocity)
        for k in 1...frames {
            frame()
            let t = CGFloat(k) / 60
            let location = CGPoint(x: start.x + velocity.x * t, y: start.y + velocity.y * t)
            handler(k == frames ? .ended : .changed, location, velocity)
        }
    }
}

/// The stand-in for `UIViewControllerContextTransitioning`: the container, the two views, and how it ended.
final class TransitionContext {
    let containerView: UIView
    let fromView: UIView
    let toView: UIView
    private(set) var completed: [Bool] = []
    private(set) var finished = 0, cancelled = 0
    var transitionWasCancelled = false

    init(containerView: UIView, fromView: UIView, toView: UIView) {
        self.containerView = containerView
        self.fromView = fromView
        self.toView = toView
    }

    func completeTransition(_ didComplete: Bool) { completed.append(didComplete) }
    func finishInteractiveTransition() { finished += 1 }
    func cancelInteractiveTransition() { cancelled += 1 }
    func updateInteractiveTransition(_ percentComplete: CGFloat) {}
    func initialFrame(for view: UIView) -> CGRect { containerView.bounds }
    func finalFrame(for view: UIView) -> CGRect { containerView.bounds }
}

/// Steps an animator as a display link would, for `seconds` or until it pauses.
func runDisplayLink(_ animator: UIDynamicAnimator, seconds: TimeInterval) {
    var t: TimeInterval = 0
    while animator.isRunning && t < seconds {
        animator.step()
        t += animator.timeStep
    }
}
