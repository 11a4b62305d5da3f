import XCTest
@testable import DynamicsKit

final class ItemBehaviorTests: XCTestCase {
    /// "elasticity 0.2, friction 0.2, density 1, resistance 0.1, angularResistance 0.1, allowsRotation true,
    /// charge 0, isAnchored false."
    func test_defaults_matchUIKit() {
        let b = DynamicItemBehavior()
        XCTAssertEqual(b.elasticity, 0.2); XCTAssertEqual(b.friction, 0.2); XCTAssertEqual(b.density, 1)
        XCTAssertEqual(b.resistance, 0.1); XCTAssertEqual(b.angularResistance, 0.1)
        XCTAssertTrue(b.allowsRotation); XCTAssertEqual(b.charge, 0); XCTAssertFalse(b.isAnchored)
    }

    /// "These defaults ... apply to every item, also items in no item behavior": resistance 0.1 damps an item
    /// that only has a push.
    func test_defaults_applyToItemsInNoItemBehavior() {
        let animator = DynamicAnimator()
        let item = box(0, 0)
        let push = PushBehavior(items: [item], mode: .instantaneous)
        push.magnitude = 1
        animator.addBehavior(push)
        animator.run(seconds: 1)
        XCTAssertClose(animator.velocity(of: item)!.linear.x, 100 * exp(-0.1), within: 0.2)
    }

    /// "Resistance is exponential damping: v(t) = v0·e^(−resistance·t)."
    func test_resistanceOne_leavesOneOverEOfTheSpeedAfterOneSecond() {
        let animator = DynamicAnimator()
        let item = box(0, 0)
        let props = DynamicItemBehavior(items: [item])
        props.resistance = 1
        animator.addBehavior(props)
        props.addLinearVelocity(CGPoint(x: 300, y: 0), for: item)
        animator.run(seconds: 1)
        XCTAssertClose(props.linearVelocity(for: item).x, 300 * exp(-1), within: 300 * 0.005)
    }

    func test_angularResistance_dampsSpinExponentially() {
        let animator = DynamicAnimator()
        let item = box(0, 0)
        let props = DynamicItemBehavior(items: [item])
        props.angularResistance = 2
        animator.addBehavior(props)
        props.addAngularVelocity(3, for: item)
        animator.run(seconds: 0.5)
        XCTAssertClose(props.angularVelocity(for: item), 3 * exp(-1), within: 0.02)
    }

    func test_velocityAccessors_returnZeroForItemsNotHeld() {
        let animator = DynamicAnimator()
        let held = box(0, 0), other = box(100, 0)
        let props = DynamicItemBehavior(items: [held])
        animator.addBehavior(props)
        animator.addBehavior(GravityBehavior(items: [other]))
        animator.run(seconds: 0.5)
        XCTAssertEqual(props.linearVelocity(for: other), .zero)
        XCTAssertEqual(props.angularVelocity(for: other), 0)
    }

    /// "When several item behaviors set one property of one item, the last in pre-order depth-first tree order
    /// wins; removing a behavior restores what is left."
    func test_precedence_lastInPreOrderWins_andRemovingRestores() {
        let animator = DynamicAnimator()
        let item = box(0, 0)
        let first = DynamicItemBehavior(items: [item]); first.resistance = 1
        let parent = DynamicBehavior()
        let child = DynamicItemBehavior(items: [item]); child.resistance = 3
        parent.addChildBehavior(child)
        let last = DynamicItemBehavior(items: [item]); last.density = 4 // sets density only
        animator.addBehavior(first)
        animator.addBehavior(parent)
        animator.addBehavior(last)
        func speedAfterHalfSecond() -> CGFloat {
            let p = DynamicItemBehavior(items: [item])
            animator.addBehavior(p)
            animator.updateItem(usingCurrentState: item)
            p.addLinearVelocity(CGPoint(x: 100 - p.linearVelocity(for: item).x, y: 0), for: item)
            animator.removeBehavior(p)
            animator.run(seconds: 0.5)
            return animator.velocity(of: item)!.linear.x
        }
        // child (resistance 3) comes after first (1) in pre-order; `last` does not set resistance.
        XCTAssertClose(speedAfterHalfSecond(), 100 * exp(-1.5), within: 0.5)
        XCTAssertClose(CGFloat(animator.world.mass(of: animator.records[animator.tagOf.tag(ObjectIdentifier(item), animator.records)!]!.body)), 4, within: 1e-5)
        parent.removeChildBehavior(child)
        XCTAssertClose(speedAfterHalfSecond(), 100 * exp(-0.5), within: 0.5)
        animator.removeBehavior(first)
        XCTAssertClose(speedAfterHalfSecond(), 100 * exp(-0.05), within: 0.5)
    }

    func test_density_setsMassByTheUIKitRule() {
        let animator = DynamicAnimator()
        let item = box(0, 0, 50, 20)
        let props = DynamicItemBehavior(items: [item]); props.density = 3
        animator.addBehavior(props)
        animator.step()
        let body = animator.records[animator.tagOf.tag(ObjectIdentifier(item), animator.records)!]!.body
        XCTAssertEqual(animator.world.mass(of: body), 3 * 50 * 20 / 10_000, accuracy: 1e-6)
    }

    func test_allowsRotationFalse_keepsTheAngle() {
        let animator = DynamicAnimator()
        let item = box(0, 0)
        let props = DynamicItemBehavior(items: [item]); props.allowsRotation = false
        animator.addBehavior(props)
        let push = PushBehavior(items: [item], mode: .instantaneous)
        push.pushDirection = CGVector(dx: 0, dy: 1)
        push.setTargetOffsetFromCenter(UIOffset(horizontal: 40, vertical: 0), for: item)
        animator.addBehavior(push)
        animator.run(seconds: 0.5)
        XCTAssertEqual(item.angle, 0, accuracy: 1e-9)
        XCTAssertGreaterThan(item.center.y, 10)
    }
}
