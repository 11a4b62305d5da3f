import XCTest
@testable import DynamicsKit

final class SnapTests: XCTestCase {
    /// "SnapBehavior ... Converges to the point and to angle 0."
    func test_snap_settlesWithinOnePointFiveOfTheTargetAtAngleZero() {
        let animator = DynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 400, height: 400))
        let item = box(50, 50, 40)
        item.transform = CGAffineTransform(rotationAngle: 0.8)
        let snap = SnapBehavior(item: item, snapTo: CGPoint(x: 300, y: 250))
        XCTAssertEqual(snap.damping, 0.5)
        animator.addBehavior(snap)
        animator.run(seconds: 3)
        XCTAssertClose(item.center.x, 300, within: 1.5)
        XCTAssertClose(item.center.y, 250, within: 1.5)
        XCTAssertClose(item.angle, 0, within: 0.01)
    }

    func test_snapPoint_retargets() {
        let animator = DynamicAnimator()
        let item = box(0, 0, 20)
        let snap = SnapBehavior(item: item, snapTo: CGPoint(x: 100, y: 0))
        animator.addBehavior(snap)
        animator.run(seconds: 3)
        snap.snapPoint = CGPoint(x: -100, y: 40)
        animator.run(seconds: 3)
        XCTAssertClose(item.center.x, -100, within: 1.5)
        XCTAssertClose(item.center.y, 40, within: 1.5)
    }

    func test_snapDampingOne_oscillatesLessThanDampingZero() {
        func overshoot(damping: CGFloat) -> CGFloat {
            let animator = DynamicAnimator()
            let item = box(0, 0, 20)
            let snap = SnapBehavior(item: item, snapTo: CGPoint(x: 100, y: 0))
            snap.damping = damping
            animator.addBehavior(snap)
            var maxX: CGFloat = 0
            for _ in 0..<180 { animator.step(); maxX = max(maxX, item.center.x) }
            return maxX - 100
        }
        XCTAssertLessThan(overshoot(damping: 1), overshoot(damping: 0))
        XCTAssertLessThan(overshoot(damping: 1), 1)
    }
}

final class AttachmentTests: XCTestCase {
    /// Zero crossings of `signal` give the period of an oscillation.
    func period(of samples: [Double], dt: Double) -> Double {
        var crossings: [Double] = []
        for k in 1..<samples.count where samples[k - 1] < 0 && samples[k] >= 0 {
            let t = Double(k - 1) + samples[k - 1] / (samples[k - 1] - samples[k])
            crossings.append(t * dt)
        }
        guard crossings.count >= 2 else { return .nan }
        return (crossings.last! - crossings.first!) / Double(crossings.count - 1)
    }

    /// "frequency 0 (Hz; 0 = rigid)": a spring attachment of frequency f oscillates at f.
    func test_springAttachment_oscillatesAtItsFrequency() {
        for f in [0.5, 1.0, 2.0] {
            let animator = DynamicAnimator()
            let item = box(150, 0, 20)
            let spring = AttachmentBehavior(item: item, attachedToAnchor: .zero)
            spring.length = 100
            spring.frequency = CGFloat(f)
            spring.damping = 0
            animator.addBehavior(spring)
            animator.addBehavior(noDamping([item]))
            var samples: [Double] = []
            for _ in 0..<Int(4 / f * 60) { animator.step(); samples.append(Double(item.center.x) - 100) }
            let measured = 1 / period(of: samples, dt: 1.0 / 60)
            XCTAssertEqual(measured, f, accuracy: 0.06 * f, "spring of \(f) Hz")
        }
    }

