/// A connection between an item and an anchor point or between two items: UIKit's `UIAttachmentBehavior`.
///
/// - Default attachments keep a `length` between their attachment points: rigid when `frequency` is 0, a damped
///   spring otherwise.
/// - `fixedAttachment` welds two items at an anchor; `pinAttachment` pins them at an anchor so they can turn (within
///   `attachmentRange` radians, against `frictionTorque`); `slidingAttachment` lets them slide along an axis
///   (within `attachmentRange` points) without turning; `limitAttachment` is a rope of at most `length`.
public final class AttachmentBehavior: DynamicBehavior {
    public enum AttachedBehaviorType: Int, Sendable { case items, anchor }
    enum Kind { case distance, fixed, pin, sliding, limit }

    let kind: Kind
    public let attachedBehaviorType: AttachedBehaviorType
    /// The attached items (one for an anchor attachment). Read-only, as in UIKit.
    public let items: [DynamicItem]
    let offsetA: UIOffset
    let offsetB: UIOffset
    let axis: CGVector

    /// The anchor point (points). For an anchor attachment, moving it drags the item.
    public var anchorPoint: CGPoint {
        didSet {
            if !require(anchorPoint.isSupportedCoordinate, "\(describe(self)): anchorPoint must be \(Rule.coordinate), got \(anchorPoint)") { anchorPoint = oldValue; return }
            invalidate()
        }
    }
    /// Distance between the attachment points, points. Unless you set it, it is measured when the attachment joins
    /// an animator, between the attachment points as they are then (and at creation, until it joins): the drag
    /// code of UIKit apps creates an attachment to some anchor, moves `anchorPoint` under the finger and then adds
    /// it, and the item must then hang at the finger, not at the distance to the first anchor. Once set, it stays.
    public var length: CGFloat {
        didSet {
            if !require(length.isFinite && length >= 0 && length <= 2 * SupportedRange.coordinate, "\(describe(self)): length must be finite, not negative and at most 2,000,000 points, got \(length)") { length = oldValue; return }
            if !measuringLength { lengthIsSet = true }
            invalidate()
        }
    }
    /// Whether the app set `length` (then it is never measured again).
    private var lengthIsSet = false
    private var measuringLength = false
    /// Spring frequency in Hz; 0 makes the attachment rigid.
    public var frequency: CGFloat = 0 {
        didSet {
            if !require(frequency.isFinite && frequency >= 0 && frequency <= SupportedRange.magnitude, "\(describe(self)): frequency must be \(Rule.nonNegativeMagnitude), got \(frequency)") { frequency = oldValue; return }
            invalidate()
        }
    }
    /// Damping ratio of the spring (0 = none, 1 = critical). The spring is integrated implicitly, as Box2D's soft
    /// springs are, so that no stiffness can make it gain energy; that integration damps it too: an undamped 2 Hz
    /// spring loses about half its amplitude each second at the default 4 substeps, a tenth at 16.
    public var damping: CGFloat = 0 {
        didSet {
            if !require(damping.isFinite && damping >= 0 && damping <= SupportedRange.magnitude, "\(describe(self)): damping must be \(Rule.nonNegativeMagnitude), got \(damping)") { damping = oldValue; return }
            invalidate()
        }
    }
    /// Torque resisting rotation of a pin attachment, UIKit newton·points.
    public var frictionTorque: CGFloat = 0 {
        didSet {
            if !require(frictionTorque.isFinite && frictionTorque >= 0 && frictionTorque <= SupportedRange.magnitude, "\(describe(self)): frictionTorque must be \(Rule.nonNegativeMagnitude), got \(frictionTorque)") { frictionTorque = oldValue; return }
            invalidate()
        }
    }
    /// Allowed range: radians for a pin attachment, points for a sliding one. Must contain 0.
    public var attachmentRange: UIFloatRange = .infinite {
        didSet {
            if !require(!attachmentRange.minimum.isNaN && !attachmentRange.maximum.isNaN && attachmentRange.minimum <= 0 && attachmentRange.maximum >= 0,
                        "\(describe(self)): attachmentRange \(attachmentRange.minimum)...\(attachmentRange.maximum) must contain 0") {
                attachmentRange = oldValue; return
            }
            invalidate()
        }
    }

    init(kind: Kind, items: [DynamicItem], offsetA: UIOffset, offsetB: UIOffset, anchor: CGPoint, axis: CGVector = CGVector(dx: 1, dy: 0), type: AttachedBehaviorType) {
        self.kind = kind
        self.items = items
        self.offsetA = offsetA
        self.offsetB = offsetB
        self.anchorPoint = anchor
        self.axis = axis
        self.attachedBehaviorType = type
        self.length = Self.distance(items: items, offsetA: offsetA, offsetB: offsetB, anchor: anchor)
        super.init()
        _ = require(offsetA.isWithin(SupportedRange.size.upperBound) && offsetB.isWithin(SupportedRange.size.upperBound) && anchor.isSupportedCoordinate,
                    "\(describe(self)): offsets must be finite and within ±100,000 points, and the anchor \(Rule.coordinate)")
        _ = require(axis.isWithin(SupportedRange.magnitude) && axis.length > 0, "\(describe(self)): the axis of translation must be non-zero, \(Rule.magnitude), got \(axis)")
    }

