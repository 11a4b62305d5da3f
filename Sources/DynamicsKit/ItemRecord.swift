/// An item joined to the world: 40 bytes, in `records` at the body's user tag.
///
/// The engine keeps every per-body value the animator sends (gravity, constant force, class, type, material) and
/// ignores a value equal to the one it holds, so the record keeps only what the world cannot answer: the item,
/// and what its shapes were built from.
struct ItemRecord {
    let item: DynamicItem
    let body: BodyID
    /// The bounds size and density the body's shapes were built from, as the engine's `Float`s (the shapes are
    /// made from exactly these), to tell when they must be rebuilt.
    var width: Float
    var height: Float
    var density: Float
    /// The collision list (bits 0–27, as index + 1), the bounds type (bits 28–29) and whether the item is a group
    /// (bit 30), in one word: the record is 40 bytes where three fields made it 48.
    private var bits: UInt32 = 0

    /// Index into `collisionLists` of the collision behaviors (items mode) holding the item, or −1.
    var collisionList: Int32 {
        get { Int32(bits & 0x0FFF_FFFF) - 1 }
        set {
            precondition(newValue >= -1 && newValue < 0x0FFF_FFFF, "more distinct collision-behavior lists than the record holds")
            bits = bits & ~0x0FFF_FFFF | UInt32(newValue + 1)
        }
    }

    var boundsType: DynamicItemCollisionBoundsType {
        get { DynamicItemCollisionBoundsType(rawValue: Int(bits >> 28 & 3))! }
        set { bits = bits & ~(3 << 28) | UInt32(newValue.rawValue) << 28 }
    }

    /// An item group, whose members are in `groupMembers` at the same tag.
    var isGroup: Bool { bits & 1 << 30 != 0 }

    init(item: DynamicItem, body: BodyID, size: CGSize, boundsType: DynamicItemCollisionBoundsType, density: CGFloat,
         isGroup: Bool) {
        self.item = item; self.body = body
        width = Float(size.width); height = Float(size.height)
        self.density = Float(density)
        self.boundsType = boundsType
        if isGroup { bits |= 1 << 30 }
    }

    /// Whether shapes made now from `size` and `boundsType` (at the recorded density) could differ from the
    /// body's: a path is re-read every time.
    func shapesDiffer(size: CGSize, boundsType: DynamicItemCollisionBoundsType) -> Bool {
        Float(size.width) != width || Float(size.height) != height || boundsType != self.boundsType || boundsType == .path
    }
}
