import XCTest
@testable import DynamicsKit

final class GravityTests: XCTestCase {
    /// "Gravity magnitude 1.0 = 1000 points/s², whatever the mass." Free fall covers ½·g·t² = 500 pt in the first
    /// second; the default resistance of 0.1/s takes about 3% of that.
    func test_gravityMagnitudeOne_fallsFiveHundredPointsInTheFirstSecond() {
        let animator = DynamicAnimator()
        let item = box(0, 0)
        animator.addBehavior(GravityBehavior(items: [item]))
        animator.run(seconds: 1)
        XCTAssertClose(item.center.y, 500, within: 20)
        XCTAssertEqual(item.center.x, 0, accuracy: 1e-9)
    }

    func test_gravity_acceleratesAnyMassEqually() {
        let animator = DynamicAnimator()
        let light = box(0, 0, 10), heavy = box(200, 0, 300)
        animator.addBehavior(GravityBehavior(items: [light, heavy]))
        animator.addBehavior(noDamping([light, heavy]))
        animator.run(seconds: 1)
        XCTAssertClose(light.center.y, 500, within: 6)
        XCTAssertClose(heavy.center.y, light.center.y, within: 1e-3)
    }

    /// "gravityDirection (0,1), angle π/2, magnitude 1, setAngle(_:magnitude:); a non-unit direction keeps its
    /// length as magnitude."
    func test_gravityAccessors_matchTheDocumentedDefaultsAndStayConsistent() {
        let g = GravityBehavior()
        XCTAssertEqual(g.gravityDirection, CGVector(dx: 0, dy: 1))
        XCTAssertEqual(g.angle, .pi / 2, accuracy: 1e-12)
        XCTAssertEqual(g.magnitude, 1, accuracy: 1e-12)
        g.gravityDirection = CGVector(dx: 3, dy: 4)
        XCTAssertEqual(g.magnitude, 5, accuracy: 1e-12)
        XCTAssertEqual(g.angle, atan2(4, 3), accuracy: 1e-12)
        g.setAngle(0, magnitude: 2)
        XCTAssertEqual(g.gravityDirection.dx, 2, accuracy: 1e-12)
        XCTAssertEqual(g.gravityDirection.dy, 0, accuracy: 1e-12)
        g.magnitude = 0.5
        XCTAssertEqual(g.gravityDirection.dx, 0.5, accuracy: 1e-12)
        g.angle = .pi
        XCTAssertEqual(g.gravityDirection.dx, -0.5, accuracy: 1e-12)
    }

    func test_gravityAngleZero_pullsAlongPositiveX() {
        let animator = DynamicAnimator()
        let item = box(0, 0)
        let g = GravityBehavior(items: [item])
        g.angle = 0
        animator.addBehavior(g)
        animator.addBehavior(noDamping([item]))
        animator.run(seconds: 1)
        XCTAssertClose(item.center.x, 500, within: 6)
        XCTAssertClose(item.center.y, 0, within: 1e-3)
    }

    func test_twoGravityBehaviors_add() {
        let animator = DynamicAnimator()
        let item = box(0, 0)
        animator.addBehavior(GravityBehavior(items: [item]))
        animator.addBehavior(GravityBehavior(items: [item]))
        animator.addBehavior(noDamping([item]))
        animator.run(seconds: 1)
        XCTAssertClose(item.center.y, 1000, within: 12)
    }
}

final class PushTests: XCTestCase {
    /// "Force unit: magnitude 1.0 on a 100×100-point item of density 1.0 gives 100 points/s²."
    func test_continuousPushMagnitudeOne_accelerates100PointsPerSecondSquared() {
        let animator = DynamicAnimator()
        let item = box(0, 0)
        let push = PushBehavior(items: [item], mode: .continuous)
        push.setAngle(0, magnitude: 1)
        animator.addBehavior(push)
        let props = noDamping([item])
        animator.addBehavior(props)
        animator.run(seconds: 1)
        XCTAssertClose(props.linearVelocity(for: item).x, 100, within: 1)
        XCTAssertClose(item.center.x, 50, within: 1.5)
    }

    func test_continuousPush_scalesInverselyWithMass() {
        let animator = DynamicAnimator()
        let item = box(0, 0, 200) // mass 4
        let push = PushBehavior(items: [item], mode: .continuous)
        push.pushDirection = CGVector(dx: 0, dy: 1)
        animator.addBehavior(push)
        let props = noDamping([item])
        animator.addBehavior(props)
        animator.run(seconds: 1)
        XCTAssertClose(props.linearVelocity(for: item).y, 25, within: 0.5)
    }

    /// "an instantaneous push of magnitude 1.0 on it adds 100 points/s", "then `active` becomes false".
    func test_instantaneousPushMagnitudeOne_adds100PointsPerSecondOnce() {
        let animator = DynamicAnimator()
        let item = box(0, 0)
        let push = PushBehavior(items: [item], mode: .instantaneous)
        push.magnitude = 1
        let props = noDamping([item])
        animator.addBehavior(props)
        animator.addBehavior(push)
        XCTAssertTrue(push.active)
        animator.step()
        XCTAssertFalse(push.active)
        XCTAssertClose(props.linearVelocity(for: item).x, 100, within: 1e-3)
        animator.run(seconds: 1)
        XCTAssertClose(props.linearVelocity(for: item).x, 100, within: 1e-3)
        push.active = true
        animator.step()
        XCTAssertClose(props.linearVelocity(for: item).x, 200, within: 1e-3)
        XCTAssertFalse(push.active)
    }

    /// "an off-center push also spins the item."
    func test_offCenterPush_spinsTheItem() {
        let animator = DynamicAnimator()
        let item = box(0, 0)
        let push = PushBehavior(items: [item], mode: .instantaneous)
        push.pushDirection = CGVector(dx: 0, dy: 1)
        push.setTargetOffsetFromCenter(UIOffset(horizontal: 50, vertical: 0), for: item)
        XCTAssertEqual(push.targetOffsetFromCenter(for: item), UIOffset(horizontal: 50, vertical: 0))
        let props = noDamping([item])
        animator.addBehavior(props)
        animator.addBehavior(push)
        animator.step()
        // Pushing down (+y) at the right edge turns the item clockwise on screen: positive angular velocity.
        // ω = r × P / I = 50 · 100 / (1 · (100² + 100²) / 12) = 3 rad/s
        XCTAssertClose(props.angularVelocity(for: item), 3, within: 0.01)
        XCTAssertClose(props.linearVelocity(for: item).y, 100, within: 0.01)
        let centered = box(300, 0)
        let straight = PushBehavior(items: [centered], mode: .instantaneous)
        straight.pushDirection = CGVector(dx: 0, dy: 1)
        animator.addBehavior(straight)
        animator.addBehavior(noDamping([centered]))
        animator.step()
        XCTAssertEqual(animator.velocity(of: centered)!.angular, 0, accuracy: 1e-6)
    }

    func test_inactiveContinuousPush_doesNothing() {
        let animator = DynamicAnimator()
        let item = box(0, 0)
        let push = PushBehavior(items: [item], mode: .continuous)
        push.magnitude = 1
        push.active = false
        animator.addBehavior(push)
        animator.addBehavior(GravityBehavior(items: []))
        animator.run(seconds: 0.5)
        XCTAssertEqual(item.center.x, 0, accuracy: 1e-9)
    }
}