    /// The distance between the attachment points now: offsets turned with each item.
    static func distance(items: [DynamicItem], offsetA: UIOffset, offsetB: UIOffset, anchor: CGPoint) -> CGFloat {
        let a = Self.point(items[0], offsetA)
        let b = items.count > 1 ? Self.point(items[1], offsetB) : anchor
        let d = ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
        return d.isFinite ? d : 0
    }

    override func invalidReason() -> String? {
        if !(offsetA.isWithin(SupportedRange.size.upperBound) && offsetB.isWithin(SupportedRange.size.upperBound)) {
            return "offsets must be finite and within ±100,000 points"
        }
        if !anchorPoint.isSupportedCoordinate { return "anchorPoint must be \(Rule.coordinate), got \(anchorPoint)" }
        if !(axis.isWithin(SupportedRange.magnitude) && axis.length > 0) { return "the axis of translation must be non-zero, \(Rule.magnitude)" }
        return nil
    }

    /// Joining an animator: the length is measured now unless the app set it.
    override func joined() {
        guard !lengthIsSet, kind == .distance || kind == .limit else { return }
        measuringLength = true
        length = Self.distance(items: items, offsetA: offsetA, offsetB: offsetB, anchor: anchorPoint)
        measuringLength = false
    }

    static func point(_ item: DynamicItem, _ o: UIOffset) -> CGPoint {
        let t = item.transform
        return CGPoint(x: item.center.x + t.a * o.horizontal + t.c * o.vertical, y: item.center.y + t.b * o.horizontal + t.d * o.vertical)
    }

    /// Where the attachment's two ends are now, in reference coordinates: the attachment point on the first item,
    /// and the one on the second item or the anchor point. (A DynamicsKit addition, for drawing and recording.)
    public var attachmentPoints: (CGPoint, CGPoint) {
        (Self.point(items[0], offsetA), items.count > 1 ? Self.point(items[1], offsetB) : anchorPoint)
    }

    /// Attaches the item's center to an anchor point.
    public convenience init(item: DynamicItem, attachedToAnchor point: CGPoint) {
        self.init(kind: .distance, items: [item], offsetA: .zero, offsetB: .zero, anchor: point, type: .anchor)
    }
    /// Attaches a point of the item (offset from its center, item coordinates) to an anchor point.
    public convenience init(item: DynamicItem, offsetFromCenter offset: UIOffset, attachedToAnchor point: CGPoint) {
        self.init(kind: .distance, items: [item], offsetA: offset, offsetB: .zero, anchor: point, type: .anchor)
    }
    /// Attaches two items' centers.
    public convenience init(item item1: DynamicItem, attachedTo item2: DynamicItem) {
        self.init(kind: .distance, items: [item1, item2], offsetA: .zero, offsetB: .zero, anchor: item2.center, type: .items)
    }
    /// Attaches a point of each item.
    public convenience init(item item1: DynamicItem, offsetFromCenter offset1: UIOffset, attachedTo item2: DynamicItem, offsetFromCenter offset2: UIOffset) {
        self.init(kind: .distance, items: [item1, item2], offsetA: offset1, offsetB: offset2, anchor: item2.center, type: .items)
    }

    /// Welds two items at `point`: they move and turn as one.
    public static func fixedAttachment(with item1: DynamicItem, attachedTo item2: DynamicItem, attachmentAnchor point: CGPoint) -> AttachmentBehavior {
        AttachmentBehavior(kind: .fixed, items: [item1, item2], offsetA: .zero, offsetB: .zero, anchor: point, type: .items)
    }
    /// Pins two items together at `point`; they may turn about it.
    public static func pinAttachment(with item1: DynamicItem, attachedTo item2: DynamicItem, attachmentAnchor point: CGPoint) -> AttachmentBehavior {
        AttachmentBehavior(kind: .pin, items: [item1, item2], offsetA: .zero, offsetB: .zero, anchor: point, type: .items)
    }
    /// Lets `item2` slide relative to `item1` along `axis` through `point`, without turning.
    public static func slidingAttachment(with item1: DynamicItem, attachedTo item2: DynamicItem, attachmentAnchor point: CGPoint, axisOfTranslation axis: CGVector) -> AttachmentBehavior {
        AttachmentBehavior(kind: .sliding, items: [item1, item2], offsetA: .zero, offsetB: .zero, anchor: point, axis: axis, type: .items)
    }
    /// Lets the item slide along `axis` through the fixed `point`, without turning.
    public static func slidingAttachment(with item: DynamicItem, attachmentAnchor point: CGPoint, axisOfTranslation axis: CGVector) -> AttachmentBehavior {
        AttachmentBehavior(kind: .sliding, items: [item], offsetA: .zero, offsetB: .zero, anchor: point, axis: axis, type: .anchor)
    }
    /// A rope: the two attachment points stay at most `length` apart (their distance at creation).
    public static func limitAttachment(with item1: DynamicItem, offsetFromCenter offset1: UIOffset, attachedTo item2: DynamicItem, offsetFromCenter offset2: UIOffset) -> AttachmentBehavior {
        AttachmentBehavior(kind: .limit, items: [item1, item2], offsetA: offset1, offsetB: offset2, anchor: item2.center, type: .items)
    }

    override var memberItems: [DynamicItem] { items }

    // Compiled state (owned by the animator).
    var jointID: JointID?
    var jointBodies: [BodyID] = []
    var compiledRange = UIFloatRange.infinite
}
