import DynamicsSIMD

/// Every joint: the records by id with their generations and liveness, the free ids, each body's joint edges
/// (see `BodyStore.jointHead`), the awake joints, and the anchors moved by hand.
struct JointStore {
    var records: [JointRecord] = []
    var generation: [UInt32] = []
    var alive: [Bool] = []
    var freeIndices: [Int32] = []
    /// Per joint edge (see `BodyStore.jointHead`): the next edge of the same body's list, or −1.
    var edgeNext: [Int32] = []
    var awake: [Int32] = []
    /// Joints whose world anchor was moved since the last step (`setWorldAnchor`), and those whose anchor moved
    /// during the last step: the solver gives the anchor the velocity of its move.
    var movedAnchors: [Int32] = []
    var anchorsInMotion: [Int32] = []
    /// Seconds of the step left at the current substep's positions (a moving anchor is that far behind its end).
    var anchorTimeLeft: Float = 0
    var awakeDirty = false
    /// Counts the rebuilds of `awake` (`refreshAwakeJoints`).
    var awakeVersion: UInt64 = 0
    /// What the joint records were last brought up to date with (`prepareJoints`): the bodies' slot version and
    /// the substep.
    var preparedSlotVersion: UInt64 = .max
    var preparedSubstep: Float = .nan

    init() {}
}
