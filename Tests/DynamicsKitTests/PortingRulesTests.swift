import XCTest
@testable import DynamicsKit

/// The rules that UIKit code typed from iOS habits relies on (API.md: Pause, Leaving the world, Push, Drag,
/// boundary identifiers; the `UIView` stand-in). Each test quotes the rule it checks and asserts UIKit's outcome.
final class PortingRulesTests: XCTestCase {

    // MARK: - Boundary identifiers: "a delegate written in either spelling is called"

    /// A delegate typed with UIKit's Swift signature (`NSCopying?`).
    final class UIKitSpellingDelegate: NSObject, UICollisionBehaviorDelegate {
        var began: [NSCopying?] = []
        var ended: [NSCopying?] = []
        func collisionBehavior(_ behavior: UICollisionBehavior, beganContactFor item: UIDynamicItem, withBoundaryIdentifier identifier: NSCopying?, at p: CGPoint) {
            began.append(identifier)
        }
        func collisionBehavior(_ behavior: UICollisionBehavior, endedContactFor item: UIDynamicItem, withBoundaryIdentifier identifier: NSCopying?) {
            ended.append(identifier)
        }
    }

    /// A delegate typed with the Swift spelling (`AnyHashable?`).
    final class SwiftSpellingDelegate: CollisionBehaviorDelegate {
        var began: [AnyHashable?] = []
        func collisionBehavior(_ behavior: CollisionBehavior, beganContactFor item: DynamicItem, withBoundaryIdentifier identifier: AnyHashable?, at point: CGPoint) {
            began.append(identifier)
        }
    }

    /// Both spellings in one delegate: called once per event, in UIKit's spelling.
    final class BothSpellingsDelegate: CollisionBehaviorDelegate {
        var copying = 0, hashable = 0
        func collisionBehavior(_ behavior: CollisionBehavior, beganContactFor item: DynamicItem, withBoundaryIdentifier identifier: NSCopying?, at point: CGPoint) { copying += 1 }
        func collisionBehavior(_ behavior: CollisionBehavior, beganContactFor item: DynamicItem, withBoundaryIdentifier identifier: AnyHashable?, at point: CGPoint) { hashable += 1 }
    }

