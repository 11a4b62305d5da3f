import XCTest
@testable import DynamicsKit

final class FieldTests: XCTestCase {
    /// The acceleration (points/s²) a field gives an item of the given size and charge at `point` in the first step.
    func acceleration(of field: FieldBehavior, at point: CGPoint, size: CGFloat = 100, charge: CGFloat = 0,
                      velocity: CGPoint = .zero) -> CGPoint {
        let animator = DynamicAnimator()
        let item = box(point.x, point.y, size)
        field.addItem(item)
        animator.addBehavior(field)
        let props = noDamping([item]); props.charge = charge
        animator.addBehavior(props)
        if velocity != .zero { props.addLinearVelocity(velocity, for: item) }
        animator.step()
        let v = props.linearVelocity(for: item)
        animator.removeBehavior(field)
        field.removeItem(item)
        return CGPoint(x: (v.x - velocity.x) * 60, y: (v.y - velocity.y) * 60)
    }

    /// "linear gravity field: a = direction × 100 pt/s² × strength", whatever the mass.
    func test_linearGravityField_accelerates100PointsPerSecondSquaredPerUnitStrength() {
        let f = FieldBehavior.linearGravityField(direction: CGVector(dx: 1, dy: 0))
        XCTAssertEqual(f.falloff, 0)
        XCTAssertClose(acceleration(of: f, at: CGPoint(x: 50, y: 80)).x, 100, within: 0.1)
        f.strength = 3
        XCTAssertClose(acceleration(of: f, at: .zero, size: 10).x, 300, within: 0.3)
        f.direction = CGVector(dx: 0, dy: -2)
        XCTAssertClose(acceleration(of: f, at: .zero).y, -600, within: 0.6)
    }

    /// "radial gravity F = −strength·m·r̂·r^(−falloff)", falloff 2: a quarter of the pull at twice the distance.
    func test_radialGravityField_pullsInwardWithInverseSquareFalloff() {
        let f = FieldBehavior.radialGravityField(position: CGPoint(x: 0, y: 0))
        XCTAssertEqual(f.falloff, 2)
        let near = acceleration(of: f, at: CGPoint(x: 100, y: 0))   // 1 m: a = 100 pt/s²
        let far = acceleration(of: f, at: CGPoint(x: 200, y: 0))
        XCTAssertClose(near.x, -100, within: 0.5)
        XCTAssertClose(far.x / near.x, 0.25, within: 0.005)
        XCTAssertClose(acceleration(of: f, at: CGPoint(x: 100, y: 0), size: 10).x, -100, within: 0.5) // mass-independent
        f.strength = -2
        XCTAssertClose(acceleration(of: f, at: CGPoint(x: 0, y: 100)).y, 200, within: 1)
    }

    /// Spring: "F = −strength·r (metres)": force grows linearly with distance and is divided by the mass.
    func test_springField_isHookesLawTowardsPosition() {
        let f = FieldBehavior.springField()
        XCTAssertEqual(f.falloff, -1)
        let a1 = acceleration(of: f, at: CGPoint(x: 100, y: 0))      // 1 m, mass 1: 100 pt/s²
        let a2 = acceleration(of: f, at: CGPoint(x: 300, y: 0))
        XCTAssertClose(a1.x, -100, within: 0.5)
        XCTAssertClose(a2.x / a1.x, 3, within: 0.02)
        XCTAssertClose(acceleration(of: f, at: CGPoint(x: 100, y: 0), size: 200).x, -25, within: 0.2) // mass 4
    }

    /// Electric: "∝ charge": no charge, no force; the sign of the charge sets the direction.
    func test_electricField_scalesWithChargeAndRepelsLikeCharges() {
        let f = FieldBehavior.electricField()
        XCTAssertEqual(f.falloff, 1)
        XCTAssertClose(acceleration(of: f, at: CGPoint(x: 100, y: 0)).x, 0, within: 1e-6)
        let plus = acceleration(of: f, at: CGPoint(x: 100, y: 0), charge: 1)
        XCTAssertClose(plus.x, 100, within: 0.5)
        XCTAssertClose(acceleration(of: f, at: CGPoint(x: 100, y: 0), charge: -2).x, -200, within: 1)
        XCTAssertClose(acceleration(of: f, at: CGPoint(x: 200, y: 0), charge: 1).x / plus.x, 0.5, within: 0.005)
    }