    /// A rigid attachment of 100 pt under gravity is a pendulum of period 2π√(L/g) = 1.99 s.
    func test_rigidPendulumOf100Points_hasPeriodOf1Point99Seconds() {
        let animator = DynamicAnimator()
        let angle = 10.0 * .pi / 180
        let item = box(100 * sin(angle), 100 * cos(angle), 10)
        let rod = AttachmentBehavior(item: item, attachedToAnchor: .zero)
        XCTAssertEqual(rod.length, 100, accuracy: 1e-9)
        XCTAssertEqual(rod.frequency, 0)
        animator.addBehavior(rod)
        animator.addBehavior(GravityBehavior(items: [item]))
        animator.addBehavior(noDamping([item]))
        var samples: [Double] = []
        for _ in 0..<(60 * 7) { animator.step(); samples.append(Double(item.center.x)) }
        XCTAssertEqual(period(of: samples, dt: 1.0 / 60), 1.987, accuracy: 1.99 * 0.03)
        // The rod keeps its length.
        XCTAssertClose(hypot(item.center.x, item.center.y), 100, within: 0.5)
    }

    func test_itemToItemAttachment_keepsTheDistanceAtCreation() {
        let animator = DynamicAnimator()
        let a = box(0, 0, 20), b = box(80, 0, 20)
        let link = AttachmentBehavior(item: a, attachedTo: b)
        XCTAssertEqual(link.attachedBehaviorType, .items)
        XCTAssertEqual(link.length, 80, accuracy: 1e-9)
        animator.addBehavior(link)
        let g = GravityBehavior(items: [b])
        animator.addBehavior(g)
        let push = PushBehavior(items: [a], mode: .instantaneous)
        push.pushDirection = CGVector(dx: 0, dy: -0.1)
        animator.addBehavior(push)
        var worst: CGFloat = 0
        for _ in 0..<120 { animator.step(); worst = max(worst, abs(hypot(a.center.x - b.center.x, a.center.y - b.center.y) - 80)) }
        XCTAssertLessThan(worst, 1)
    }

    func test_offsetAttachment_holdsTheOffsetPointAndTurnsTheItem() {
        let animator = DynamicAnimator()
        let item = box(0, 50, 40)
        let hang = AttachmentBehavior(item: item, offsetFromCenter: UIOffset(horizontal: 20, vertical: -20), attachedToAnchor: CGPoint(x: 20, y: 0))
        XCTAssertEqual(hang.length, 30, accuracy: 1e-9)
        animator.addBehavior(hang)
        animator.addBehavior(GravityBehavior(items: [item]))
        let settle = DynamicItemBehavior(items: [item])
        settle.resistance = 4; settle.angularResistance = 4
        animator.addBehavior(settle)
        animator.run(seconds: 6)
        // Hanging by a corner: the center ends straight below the anchor, the item turned.
        let t = item.transform
        let corner = CGPoint(x: item.center.x + t.a * 20 + t.c * -20, y: item.center.y + t.b * 20 + t.d * -20)
        XCTAssertClose(hypot(corner.x - 20, corner.y), 30, within: 1)
        XCTAssertClose(item.center.x, 20, within: 3)
        XCTAssertGreaterThan(abs(item.angle), 0.3)
    }

    func test_movingTheAnchor_dragsTheItem() {
        let animator = DynamicAnimator()
        let item = box(0, 0, 20)
        let drag = AttachmentBehavior(item: item, attachedToAnchor: CGPoint(x: 0, y: 0))
        drag.length = 0
        animator.addBehavior(drag)
        for k in 1...60 { drag.anchorPoint = CGPoint(x: CGFloat(k) * 5, y: 0); animator.step() }
        animator.run(seconds: 1)
        XCTAssertClose(item.center.x, 300, within: 1)
    }

