import DynamicsSIMD

/// The fields, their per-body results of the step (forces, accelerations, velocity overrides, exact motion) and
/// the field time that animates noise.
struct FieldStore {
    var records: [FieldRecord] = []
    var warned: [Bool] = []
    var force: [Vec2] = []
    /// Field accelerations (points/s²) of the mass-proportional kinds, so their kernels need no mass.
    var acceleration: [Vec2] = []
    var velocityOverride: [Vec2] = []
    var active = false
    var hasVelocityOverride = false
    var velocityOverrideWritten = false
    var coveredCount = 0
    /// This step's field motion that is integrated exactly per substep rather than as a force (see
    /// `FieldMotion`), per awake slot; present only while some field needs it.
    var motion = FieldMotion()
    /// The gravity of the first `foldedGravityCount` awake slots before this step's field accelerations were added
    /// to it (`foldFieldAcceleration`).
    var savedGravity: [Vec2] = []
    var foldedGravityCount = 0
    /// Simulated seconds of field time (drives animated noise).
    var time: Float = 0
    /// Indices of the fields that take the general path this step (reused scratch).
    var generalScratch: [Int] = []

    init() {}
}