    /// Magnetic: "∝ charge × velocity (turns moving charges; positive strength counter-clockwise on screen)".
    func test_magneticField_turnsMovingChargesCounterClockwise() {
        let f = FieldBehavior.magneticField()
        XCTAssertClose(acceleration(of: f, at: CGPoint(x: 100, y: 0), charge: 1).x, 0, within: 1e-6) // at rest: none
        // Moving right (+x) on a y-down screen, a counter-clockwise turn bends the path up (−y).
        let a = acceleration(of: f, at: CGPoint(x: 100, y: 0), charge: 1, velocity: CGPoint(x: 100, y: 0))
        XCTAssertLessThan(a.y, -90)
        XCTAssertClose(a.x, 0, within: 1)
        let fast = acceleration(of: f, at: CGPoint(x: 100, y: 0), charge: 1, velocity: CGPoint(x: 200, y: 0))
        XCTAssertClose(fast.y / a.y, 2, within: 0.02)
    }

    /// Vortex: "positive strength circles counter-clockwise on screen".
    func test_vortexField_circlesCounterClockwiseOnScreen() {
        let f = FieldBehavior.vortexField()
        // Right of the center, counter-clockwise on screen is up (−y).
        let a = acceleration(of: f, at: CGPoint(x: 100, y: 0))
        XCTAssertClose(a.y, -100, within: 0.5)
        XCTAssertClose(a.x, 0, within: 1e-3)
        let below = acceleration(of: f, at: CGPoint(x: 0, y: 100)) // below the center: to the right
        XCTAssertClose(below.x, 100, within: 0.5)
        f.strength = -1
        XCTAssertClose(acceleration(of: f, at: CGPoint(x: 100, y: 0)).y, 100, within: 0.5)
    }

    /// Drag: opposes the velocity, proportionally.
    func test_dragField_opposesVelocityProportionally() {
        let f = FieldBehavior.dragField()
        let slow = acceleration(of: f, at: .zero, velocity: CGPoint(x: 100, y: 0))
        let fast = acceleration(of: f, at: .zero, velocity: CGPoint(x: 300, y: 0))
        XCTAssertLessThan(slow.x, 0)
        XCTAssertClose(fast.x / slow.x, 3, within: 0.05)
        XCTAssertClose(acceleration(of: f, at: .zero).x, 0, within: 1e-6)
    }

    /// "velocity field sets the velocity to direction × 100 pt/s" — even against gravity.
    func test_velocityField_overridesGravity() {
        let animator = DynamicAnimator()
        let item = box(0, 0, 20)
        let f = FieldBehavior.velocityField(direction: CGVector(dx: 1, dy: 0))
        f.addItem(item)
        animator.addBehavior(f)
        animator.addBehavior(GravityBehavior(items: [item]))
        animator.run(seconds: 1)
        XCTAssertClose(item.center.x, 100, within: 1)
        XCTAssertClose(item.center.y, 0, within: 0.5)
    }

    /// "A field acts only on its own items, only inside region (relative to position)."
    func test_field_actsOnlyOnItsItemsInsideItsRegion() {
        let animator = DynamicAnimator()
        let inside = box(120, 100, 10), outside = box(300, 100, 10), notMine = box(110, 100, 10)
        let f = FieldBehavior.linearGravityField(direction: CGVector(dx: 0, dy: 1))
        f.position = CGPoint(x: 100, y: 100)
        f.region = Region(radius: 50)
        f.addItem(inside); f.addItem(outside)
        animator.addBehavior(f)
        animator.addBehavior(noDamping([inside, outside, notMine]))
        animator.step()
        XCTAssertGreaterThan(animator.velocity(of: inside)!.linear.y, 1)
        XCTAssertEqual(animator.velocity(of: outside)!.linear.y, 0)
        XCTAssertEqual(animator.velocity(of: notMine)!.linear.y, 0)
    }

