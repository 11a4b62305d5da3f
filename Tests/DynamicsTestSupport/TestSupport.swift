import DynamicsKit

// What the test targets share: a floor world for the engine's tests; recorders, item builders and a fixed-length
// run for the object API's. (The seeded generator is `SplitMix64`, in DynamicsScenes.)

/// A world whose class-1 bodies collide with each other, with a static floor of class 1 along y from x0 to x1
/// (solid below).
public func floorWorld(y: Float, from x0: Float, to x1: Float) throws -> World {
    let world = World()
    world.setCollisionMatrix(classCount: 2) { a, b in a == 1 && b == 1 }
    var floor = BodyDefinition(); floor.type = .static; floor.collisionClass = 1
    floor.shapes = [ShapeDefinition(try .wall(from: Vec2(x0, y), to: Vec2(x1, y), outward: Vec2(0, 1)), mass: 0)]
    try world.createBody(floor)
    return world
}

/// Records contract violations instead of stopping, for the duration of a test.
public final class ViolationRecorder {
    public private(set) var messages: [String] = []
    private let previous: (String) -> Void
    public init() {
        previous = ContractViolation.handler
        ContractViolation.handler = { [unowned self] in self.messages.append($0) }
    }
    public func restore() { ContractViolation.handler = previous }
    public var last: String? { messages.last }
}

/// Records delegate calls.
public final class EventLog: CollisionBehaviorDelegate, DynamicAnimatorDelegate {
    public var began: [(DynamicItem, DynamicItem, CGPoint)] = []
    public var ended: [(DynamicItem, DynamicItem)] = []
    public var boundaryBegan: [(DynamicItem, AnyHashable?, CGPoint)] = []
    public var boundaryEnded: [(DynamicItem, AnyHashable?)] = []
    public var pauses = 0
    public var resumes = 0
    public init() {}
    public func collisionBehavior(_ behavior: CollisionBehavior, beganContactFor item1: DynamicItem, with item2: DynamicItem, at point: CGPoint) { began.append((item1, item2, point)) }
    public func collisionBehavior(_ behavior: CollisionBehavior, endedContactFor item1: DynamicItem, with item2: DynamicItem) { ended.append((item1, item2)) }
    public func collisionBehavior(_ behavior: CollisionBehavior, beganContactFor item: DynamicItem, withBoundaryIdentifier identifier: AnyHashable?, at point: CGPoint) { boundaryBegan.append((item, identifier, point)) }
    public func collisionBehavior(_ behavior: CollisionBehavior, endedContactFor item: DynamicItem, withBoundaryIdentifier identifier: AnyHashable?) { boundaryEnded.append((item, identifier)) }
    public func dynamicAnimatorDidPause(_ animator: DynamicAnimator) { pauses += 1 }
    public func dynamicAnimatorWillResume(_ animator: DynamicAnimator) { resumes += 1 }
}

/// A square (or `w` × `h`) headless item centered at (x, y).
public func box(_ x: CGFloat, _ y: CGFloat, _ w: CGFloat = 100, _ h: CGFloat? = nil, name: String? = nil) -> HeadlessItem {
    HeadlessItem(center: CGPoint(x: x, y: y), size: CGSize(width: w, height: h ?? w), name: name)
}

/// An item behavior that removes damping, so motion can be compared with closed-form answers.
public func noDamping(_ items: [DynamicItem]) -> DynamicItemBehavior {
    let b = DynamicItemBehavior(items: items)
    b.resistance = 0
    b.angularResistance = 0
    return b
}

extension DynamicAnimator {
    /// Steps for `seconds` of simulated time (whether or not it pauses in between).
    public func run(seconds: Double) {
        let steps = Int((seconds / timeStep).rounded())
        for _ in 0..<steps { if !step() { break } }
    }
}
