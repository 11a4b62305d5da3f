import XCTest
@testable import DynamicsKit

/// Scenes that once created energy, went NaN or lost items: each is run with its physics asserted.
final class HardScenesTests: XCTestCase {
    struct LCG {
        var state: UInt32
        mutating func next() -> CGFloat {
            state = state &* 1_664_525 &+ 1_013_904_223
            return CGFloat(state >> 8) / CGFloat(1 << 24)
        }
    }

    /// "Constraints that fight each other or the walls stay finite and keep items inside": welded and pinned pairs
    /// in a walled pile.
    func test_weldedAndPinnedPiles_stayFiniteAndInside() {
        for pinned in [false, true] {
            for seed: UInt32 in 1...2 {
                let animator = UIDynamicAnimator(referenceBounds: CGRect(x: 0, y: 0, width: 400, height: 600))
                var rng = LCG(state: seed)
                var items: [HeadlessItem] = []
                for k in 0..<300 {
                    items.append(HeadlessItem(center: CGPoint(x: 10 + CGFloat(k % 19) * 20, y: 10 + CGFloat(k / 19) * 20),
                                              size: CGSize(width: 6 + 10 * rng.next(), height: 6 + 10 * rng.next())))
                }
                animator.addBehavior(UIGravityBehavior(items: items))
                let collision = UICollisionBehavior(items: items)
                collision.translatesReferenceBoundsIntoBoundary = true
                animator.addBehavior(collision)
                for _ in 0..<40 {
                    let a = items[Int(rng.next() * 300)], b = items[Int(rng.next() * 300)]
                    guard a !== b else { continue }
                    let anchor = CGPoint(x: (a.center.x + b.center.x) / 2, y: (a.center.y + b.center.y) / 2)
                    animator.addBehavior(pinned ? UIAttachmentBehavior.pinAttachment(with: a, attachedTo: b, attachmentAnchor: anchor)
                                                : UIAttachmentBehavior.fixedAttachment(with: a, attachedTo: b, attachmentAnchor: anchor))
                }
                animator.run(seconds: 5)
                for item in items {
                    XCTAssertTrue(item.center.x.isFinite && item.center.y.isFinite, "\(pinned ? "pin" : "fixed") seed \(seed): \(item)")
                    XCTAssertTrue(CGRect(x: -1, y: -1, width: 402, height: 602).contains(item.center), "\(pinned ? "pin" : "fixed") seed \(seed): \(item) left the box")
                }
            }
        }
    }
}