    func test_falloffAndMinimumRadius_limitTheForceNearThePosition() {
        let f = FieldBehavior.radialGravityField(position: .zero)
        f.minimumRadius = 50
        let atHalf = acceleration(of: f, at: CGPoint(x: 50, y: 0)), atQuarter = acceleration(of: f, at: CGPoint(x: 25, y: 0))
        XCTAssertClose(atHalf.x, -400, within: 2)       // r = 0.5 m
        XCTAssertClose(atQuarter.x, -400, within: 2)    // clamped to the minimum radius
        f.falloff = 1
        XCTAssertClose(acceleration(of: f, at: CGPoint(x: 200, y: 0)).x, -50, within: 0.5)
    }

    /// Noise: "smooth, deterministic for a seed, frozen when animationSpeed is 0".
    func test_noiseField_isDeterministic_smooth_andFrozenAtAnimationSpeedZero() {
        func trajectory(speed: CGFloat) -> [CGPoint] {
            let animator = DynamicAnimator()
            let items = (0..<10).map { box(CGFloat($0) * 37, CGFloat($0 % 3) * 41, 10) }
            let f = FieldBehavior.noiseField(smoothness: 0.5, animationSpeed: speed)
            f.strength = 3
            for i in items { f.addItem(i) }
            animator.addBehavior(f)
            animator.run(seconds: 1)
            return items.map(\.center)
        }
        XCTAssertEqual(trajectory(speed: 0), trajectory(speed: 0))
        XCTAssertEqual(trajectory(speed: 2), trajectory(speed: 2))
        XCTAssertNotEqual(trajectory(speed: 0), trajectory(speed: 2))
        // Frozen: the push at a point does not change with time.
        let f = FieldBehavior.noiseField(smoothness: 0.5, animationSpeed: 0)
        let a1 = acceleration(of: f, at: CGPoint(x: 33, y: 71))
        let a2 = acceleration(of: f, at: CGPoint(x: 33, y: 71))
        XCTAssertEqual(a1, a2)
        XCTAssertGreaterThan(hypot(a1.x, a1.y), 0)
        // Smooth: half a point away the push changes by a few percent of the field's scale (100 pt/s² per unit
        // strength); across a metre it changes by much more.
        let a3 = acceleration(of: f, at: CGPoint(x: 33.5, y: 71))
        XCTAssertLessThan(hypot(a3.x - a1.x, a3.y - a1.y), 5)
        let samples = (0..<8).map { acceleration(of: f, at: CGPoint(x: 33 + CGFloat($0) * 100, y: 71)) }
        XCTAssertGreaterThan(samples.map(\.x).max()! - samples.map(\.x).min()!, 20)
    }

    /// Turbulence: "scaled by speed": a still item feels nothing.
    func test_turbulenceField_scalesWithSpeed() {
        let f = FieldBehavior.turbulenceField(smoothness: 0.2, animationSpeed: 0)
        f.strength = 10
        XCTAssertEqual(acceleration(of: f, at: CGPoint(x: 30, y: 40)), .zero)
        let slow = acceleration(of: f, at: CGPoint(x: 30, y: 40), velocity: CGPoint(x: 100, y: 0))
        let fast = acceleration(of: f, at: CGPoint(x: 30, y: 40), velocity: CGPoint(x: 200, y: 0))
        XCTAssertGreaterThan(hypot(slow.x, slow.y), 0)
        XCTAssertClose(hypot(fast.x, fast.y) / hypot(slow.x, slow.y), 2, within: 0.1)
    }

    /// "field(evaluationBlock:) ... returns a force in UIKit newtons", called for each item each step.
    func test_customField_isCalledForEachItemEachStep_andItsForceApplies() {
        let animator = DynamicAnimator()
        let items = (0..<3).map { box(CGFloat($0) * 50, 0, 100) }
        var calls = 0
        var seenMass: CGFloat = 0
        let f = FieldBehavior.field { field, position, velocity, mass, charge, dt in
            calls += 1
            seenMass = mass
            XCTAssertEqual(dt, 1.0 / 60, accuracy: 1e-6)
            return CGVector(dx: 2, dy: 0)
        }
        for i in items { f.addItem(i) }
        animator.addBehavior(f)
        let props = noDamping(items)
        animator.addBehavior(props)
        for _ in 0..<10 { animator.step() }
        XCTAssertEqual(calls, 30)
        XCTAssertEqual(seenMass, 1, accuracy: 1e-6)
        XCTAssertClose(props.linearVelocity(for: items[0]).x, 200 * 10 / 60, within: 0.1) // 2 N on mass 1: 200 pt/s²
    }