    /// `limitAttachment`: a rope — slack allowed, never longer than its length.
    func test_limitAttachment_neverExceedsItsLength_butAllowsSlack() {
        let animator = DynamicAnimator()
        let a = box(0, 0, 10), b = box(50, 0, 10)
        let rope = AttachmentBehavior.limitAttachment(with: a, offsetFromCenter: .zero, attachedTo: b, offsetFromCenter: .zero)
        XCTAssertEqual(rope.length, 50, accuracy: 1e-9)
        animator.addBehavior(rope)
        let anchorA = DynamicItemBehavior(items: [a]); anchorA.isAnchored = true
        animator.addBehavior(anchorA)
        // Slack: pushed towards a, b moves closer freely.
        let toward = PushBehavior(items: [b], mode: .instantaneous)
        toward.pushDirection = CGVector(dx: -0.05, dy: 0)
        animator.addBehavior(toward)
        animator.run(seconds: 0.5)
        XCTAssertLessThan(b.center.x, 40)
        // Taut: gravity swings it down on the rope.
        animator.addBehavior(GravityBehavior(items: [b]))
        var worst: CGFloat = 0
        for _ in 0..<240 { animator.step(); worst = max(worst, hypot(b.center.x - a.center.x, b.center.y - a.center.y)) }
        XCTAssertLessThan(worst, 50.5)
        XCTAssertGreaterThan(worst, 49)
    }

    /// `fixedAttachment`: the two items move and turn as one.
    func test_fixedAttachment_weldsTwoItems() {
        let animator = DynamicAnimator()
        let a = box(0, 0, 20), b = box(20, 0, 20)
        let weld = AttachmentBehavior.fixedAttachment(with: a, attachedTo: b, attachmentAnchor: CGPoint(x: 10, y: 0))
        animator.addBehavior(weld)
        let push = PushBehavior(items: [b], mode: .instantaneous)
        push.pushDirection = CGVector(dx: 0, dy: 0.2)
        animator.addBehavior(push)
        animator.run(seconds: 1)
        XCTAssertClose(hypot(b.center.x - a.center.x, b.center.y - a.center.y), 20, within: 0.5)
        XCTAssertClose(a.angle, b.angle, within: 0.02)
        XCTAssertGreaterThan(abs(a.angle), 0.05)
    }

    /// `pinAttachment`: the items share the anchor point and turn independently, within `attachmentRange`.
    func test_pinAttachment_sharesThePointAndRespectsItsRange() {
        let animator = DynamicAnimator()
        let a = box(0, 0, 20), b = box(30, 0, 20)
        let pin = AttachmentBehavior.pinAttachment(with: a, attachedTo: b, attachmentAnchor: CGPoint(x: 15, y: 0))
        pin.attachmentRange = UIFloatRange(minimum: -0.5, maximum: 0.5)
        animator.addBehavior(pin)
        let anchored = DynamicItemBehavior(items: [a]); anchored.isAnchored = true
        animator.addBehavior(anchored)
        animator.addBehavior(GravityBehavior(items: [b]))
        animator.run(seconds: 3)
        // b's left edge midpoint stays at the pin; b cannot turn past 0.5 rad.
        let t = b.transform
        let pinOnB = CGPoint(x: b.center.x - 15 * t.a, y: b.center.y - 15 * t.b)
        XCTAssertClose(pinOnB.x, 15, within: 0.5)
        XCTAssertClose(pinOnB.y, 0, within: 0.5)
        XCTAssertClose(b.angle, 0.5, within: 0.03)
    }

    func test_pinFrictionTorque_slowsTheSwing() {
        func swing(friction: CGFloat) -> CGFloat {
            let animator = DynamicAnimator()
            let a = box(0, 0, 20), b = box(30, 0, 20)
            let pin = AttachmentBehavior.pinAttachment(with: a, attachedTo: b, attachmentAnchor: CGPoint(x: 15, y: 0))
            pin.frictionTorque = friction
            animator.addBehavior(pin)
            let anchored = DynamicItemBehavior(items: [a]); anchored.isAnchored = true
            animator.addBehavior(anchored)
            animator.addBehavior(GravityBehavior(items: [b]))
            animator.run(seconds: 0.3)
            return b.angle
        }
        XCTAssertLessThan(swing(friction: 2), swing(friction: 0) * 0.8)
    }

