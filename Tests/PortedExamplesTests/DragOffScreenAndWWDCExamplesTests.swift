import XCTest
import DynamicsKit

// MARK: - Dragging a view off screen (references/003)

/// The question-and-answer's pan handler, from Objective-C to Swift as a UIKit developer would write it: an
/// attachment at the touch point while the finger moves; on release, a snap back to the start unless the flick
/// goes down, in which case an item behavior carries the gesture's linear and angular velocity on, a little
/// gravity helps, and an action removes the view once it no longer intersects the screen.
final class DragOffScreenViewController {
    let view = makeScreen()                                             // PORTING: the view controller's view
    var animator: UIDynamicAnimator!
    var viewToDrag: UIView!
    /// Test bookkeeping: the view left its superview, the alert was shown.
    var removedFromSuperview = false
    var alerts: [String] = []

    // The handler's `static` locals, as properties.
    var attachment: UIAttachmentBehavior!
    var startCenter = CGPoint.zero
    // variables for calculating angular velocity
    var lastTime: TimeInterval = 0
    var lastAngle: CGFloat = 0
    var angularVelocity: CGFloat = 0

    func viewDidLoad() {
        viewToDrag = UIView(frame: CGRect(x: 112.5, y: 183.5, width: 150, height: 300))
        // PORTING: no backgroundColor, addSubview or gesture recognizer; the test calls handlePan
        self.animator = UIDynamicAnimator(referenceView: self.view)
    }

    /// PORTING: CFAbsoluteTimeGetCurrent() is the animator's time (there is no display link to read a clock from).
    func now() -> TimeInterval { animator.elapsedTime }

    /// PORTING: the recognizer's state, its location in the superview and in the view, and its velocity are
    /// parameters.
    func handlePan(state: GestureState, location: CGPoint, locationInView pointWithinAnimatedView: CGPoint, velocity: CGPoint) {
        let gestureView = viewToDrag!
        if state == .began {
            self.animator.removeAllBehaviors()
            startCenter = gestureView.center
            // calculate the center offset and anchor point
            let offset = UIOffset(horizontal: pointWithinAnimatedView.x - gestureView.bounds.size.width / 2.0,
                                  vertical: pointWithinAnimatedView.y - gestureView.bounds.size.height / 2.0)
            let anchor = location
            // create attachment behavior
            attachment = UIAttachmentBehavior(item: gestureView, offsetFromCenter: offset, attachedToAnchor: anchor)
            // code to calculate angular velocity (seems curious that I have to calculate this myself, but I can if I have to)
            lastTime = now()
            lastAngle = angleOfView(gestureView)
            attachment.action = { [weak self] in
                guard let self = self else { return }
                let time = self.now()
                let angle = self.angleOfView(gestureView)
                if time > self.lastTime {
                    self.angularVelocity = (angle - self.lastAngle) / CGFloat(time - self.lastTime)
                    self.lastTime = time
                    self.lastAngle = angle
                }
            }
            // add attachment behavior
            self.animator.addBehavior(attachment)
        } else if state == .changed {
            // as user makes gesture, update attachment behavior's anchor point, achieving drag 'n' rotate
            attachment.anchorPoint = location
        } else if state == .ended {
            self.animator.removeAllBehaviors()
            // if we aren't dragging it down, just snap it back and quit
            if abs(atan2(velocity.y, velocity.x) - .pi / 2) > .pi / 4 {
                let snap = UISnapBehavior(item: gestureView, snapTo: startCenter)
                self.animator.addBehavior(snap)
                return
            }
            // otherwise, create UIDynamicItemBehavior that carries on animation from where the gesture left off (notably linear and angular velocity)
            let dynamic = UIDynamicItemBehavior(items: [gestureView])
            dynamic.addLinearVelocity(velocity, for: gestureView)
            dynamic.addAngularVelocity(angularVelocity, for: gestureView)
            dynamic.angularResistance = 1.25
            // when the view no longer intersects with its superview, go ahead and remove it
            dynamic.action = { [weak self] in
                guard let self = self else { return }
                if !self.view.bounds.intersects(gestureView.frame) {
                    self.animator.removeAllBehaviors()
                    self.removedFromSuperview = true                    // PORTING: removeFromSuperview()
                    self.alerts.append("View is gone!")                 // PORTING: UIAlertView
                }
            }
            self.animator.addBehavior(dynamic)
            // add a little gravity so it accelerates off the screen (in case user gesture was slow)
            let gravity = UIGravityBehavior(items: [gestureView])
            gravity.magnitude = 0.7
            self.animator.addBehavior(gravity)
        }
    }

    func angleOfView(_ view: UIView) -> CGFloat {
        return atan2(view.transform.b, view.transform.a)
    }
}

// MARK: - WWDC 2013 session 221 (references/004)