    /// Drops a box onto a floor boundary with `identifier` (added through `add`) and returns after it lands.
    private func landOnFloor(delegate: CollisionBehaviorDelegate, add: (UICollisionBehavior) -> Void) -> UICollisionBehavior {
        let animator = UIDynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 400, height: 400))
        let square = HeadlessItem(frame: CGRect(x: 150, y: 100, width: 40, height: 40))
        animator.addBehavior(UIGravityBehavior(items: [square]))
        let collision = UICollisionBehavior(items: [square])
        add(collision)
        collision.collisionDelegate = delegate
        animator.addBehavior(collision)
        animator.run(seconds: 1.5)
        return collision
    }

    func test_collisionDelegate_typedWithUIKitsNSCopyingSignature_isCalled() {
        for (identifier, expected) in [("floor" as NSCopying, "floor" as AnyHashable), (NSString(string: "floor"), "floor"),
                                       (NSNumber(value: 7), 7 as AnyHashable)] {
            let delegate = UIKitSpellingDelegate()
            let c = landOnFloor(delegate: delegate) { $0.addBoundary(withIdentifier: identifier, from: CGPoint(x: 0, y: 300), to: CGPoint(x: 400, y: 300)) }
            XCTAssertEqual(delegate.began.count, 1, "one began event for the floor \(identifier)")
            let received = delegate.began.first.flatMap { $0 }
            XCTAssertNotNil(received)
            XCTAssertEqual(received.map(BoundaryIdentifier.hashable), expected)
            XCTAssertTrue((received as? NSObject)?.isEqual(identifier) ?? false, "the identifier compares equal with isEqual:")
            XCTAssertEqual(c.boundaryIdentifiers?.count, 1)
            c.removeBoundary(withIdentifier: identifier)
            XCTAssertNil(c.boundaryIdentifiers)
        }
    }

    func test_boundaryIdentifiers_stringNSStringAndInt_compareAsUIKitCompares() {
        let c = UICollisionBehavior(items: [])
        c.addBoundary(withIdentifier: "wall", from: .zero, to: CGPoint(x: 10, y: 0))
        XCTAssertNotNil(c.boundary(withIdentifier: NSString(string: "wall")), "the String \"wall\" is the NSString \"wall\"")
        XCTAssertNotNil(c.boundary(withIdentifier: "wall" as NSCopying))
        c.addBoundary(withIdentifier: NSNumber(value: 3), from: .zero, to: CGPoint(x: 0, y: 10))
        XCTAssertNotNil(c.boundary(withIdentifier: 3), "the Int 3 is NSNumber(3)")
        // Adding under an equal identifier replaces, whatever the spelling.
        c.addBoundary(withIdentifier: NSString(string: "wall"), from: .zero, to: CGPoint(x: 20, y: 0))
        XCTAssertEqual(c.boundaryIdentifiers?.count, 2)
        XCTAssertEqual(c.hashableBoundaryIdentifiers, ["wall", 3])
        let copying = c.boundaryIdentifiers ?? []
        XCTAssertTrue(copying[0] is NSString)
        XCTAssertTrue(copying[1] is NSNumber)
        c.removeBoundary(withIdentifier: 3 as NSCopying)
        c.removeBoundary(withIdentifier: "wall")
        XCTAssertNil(c.boundaryIdentifiers)
    }

    func test_collisionDelegate_typedWithSwiftSpelling_isCalled_andBothSpellingsCallOnce() {
        let swift = SwiftSpellingDelegate()
        _ = landOnFloor(delegate: swift) { $0.addBoundary(withIdentifier: "floor" as NSCopying, from: CGPoint(x: 0, y: 300), to: CGPoint(x: 400, y: 300)) }
        XCTAssertEqual(swift.began.count, 1)
        XCTAssertEqual(swift.began.first ?? nil, "floor", "an NSString identifier reaches the Swift spelling as a String")

        let both = BothSpellingsDelegate()
        _ = landOnFloor(delegate: both) { $0.addBoundary(withIdentifier: 5, from: CGPoint(x: 0, y: 300), to: CGPoint(x: 400, y: 300)) }
        XCTAssertEqual(both.copying, 1)
        XCTAssertEqual(both.hashable, 0)

        // The reference bounds have no identifier: nil in both spellings.
        let uikit = UIKitSpellingDelegate()
        _ = landOnFloor(delegate: uikit) { $0.translatesReferenceBoundsIntoBoundary = true }
        XCTAssertFalse(uikit.began.isEmpty)
        XCTAssertTrue(uikit.began.allSatisfy { $0 == nil })
    }

    func test_boundaryIdentifier_ofAnyHashableType_isHandedOutAsNSCopying() {
        enum Edge: Hashable { case top, bottom }
        let c = UICollisionBehavior(items: [])
        c.addBoundary(withIdentifier: Edge.bottom, from: .zero, to: CGPoint(x: 10, y: 0))
        let id = c.boundaryIdentifiers?.first
        XCTAssertEqual((id as? HashableBoundaryIdentifier)?.base, AnyHashable(Edge.bottom))
        XCTAssertNotNil(c.boundary(withIdentifier: id!), "the handed-out object finds its boundary")
        XCTAssertNil(c.boundary(withIdentifier: Edge.top))
    }

    // MARK: - Pause: "did-pause fires once per pause; will-resume once per resume"

    final class PauseCounter: NSObject, UIDynamicAnimatorDelegate {
        var pauses = 0, resumes = 0
        var onPause: ((UIDynamicAnimator) -> Void)?
        func dynamicAnimatorDidPause(_ animator: UIDynamicAnimator) { pauses += 1; onPause?(animator) }
        func dynamicAnimatorWillResume(_ animator: UIDynamicAnimator) { resumes += 1 }
    }

    private func restingBoxAnimator(delegate: UIDynamicAnimatorDelegate? = nil) -> (UIDynamicAnimator, HeadlessItem) {
        let animator = UIDynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 300, height: 300))
        animator.delegate = delegate
        let square = HeadlessItem(frame: CGRect(x: 100, y: 100, width: 50, height: 50))
        animator.addBehavior(UIGravityBehavior(items: [square]))
        let collision = UICollisionBehavior(items: [square])
        collision.translatesReferenceBoundsIntoBoundary = true
        animator.addBehavior(collision)
        return (animator, square)
    }

    func test_removeAllBehaviors_insideDidPause_leavesTheAnimatorPaused() {
        for removal in 0..<3 {
            let counter = PauseCounter()
            let (animator, square) = restingBoxAnimator(delegate: counter)
            counter.onPause = { a in
                switch removal {
                case 0: a.removeAllBehaviors()
                case 1: for b in a.behaviors { a.removeBehavior(b) }
                default:
                    // The behaviors stay, holding nothing.
                    (a.behaviors[0] as! UIGravityBehavior).removeItem(square)
                    (a.behaviors[1] as! UICollisionBehavior).removeItem(square)
                }
            }
            var steps = 0
            while animator.isRunning && steps < 5000 { animator.step(); steps += 1 }
            XCTAssertFalse(animator.isRunning, "`while animator.isRunning { animator.step() }` ends (removal \(removal))")
            XCTAssertLessThan(steps, 200)
            for _ in 0..<100 { animator.step() }
            XCTAssertEqual(counter.pauses, 1, "did-pause fires once per pause (removal \(removal))")
            XCTAssertEqual(counter.resumes, 1, "will-resume once per resume (removal \(removal))")
            XCTAssertFalse(animator.isRunning)
            XCTAssertEqual(animator.itemCount, 0)
        }
    }

    func test_animatorWithNoBehaviors_isNotRunning_afterItsNextStep() {
        let counter = PauseCounter()
        let (animator, _) = restingBoxAnimator(delegate: counter)
        animator.step()
        XCTAssertTrue(animator.isRunning)
        animator.removeAllBehaviors()
        let elapsed = animator.elapsedTime
        XCTAssertFalse(animator.step(), "an animator with no behaviors pauses instead of stepping")
        XCTAssertFalse(animator.isRunning)
        XCTAssertEqual(animator.elapsedTime, elapsed)
        XCTAssertEqual(counter.pauses, 1)
    }

    func test_removingTheFloorFromUnderARestingItem_resumesTheAnimator() {
        let counter = PauseCounter()
        let (animator, square) = restingBoxAnimator(delegate: counter)
        XCTAssertTrue(animator.runUntilPaused(timeout: 10))
        XCTAssertEqual(counter.pauses, 1)
        let collision = animator.behaviors[1]
        animator.removeBehavior(collision)
        XCTAssertTrue(animator.isRunning, "the item falls again: the animator resumes")
        XCTAssertEqual(counter.resumes, 2)
        animator.run(seconds: 0.5)
        XCTAssertGreaterThan(square.center.y, 300)
    }

    // MARK: - Push: "angle and magnitude are independent properties"

    func test_pushAngleSetBeforeMagnitude_isKept() {
        let push = UIPushBehavior(items: [], mode: .continuous)
        push.angle = .pi / 4
        XCTAssertEqual(push.angle, .pi / 4, accuracy: 1e-12)
        push.magnitude = 30
        XCTAssertEqual(push.angle, .pi / 4, accuracy: 1e-12)
        XCTAssertEqual(push.pushDirection.dx, 30 * cos(.pi / 4), accuracy: 1e-9)
        XCTAssertEqual(push.pushDirection.dy, 30 * sin(.pi / 4), accuracy: 1e-9)
        push.magnitude = 0
        XCTAssertEqual(push.angle, .pi / 4, accuracy: 1e-12, "a zero magnitude keeps the angle")
        push.pushDirection = CGVector(dx: 0, dy: -2)
        XCTAssertEqual(push.angle, -.pi / 2, accuracy: 1e-12, "setting pushDirection sets the angle")
        XCTAssertEqual(push.magnitude, 2, accuracy: 1e-12)

        // In motion: an item pushed after `angle` then `magnitude` moves along the angle.
        let animator = UIDynamicAnimator()
        let item = HeadlessItem(frame: CGRect(x: 0, y: 0, width: 100, height: 100))
        let p = UIPushBehavior(items: [item], mode: .instantaneous)
        p.angle = .pi / 4
        p.magnitude = 1
        animator.addBehavior(p)
        animator.step()
        let v = animator.velocity(of: item)!.linear
        XCTAssertEqual(atan2(v.y, v.x), .pi / 4, accuracy: 1e-3)
    }

    func test_gravityAngleSetWhileMagnitudeIsZero_isKept() {
        let g = UIGravityBehavior(items: [])
        g.magnitude = 0
        g.angle = 0
        g.magnitude = 2
        XCTAssertEqual(g.gravityDirection.dx, 2, accuracy: 1e-12)
        XCTAssertEqual(g.gravityDirection.dy, 0, accuracy: 1e-12)
        XCTAssertEqual(UIGravityBehavior(items: []).gravityDirection, CGVector(dx: 0, dy: 1), "the default stays exact")
    }

    // MARK: - Leaving the world: "re-added, it starts from rest"

    func test_itemNoBehaviorHolds_leavesTheWorld_andRejoinsFromRest_evenBetweenTwoSteps() {
        let animator = UIDynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 2000, height: 4000))
        let view = HeadlessItem(frame: CGRect(x: 100, y: 100, width: 100, height: 100))
        let push = UIPushBehavior(items: [view], mode: .instantaneous)
        push.pushDirection = CGVector(dx: 5, dy: 3)
        animator.addBehavior(push)
        let spin = UIDynamicItemBehavior(items: [view])
        spin.addAngularVelocity(4, for: view)
        animator.addBehavior(spin)
        animator.run(seconds: 0.2)
        XCTAssertGreaterThan(animator.velocity(of: view)!.linear.x, 400)

        // The drag-off-screen answer's release: remove everything, then carry the gesture's velocity by hand.
        animator.removeAllBehaviors()
        let dynamic = UIDynamicItemBehavior(items: [view])
        dynamic.addLinearVelocity(CGPoint(x: 100, y: 1500), for: view)
        dynamic.addAngularVelocity(4.28, for: view)
        animator.addBehavior(dynamic)
        let v = dynamic.linearVelocity(for: view)
        XCTAssertEqual(v.x, 100, accuracy: 0.01, "the old velocity is not kept")
        XCTAssertEqual(v.y, 1500, accuracy: 0.01)
        XCTAssertEqual(dynamic.angularVelocity(for: view), 4.28, accuracy: 1e-4)

        // Removing one of two behaviors that hold the item keeps it in the world, with its velocity.
        let gravity = UIGravityBehavior(items: [view])
        animator.addBehavior(gravity)
        animator.step()
        let before = dynamic.linearVelocity(for: view)
        animator.removeBehavior(gravity)
        animator.addBehavior(gravity)
        XCTAssertEqual(dynamic.linearVelocity(for: view), before)

        // An item moved by hand while out of the world rejoins where it now is.
        animator.removeAllBehaviors()
        view.center = CGPoint(x: 500, y: 500)
        view.transform = .identity
        let rest = UIDynamicItemBehavior(items: [view])
        animator.addBehavior(rest)
        animator.step()
        XCTAssertEqual(view.center, CGPoint(x: 500, y: 500))
    }

    func test_itemRemovedFromItsOnlyBehavior_andAddedBack_startsFromRest() {
        let animator = UIDynamicAnimator()
        let item = HeadlessItem(frame: CGRect(x: 0, y: 0, width: 10, height: 10))
        let behavior = UIDynamicItemBehavior(items: [item])
        behavior.addLinearVelocity(CGPoint(x: 50, y: 0), for: item)
        animator.addBehavior(behavior)
        animator.step()
        behavior.removeItem(item)
        behavior.addItem(item)
        XCTAssertEqual(behavior.linearVelocity(for: item), .zero)
    }

    // MARK: - The UIView stand-in

    func test_headlessItemFrame_worksAsUIViewFrame() {
        let view = HeadlessItem(frame: CGRect(x: 100, y: 50, width: 80, height: 40))
        XCTAssertEqual(view.center, CGPoint(x: 140, y: 70))
        XCTAssertEqual(view.bounds, CGRect(x: 0, y: 0, width: 80, height: 40))
        XCTAssertEqual(view.frame, CGRect(x: 100, y: 50, width: 80, height: 40))
        view.frame = CGRect(x: 0, y: 0, width: 20, height: 30)
        XCTAssertEqual(view.center, CGPoint(x: 10, y: 15))
        XCTAssertEqual(view.bounds.size, CGSize(width: 20, height: 30))
    }

    // MARK: - Drag: "an attachment whose length is 0 is a point constraint"

    /// The canonical drag: an attachment from the touch point (offset from the center) to an anchor at the
    /// finger, the anchor moved every frame at a steady velocity. Returns the velocities of the touch point on the
    /// item, frame by frame, and how far it is from the finger.
    private func drag(fingerVelocity: CGPoint, frames: Int, offset: UIOffset, gravity: Bool) -> (velocities: [CGPoint], offsetErrors: [CGFloat], item: HeadlessItem, animator: UIDynamicAnimator, attachment: UIAttachmentBehavior) {
        let animator = UIDynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 4000, height: 4000))
        let view = HeadlessItem(frame: CGRect(x: 1950, y: 1950, width: 100, height: 100))
        if gravity { animator.addBehavior(UIGravityBehavior(items: [view])) }
        var anchor = CGPoint(x: view.center.x + offset.horizontal, y: view.center.y + offset.vertical)
        let attachment = UIAttachmentBehavior(item: view, offsetFromCenter: offset, attachedToAnchor: anchor)
        XCTAssertEqual(attachment.length, 0)
        animator.addBehavior(attachment)
        var velocities: [CGPoint] = [], errors: [CGFloat] = []
        for _ in 0..<frames {
            anchor.x += fingerVelocity.x / 60
            anchor.y += fingerVelocity.y / 60
            attachment.anchorPoint = anchor
            animator.step()
            let t = view.transform
            let arm = CGPoint(x: t.a * offset.horizontal + t.c * offset.vertical, y: t.b * offset.horizontal + t.d * offset.vertical)
            let touch = CGPoint(x: view.center.x + arm.x, y: view.center.y + arm.y)
            let (v, w) = animator.velocity(of: view)!
            velocities.append(CGPoint(x: v.x - w * arm.y, y: v.y + w * arm.x))
            errors.append(hypot(touch.x - anchor.x, touch.y - anchor.y))
        }
        return (velocities, errors, view, animator, attachment)
    }

    /// "The item follows a moving anchor with the anchor's velocity": the touch point moves with the finger (and
    /// so does the center when the touch is at the center).
    func test_zeroLengthDragAttachment_itemFollowsTheFinger_withItsVelocity() {
        let finger = CGPoint(x: 600, y: -800)
        for offset in [UIOffset.zero, UIOffset(horizontal: 20, vertical: 30)] {
            let run = drag(fingerVelocity: finger, frames: 60, offset: offset, gravity: false)
            // After a short transient (a quarter of a second), the item moves with the finger.
            for (k, v) in run.velocities.enumerated() where k >= 15 {
                XCTAssertLessThan(hypot(v.x - finger.x, v.y - finger.y), 100, "frame \(k): velocity \(v) is not the finger's (offset \(offset))")
            }
            XCTAssertLessThan(run.offsetErrors.suffix(30).max()!, 1, "the touch point stays under the finger (offset \(offset))")
        }
    }

    func test_flickAfterZeroLengthDrag_leavesInTheGesturesDirection() {
        let finger = CGPoint(x: 600, y: -800)
        let run = drag(fingerVelocity: finger, frames: 30, offset: .zero, gravity: true)
        run.animator.removeBehavior(run.attachment)
        let v = run.animator.velocity(of: run.item)!.linear
        let angle = atan2(v.y, v.x) * 180 / .pi
        XCTAssertEqual(angle, atan2(finger.y, finger.x) * 180 / .pi, accuracy: 5, "flick at \(angle)° with velocity \(v)")
    }

    // MARK: - Symmetry: "a symmetric landing stays symmetric"

    func test_squareDroppedFlat_landsWithoutDriftingSideways() {
        // The README's example.
        let animator = UIDynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 400, height: 800))
        let box = HeadlessItem(center: CGPoint(x: 200, y: 100), size: CGSize(width: 50, height: 50))
        animator.addBehavior(UIGravityBehavior(items: [box]))
        let collision = UICollisionBehavior(items: [box])
        collision.translatesReferenceBoundsIntoBoundary = true
        animator.addBehavior(collision)
        var maxDrift: CGFloat = 0, maxAngle: CGFloat = 0
        animator.addStepObserver { _ in
            maxDrift = max(maxDrift, abs(box.center.x - 200))
            maxAngle = max(maxAngle, abs(box.angle))
        }
        XCTAssertTrue(animator.runUntilPaused(timeout: 10))
        XCTAssertLessThan(maxDrift, 0.05, "x drifted to \(box.center.x)")
        XCTAssertLessThan(maxAngle, 0.001)
        XCTAssertEqual(box.center.y, 775, accuracy: 0.6)
    }

    /// The README's example, as written there, prints what the README says it prints.
    func test_readmeExample_printsWhatTheReadmeSays() throws {
        let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 400, height: 800))
        let box = HeadlessItem(center: CGPoint(x: 200, y: 100), size: CGSize(width: 50, height: 50))
        animator.addBehavior(GravityBehavior(items: [box]))
        let collision = CollisionBehavior(items: [box])
        collision.translatesReferenceBoundsIntoBoundary = true
        animator.addBehavior(collision)
        animator.runUntilPaused(timeout: 10)
        let printed = "\(box.center)"
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let line = try XCTUnwrap(text.split(separator: "\n").first { $0.hasPrefix("print(box.center)") }, "no print line in the README")
        XCTAssertTrue(line.contains("// \(printed):"), "the README says \(line), the example prints \(printed)")
    }

    // MARK: - Fixed attachment: "a fixed attachment looks rigid"

    func test_fixedAttachment_staysRigidAtImpact() {
        for tilt: CGFloat in [0, 0.3] {
            let animator = UIDynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 800, height: 1000))
            let a = HeadlessItem(center: CGPoint(x: 380, y: 480), size: CGSize(width: 40, height: 40))
            let b = HeadlessItem(center: CGPoint(x: 420, y: 480), size: CGSize(width: 40, height: 40))
            let group = [a, b]
            for item in group {
                // Tilt the pair as one about its middle.
                let c = CGPoint(x: 400, y: 480), d = CGPoint(x: item.center.x - c.x, y: item.center.y - c.y)
                item.center = CGPoint(x: c.x + d.x * cos(tilt) - d.y * sin(tilt), y: c.y + d.x * sin(tilt) + d.y * cos(tilt))
                item.transform = CGAffineTransform(rotationAngle: tilt)
            }
            animator.addBehavior(UIGravityBehavior(items: group))
            let collision = UICollisionBehavior(items: group)
            collision.translatesReferenceBoundsIntoBoundary = true
            animator.addBehavior(collision)
            animator.addBehavior(UIAttachmentBehavior.fixedAttachment(with: a, attachedTo: b, attachmentAnchor: CGPoint(x: (a.center.x + b.center.x) / 2, y: (a.center.y + b.center.y) / 2)))
            var maxBend: CGFloat = 0, maxSpeed: CGFloat = 0
            animator.addStepObserver { an in
                maxBend = max(maxBend, abs(a.angle - b.angle))
                maxSpeed = max(maxSpeed, an.velocity(of: a)!.linear.y)
            }
            animator.run(seconds: 2)
            XCTAssertGreaterThan(maxSpeed, 900, "the pair lands at about 1,000 pt/s")
            XCTAssertLessThanOrEqual(maxBend, 0.02, "the weld bent \(maxBend) rad (tilt \(tilt))")
        }
    }

    // MARK: - Fields: "energy never grows without input"

    private func fieldRun(_ field: UIFieldBehavior, item: HeadlessItem, charge: CGFloat = 0, velocity: CGPoint = .zero, seconds: Double, observe: @escaping (UIDynamicAnimator) -> Void) {
        let animator = UIDynamicAnimator()
        field.addItem(item)
        animator.addBehavior(field)
        let frictionless = UIDynamicItemBehavior(items: [item])
        frictionless.resistance = 0
        frictionless.angularResistance = 0
        frictionless.charge = charge
        if velocity != .zero { frictionless.addLinearVelocity(velocity, for: item) }
        animator.addBehavior(frictionless)
        animator.addStepObserver(observe)
        animator.run(seconds: seconds)
    }

    func test_springFieldAtDefaultStrength_neverExceedsItsStartingAmplitude() {
        for (size, strength): (CGFloat, CGFloat) in [(10, 1), (100, 1), (10, 1e4), (100, 0.1)] {
            let spring = UIFieldBehavior.springField()
            spring.strength = strength
            spring.position = CGPoint(x: 500, y: 500)
            let item = HeadlessItem(center: CGPoint(x: 600, y: 500), size: CGSize(width: size, height: size))
            var maxAmplitude: CGFloat = 0, minX = CGFloat.infinity
            fieldRun(spring, item: item, seconds: 10) { _ in
                maxAmplitude = max(maxAmplitude, hypot(item.center.x - 500, item.center.y - 500))
                minX = min(minX, item.center.x)
            }
            XCTAssertLessThanOrEqual(maxAmplitude, 100.5, "size \(size), strength \(strength)")
            // (A spring stiffer than the substeps resolve is seen at the steps' ends only in part of its swing.)
            XCTAssertLessThan(minX, strength > 1 ? 460 : 420, "it oscillates through the center (size \(size), strength \(strength))")
        }
    }

    func test_dragField_neverReversesAVelocity_itDecaysIt() {
      for strength: CGFloat in [1, 1e6] {
        let drag = UIFieldBehavior.dragField()
        drag.strength = strength
        let item = HeadlessItem(center: CGPoint(x: 0, y: 0), size: CGSize(width: 10, height: 10))
        var last: CGFloat = 300
        var reversed = false, grew = false
        fieldRun(drag, item: item, velocity: CGPoint(x: 300, y: 0), seconds: 1) { a in
            let v = a.velocity(of: item)!.linear.x
            if v < 0 { reversed = true }
            if v > last { grew = true }
            last = v
        }
        XCTAssertFalse(reversed)
        XCTAssertFalse(grew)
        XCTAssertLessThan(last, 30, "a drag of this strength on so light an item stops it quickly")
      }
    }

    func test_magneticField_onlyTurnsAChargedItemsVelocity() {
      for strength: CGFloat in [1, 1e6] {
        let magnetic = UIFieldBehavior.magneticField()
        magnetic.strength = strength
        magnetic.position = CGPoint(x: 0, y: 0)
        let item = HeadlessItem(center: CGPoint(x: 100, y: 0), size: CGSize(width: 10, height: 10))
        var speeds: [CGFloat] = []
        var turned: CGFloat = 0
        fieldRun(magnetic, item: item, charge: 1, velocity: CGPoint(x: 0, y: 200), seconds: 2) { a in
            let v = a.velocity(of: item)!.linear
            speeds.append(hypot(v.x, v.y))
            turned = max(turned, abs(atan2(v.y, v.x) - .pi / 2))
        }
        XCTAssertLessThanOrEqual(speeds.max()!, 200 * 1.001, "a magnetic force does no work")
        XCTAssertGreaterThanOrEqual(speeds.min()!, 200 * 0.999)
        XCTAssertGreaterThan(turned, 0.5, "the velocity turns")
      }
    }

    // MARK: - Attachments: "length is measured when the attachment joins an animator, unless set"

    func test_attachmentLength_isMeasuredWhenItJoins_unlessTheAppSetsIt() {
        let animator = UIDynamicAnimator(referenceView: HeadlessItem(frame: CGRect(x: 0, y: 0, width: 400, height: 400)))
        XCTAssertEqual(animator.referenceBounds, CGRect(x: 0, y: 0, width: 400, height: 400), "init(referenceView:) takes the view's bounds")
        let view = HeadlessItem(frame: CGRect(x: 180, y: 180, width: 40, height: 40))
        // The book's flick: created lazily with the anchor at .zero, moved under the finger, then added.
        let attachment = UIAttachmentBehavior(item: view, attachedToAnchor: .zero)
        XCTAssertEqual(attachment.length, hypot(200, 200), accuracy: 1e-9, "at creation, the distance then")
        attachment.anchorPoint = CGPoint(x: 200, y: 200)
        animator.addBehavior(attachment)
        XCTAssertEqual(attachment.length, 0, "joining, the distance now")
        animator.step()
        XCTAssertEqual(view.center, CGPoint(x: 200, y: 200), "the item hangs at the finger")
        // A length the app sets stays.
        animator.removeBehavior(attachment)
        attachment.length = 50
        attachment.anchorPoint = CGPoint(x: 300, y: 200)
        animator.addBehavior(attachment)
        XCTAssertEqual(attachment.length, 50)
    }
}
