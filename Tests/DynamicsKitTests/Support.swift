import XCTest
@testable import DynamicsKit

/// Records contract violations instead of stopping, for the duration of a test.
final class ViolationRecorder {
    private(set) var messages: [String] = []
    private let previous: (String) -> Void
    init() {
        previous = ContractViolation.handler
        ContractViolation.handler = { [unowned self] in self.messages.append($0) }
    }
    func restore() { ContractViolation.handler = previous }
    var last: String? { messages.last }
}

/// Records delegate calls.
final class EventLog: CollisionBehaviorDelegate, DynamicAnimatorDelegate {
    var began: [(DynamicItem, DynamicItem, CGPoint)] = []
    var ended: [(DynamicItem, DynamicItem)] = []
    var boundaryBegan: [(DynamicItem, AnyHashable?, CGPoint)] = []
    var boundaryEnded: [(DynamicItem, AnyHashable?)] = []
    var pauses = 0
    var resumes = 0
    func collisionBehavior(_ behavior: CollisionBehavior, beganContactFor item1: DynamicItem, with item2: DynamicItem, at point: CGPoint) { began.append((item1, item2, point)) }
    func collisionBehavior(_ behavior: CollisionBehavior, endedContactFor item1: DynamicItem, with item2: DynamicItem) { ended.append((item1, item2)) }
    func collisionBehavior(_ behavior: CollisionBehavior, beganContactFor item: DynamicItem, withBoundaryIdentifier identifier: AnyHashable?, at point: CGPoint) { boundaryBegan.append((item, identifier, point)) }
    func collisionBehavior(_ behavior: CollisionBehavior, endedContactFor item: DynamicItem, withBoundaryIdentifier identifier: AnyHashable?) { boundaryEnded.append((item, identifier)) }
    func dynamicAnimatorDidPause(_ animator: DynamicAnimator) { pauses += 1 }
    func dynamicAnimatorWillResume(_ animator: DynamicAnimator) { resumes += 1 }
}

func box(_ x: CGFloat, _ y: CGFloat, _ w: CGFloat = 100, _ h: CGFloat? = nil, name: String? = nil) -> HeadlessItem {
    HeadlessItem(center: CGPoint(x: x, y: y), size: CGSize(width: w, height: h ?? w), name: name)
}

/// An item behavior that removes damping, so motion can be compared with closed-form answers.
func noDamping(_ items: [DynamicItem]) -> DynamicItemBehavior {
    let b = DynamicItemBehavior(items: items)
    b.resistance = 0
    b.angularResistance = 0
    return b
}

extension DynamicAnimator {
    /// Steps for `seconds` of simulated time (whether or not it pauses in between).
    func run(seconds: Double) {
        let steps = Int((seconds / timeStep).rounded())
        for _ in 0..<steps { if !step() { break } }
    }
}

func XCTAssertClose(_ a: CGFloat, _ b: CGFloat, within tolerance: CGFloat, _ message: String = "", file: StaticString = #filePath, line: UInt = #line) {
    XCTAssert(abs(a - b) <= tolerance, "\(a) is not within \(tolerance) of \(b). \(message)", file: file, line: line)
}
