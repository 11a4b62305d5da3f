import DynamicsSIMD

/// Every joint: the records by id with their generations and liveness, the free ids, each body's joint edges
/// (see `BodyStore.jointHead`), the awake joints, and the anchors moved by hand.
@usableFromInline
struct JointStore {
    @usableFromInline var records: [JointRecord] = []
    @usableFromInline var generation: [UInt32] = []
    @usableFromInline var alive: [Bool] = []
    @usableFromInline var freeIndices: [Int32] = []
    /// Per joint edge (see `BodyStore.jointHead`): the next edge of the same body's list, or −1.
    @usableFromInline var edgeNext: [Int32] = []
    @usableFromInline var awake: [Int32] = []
    /// Joints whose world anchor was moved since the last step (`setWorldAnchor`), and those whose anchor moved
    /// during the last step: the solver gives the anchor the velocity of its move.
    @usableFromInline var movedAnchors: [Int32] = []
    @usableFromInline var anchorsInMotion: [Int32] = []
    /// Seconds of the step left at the current substep's positions (a moving anchor is that far behind its end).
    @usableFromInline var anchorTimeLeft: Float = 0
    @usableFromInline var awakeDirty = false
    /// What the joint records were last brought up to date with (`prepareJoints`): the bodies' slot version and
    /// the substep.
    @usableFromInline var preparedSlotVersion: UInt64 = .max
    @usableFromInline var preparedSubstep: Float = .nan

    @usableFromInline init() {}
}