    /// `slidingAttachment`: the item moves only along the axis, does not turn, and stays within the range.
    func test_slidingAttachment_movesAlongTheAxisWithinItsRange() {
        let animator = DynamicAnimator()
        let item = box(0, 0, 20)
        let slide = AttachmentBehavior.slidingAttachment(with: item, attachmentAnchor: CGPoint(x: 0, y: 0), axisOfTranslation: CGVector(dx: 1, dy: 1))
        slide.attachmentRange = UIFloatRange(minimum: -10, maximum: 50)
        animator.addBehavior(slide)
        animator.addBehavior(GravityBehavior(items: [item]))
        animator.run(seconds: 2)
        XCTAssertClose(item.center.x, item.center.y, within: 0.3)
        XCTAssertClose(hypot(item.center.x, item.center.y), 50, within: 0.5)
        XCTAssertClose(item.angle, 0, within: 0.01)
    }

    func test_slidingAttachmentBetweenItems_keepsThemOnTheAxisWithinItsRange() {
        let animator = DynamicAnimator()
        let a = box(0, 0, 20), b = box(40, 0, 20)
        let slide = AttachmentBehavior.slidingAttachment(with: a, attachedTo: b, attachmentAnchor: CGPoint(x: 20, y: 0), axisOfTranslation: CGVector(dx: 1, dy: 0))
        slide.attachmentRange = UIFloatRange(minimum: -10, maximum: 30)
        animator.addBehavior(slide)
        let anchored = DynamicItemBehavior(items: [a]); anchored.isAnchored = true
        animator.addBehavior(anchored)
        // Gravity is across the axis: it cannot move b. A push along the axis slides b to the end of its range.
        animator.addBehavior(GravityBehavior(items: [b]))
        let push = PushBehavior(items: [b], mode: .instantaneous)
        push.pushDirection = CGVector(dx: 0.05, dy: 0)
        animator.addBehavior(push)
        animator.run(seconds: 2)
        XCTAssertClose(b.center.y, 0, within: 0.3)
        XCTAssertClose(b.center.x, 70, within: 0.5)
        XCTAssertClose(b.angle, 0, within: 0.01)
    }

    /// "The spring is integrated implicitly ... an undamped 2 Hz spring loses about half its amplitude each second at
    /// the default 4 substeps, a tenth at 16": it never gains, and more substeps keep more of it.
    func test_undampedSpring_losesAmplitudeOnlyToItsIntegration() {
        func amplitudes(substeps: Int) -> [CGFloat] {
            let animator = UIDynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 1000, height: 1000))
            animator.substepCount = substeps
            let item = HeadlessItem(center: CGPoint(x: 600, y: 500), size: CGSize(width: 20, height: 20))
            let spring = UIAttachmentBehavior(item: item, attachedToAnchor: CGPoint(x: 500, y: 500))
            spring.length = 0; spring.frequency = 2; spring.damping = 0
            animator.addBehavior(spring)
            let props = UIDynamicItemBehavior(items: [item]); props.resistance = 0
            animator.addBehavior(props)
            return (0..<3).map { _ in
                var amplitude: CGFloat = 0
                for _ in 0..<60 {
                    animator.step()
                    amplitude = max(amplitude, hypot(item.center.x - 500, item.center.y - 500))
                }
                return amplitude
            }
        }
        let four = amplitudes(substeps: 4), sixteen = amplitudes(substeps: 16)
        XCTAssertLessThanOrEqual(four[0], 100.5, "\(four)")
        XCTAssertLessThanOrEqual(sixteen[0], 100.5, "\(sixteen)")
        // About half the amplitude goes each second at 4 substeps, a tenth at 16 (from 100 points).
        XCTAssertTrue(four[1] > 40 && four[1] < 80, "4 substeps: \(four)")
        XCTAssertTrue(sixteen[1] > 70 && sixteen[1] <= 100, "16 substeps: \(sixteen)")
        XCTAssertLessThan(four[2], four[1])
    }
}