/// The session's composite behavior: gravity and collision as children of one behavior.
final class BouncyFallBehavior: UIDynamicBehavior {
    init(items: [UIDynamicItem]) {
        super.init()
        let g = UIGravityBehavior(items: items)
        let c = UICollisionBehavior(items: items)
        c.translatesReferenceBoundsIntoBoundary = true
        self.addChildBehavior(g)
        self.addChildBehavior(c)
    }
}

final class DragOffScreenAndWWDCExamplesTests: XCTestCase {
    /// Drags the view from a touch point 30 pt right of and 50 pt below its center along `pan`.
    private func drag(_ vc: DragOffScreenViewController, pan: ScriptedPan) {
        let v = vc.viewToDrag!
        pan.play({ state, location, velocity in
            let inView = CGPoint(x: location.x - v.frame.minX, y: location.y - v.frame.minY)
            vc.handlePan(state: state, location: location, locationInView: inView, velocity: velocity)
        }, frame: { vc.animator.step() })
    }

    /// "If you don't drag it down, a snap behavior returns it to where it was."
    func test_dragOffScreen_aSlowOrSidewaysDrag_snapsBack() {
        let vc = DragOffScreenViewController()
        vc.viewDidLoad()
        let start = vc.viewToDrag.center
        drag(vc, pan: ScriptedPan(start: CGPoint(x: start.x + 30, y: start.y + 50), velocity: CGPoint(x: 300, y: -200), duration: 0.3))
        XCTAssertGreaterThan(vc.viewToDrag.center.x - start.x, 50, "it followed the finger")
        XCTAssertTrue(vc.animator.runUntilPaused(timeout: 10), "the snap brings it to rest")
        XCTAssertEqual(vc.viewToDrag.center.x, start.x, accuracy: 1, "back where it started")
        XCTAssertEqual(vc.viewToDrag.center.y, start.y, accuracy: 1)
        XCTAssertEqual(vc.viewToDrag.angle, 0, accuracy: 0.02, "upright again")
        XCTAssertFalse(vc.removedFromSuperview)
    }

    /// "Drag it down and let go: it carries on with the gesture's linear and angular velocity, off the screen, and
    /// is removed."
    func test_dragOffScreen_aDownwardFlick_carriesOnOffScreen_andIsRemoved() {
        let vc = DragOffScreenViewController()
        vc.viewDidLoad()
        let start = vc.viewToDrag.center
        let release = CGPoint(x: 100, y: 1500)
        drag(vc, pan: ScriptedPan(start: CGPoint(x: start.x + 30, y: start.y + 50), velocity: release, duration: 0.2))
        // The item left the world with the attachment and came back with exactly the gesture's velocity.
        let dynamic = vc.animator.behaviors.first as! UIDynamicItemBehavior
        let v = dynamic.linearVelocity(for: vc.viewToDrag)
        XCTAssertEqual(v.x, release.x, accuracy: 0.5, "the release velocity is the gesture's, counted once")
        XCTAssertEqual(v.y, release.y, accuracy: 0.5)
        XCTAssertEqual(dynamic.angularVelocity(for: vc.viewToDrag), vc.angularVelocity, accuracy: 1e-4)
        var removedAt: CGPoint?
        vc.animator.addStepObserver { _ in if vc.removedFromSuperview && removedAt == nil { removedAt = vc.viewToDrag.center } }
        runDisplayLink(vc.animator, seconds: 5)
        XCTAssertTrue(vc.removedFromSuperview, "it left the screen and was removed")
        XCTAssertEqual(vc.alerts, ["View is gone!"])
        XCTAssertGreaterThan(removedAt?.y ?? 0, 667, "below the bottom edge")
        XCTAssertFalse(vc.animator.isRunning, "the animator paused with nothing left")
        XCTAssertTrue(vc.animator.behaviors.isEmpty)
    }

    /// "A BouncyFallBehavior is used like any built-in behavior": the items fall, bounce and come to rest on the
    /// bottom edge.
    func test_bouncyFallBehavior_compositeOfGravityAndCollision_bouncesItemsToRest() {
        let view = makeScreen()
        let animator = UIDynamicAnimator(referenceView: view)
        let items = (0..<3).map { k in UIView(frame: CGRect(x: 40 + 110 * CGFloat(k), y: 60 + 40 * CGFloat(k), width: 60, height: 60)) }
        let bouncy = BouncyFallBehavior(items: items)
        animator.addBehavior(bouncy)
        XCTAssertEqual(animator.behaviors.count, 1)
        XCTAssertEqual(bouncy.childBehaviors.count, 2)
        var maxY: CGFloat = 0
        animator.addStepObserver { _ in maxY = max(maxY, items.map(\.frame.maxY).max()!) }
        XCTAssertTrue(animator.runUntilPaused(timeout: 10))
        for item in items {
            XCTAssertEqual(item.frame.maxY, 667, accuracy: 1, "resting on the bottom edge")
            XCTAssertEqual(item.angle, 0, accuracy: 0.01)
        }
        XCTAssertLessThanOrEqual(maxY, 668, "never through the edge")
    }
}