    /// "a custom block's NaN at run time: the force ignored and reported once, never a NaN in the world".
    func test_customFieldReturningNaN_isIgnoredAndReportedOnce() {
        let animator = DynamicAnimator()
        var warnings: [String] = []
        animator.warningHandler = { warnings.append($0) }
        let item = box(0, 0, 10)
        let f = FieldBehavior.field { _, _, _, _, _, _ in CGVector(dx: CGFloat.nan, dy: 0) }
        f.addItem(item)
        animator.addBehavior(f)
        animator.addBehavior(GravityBehavior(items: [item]))
        animator.run(seconds: 0.5)
        XCTAssertEqual(warnings.count, 1)
        XCTAssertTrue(warnings.first?.contains("non-finite") ?? false)
        XCTAssertTrue(item.center.y.isFinite && item.center.y > 50)
    }

    /// Fields wake sleeping items that they would move; an item held still by a field can fall asleep.
    func test_fieldsWakeSleepingItems_andAnItemHeldByAFieldCanSleep() {
        let animator = DynamicAnimator()
        let item = box(100, 0, 20)
        let spring = FieldBehavior.springField()
        spring.addItem(item)
        animator.addBehavior(spring)
        let props = DynamicItemBehavior(items: [item]); props.resistance = 5
        animator.addBehavior(props)
        XCTAssertTrue(animator.runUntilPaused(timeout: 30))   // pulled to the center, then at rest: asleep
        XCTAssertClose(item.center.x, 0, within: 1)
        spring.position = CGPoint(x: 0, y: 200)                // moving the field wakes it
        XCTAssertTrue(animator.isRunning)
        animator.run(seconds: 5)
        XCTAssertClose(item.center.y, 200, within: 2)
    }

    /// "No limit on the number of fields (UIKit stops at 32)."
    func test_manyFields_allApply() {
        let animator = DynamicAnimator()
        let item = box(0, 0, 100)
        let props = noDamping([item]); animator.addBehavior(props)
        for _ in 0..<100 {
            let f = FieldBehavior.linearGravityField(direction: CGVector(dx: 0.01, dy: 0))
            f.addItem(item)
            animator.addBehavior(f)
        }
        animator.step()
        XCTAssertClose(props.linearVelocity(for: item).x * 60, 100, within: 0.1)
    }

    /// The "sticky corners" arrangement: two spring fields with half-screen regions, resistance 10, density 0.01,
    /// no rotation: a thrown item settles in the nearer half.
    func test_stickyCorners_pullAReleasedItemIntoTheNearerRegion() {
        let bounds = CGRect(x: 0, y: 0, width: 320, height: 568)
        func settle(throwFrom start: CGPoint, velocity: CGPoint) -> CGPoint {
            let animator = DynamicAnimator(referenceBounds: bounds)
            let item = box(start.x, start.y, 60)
            let top = FieldBehavior.springField(), bottom = FieldBehavior.springField()
            top.position = CGPoint(x: 160, y: 142); top.region = Region(size: CGSize(width: 320, height: 284))
            bottom.position = CGPoint(x: 160, y: 426); bottom.region = Region(size: CGSize(width: 320, height: 284))
            for f in [top, bottom] { f.addItem(item); animator.addBehavior(f) }
            let props = DynamicItemBehavior(items: [item])
            props.resistance = 10; props.density = 0.01; props.allowsRotation = false
            animator.addBehavior(props)
            let c = CollisionBehavior(items: [item]); c.translatesReferenceBoundsIntoBoundary = true
            animator.addBehavior(c)
            props.addLinearVelocity(velocity, for: item)
            animator.runUntilPaused(timeout: 20)
            return item.center
        }
        let a = settle(throwFrom: CGPoint(x: 160, y: 250), velocity: CGPoint(x: 0, y: -200))
        XCTAssertClose(a.y, 142, within: 3)
        let b = settle(throwFrom: CGPoint(x: 160, y: 320), velocity: CGPoint(x: 100, y: 300))
        XCTAssertClose(b.y, 426, within: 3)
        XCTAssertClose(b.x, 160, within: 3)
    }
}

final class RegionTests: XCTestCase {
    /// "init(radius:) (boundary inside), init(size:) (centerd, edge outside)".
    func test_regionMembership_circleBoundaryInside_rectangleEdgeOutside() {
        let circle = Region(radius: 10)
        XCTAssertTrue(circle.contains(CGPoint(x: 10, y: 0)))
        XCTAssertFalse(circle.contains(CGPoint(x: 10.01, y: 0)))
        let rect = Region(size: CGSize(width: 20, height: 10))
        XCTAssertTrue(rect.contains(CGPoint(x: 9.99, y: 4.99)))
        XCTAssertFalse(rect.contains(CGPoint(x: 10, y: 0)))
        XCTAssertFalse(rect.contains(CGPoint(x: 0, y: -5)))
        XCTAssertTrue(Region.infinite.contains(CGPoint(x: 1e9, y: -1e9)))
        XCTAssertFalse(Region.infinite.contains(CGPoint(x: CGFloat.nan, y: 0)))
    }

    func test_setOperations_andNestedCombinations() {
        let big = Region(radius: 20), small = Region(radius: 10), bar = Region(size: CGSize(width: 100, height: 4))
        let ring = big.difference(from: small)
        XCTAssertTrue(ring.contains(CGPoint(x: 15, y: 0)))
        XCTAssertFalse(ring.contains(CGPoint(x: 5, y: 0)))
        XCTAssertFalse(ring.contains(CGPoint(x: 25, y: 0)))
        XCTAssertTrue(small.inverse().contains(CGPoint(x: 11, y: 0)))
        XCTAssertFalse(small.inverse().contains(CGPoint(x: 9, y: 0)))
        let plus = small.union(with: bar)
        XCTAssertTrue(plus.contains(CGPoint(x: 40, y: 0)))
        XCTAssertTrue(plus.contains(CGPoint(x: 0, y: 9)))
        XCTAssertFalse(plus.contains(CGPoint(x: 40, y: 5)))
        let crossing = big.intersection(with: bar)
        XCTAssertTrue(crossing.contains(CGPoint(x: 19, y: 1)))
        XCTAssertFalse(crossing.contains(CGPoint(x: 21, y: 1)))
        // Nested: (ring ∪ bar) ∩ ¬(circle of 2 around the center), inverted twice.
        let nested = ring.union(with: bar).intersection(with: Region(radius: 2).inverse()).inverse().inverse()
        XCTAssertTrue(nested.contains(CGPoint(x: 15, y: 0)))
        XCTAssertTrue(nested.contains(CGPoint(x: 5, y: 1)))   // in the bar
        XCTAssertFalse(nested.contains(CGPoint(x: 1, y: 0)))  // cut out
        XCTAssertFalse(nested.contains(CGPoint(x: 5, y: 5)))  // inside the ring's hole, off the bar
        // Deep trees stay correct.
        var deep = Region(radius: 1)
        for k in 2...100 { deep = deep.union(with: Region(radius: CGFloat(k)).difference(from: Region(radius: CGFloat(k) - 0.5))) }
        XCTAssertTrue(deep.contains(CGPoint(x: 99.9, y: 0)))
        XCTAssertFalse(deep.contains(CGPoint(x: 99.2, y: 0)))
    }

    func test_badRegionAndFieldValues_areRefused() {
        let recorder = ViolationRecorder()
        defer { recorder.restore() }
        _ = Region(radius: -1)
        _ = Region(size: CGSize(width: CGFloat.nan, height: 1))
        let f = FieldBehavior.noiseField(smoothness: 0.5, animationSpeed: 1)
        f.strength = .nan
        f.position = CGPoint(x: CGFloat.infinity, y: 0)
        f.direction = CGVector(dx: CGFloat.nan, dy: 0)
        f.minimumRadius = -1
        f.smoothness = -0.1
        f.falloff = .infinity
        XCTAssertEqual(recorder.messages.count, 8)
        XCTAssertTrue(recorder.messages[0].contains("radius"))
        XCTAssertTrue(recorder.messages[1].contains("size"))
        XCTAssertEqual(f.strength, 1); XCTAssertEqual(f.smoothness, 0.5); XCTAssertEqual(f.minimumRadius, 0.001)
    }
}
