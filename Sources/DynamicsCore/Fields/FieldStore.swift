import DynamicsSIMD

/// The fields, their per-body results of the step (forces, accelerations, velocity overrides, exact motion) and
/// the field time that animates noise.
@usableFromInline
struct FieldStore {
    @usableFromInline var records: [FieldRecord] = []
    @usableFromInline var warned: [Bool] = []
    @usableFromInline var force: [Vec2] = []
    /// Field accelerations (points/s²) of the mass-proportional kinds, so their kernels need no mass.
    @usableFromInline var acceleration: [Vec2] = []
    @usableFromInline var velocityOverride: [Vec2] = []
    @usableFromInline var active = false
    @usableFromInline var hasVelocityOverride = false
    @usableFromInline var velocityOverrideWritten = false
    @usableFromInline var coveredCount = 0
    /// This step's field motion that is integrated exactly per substep rather than as a force (see
    /// `FieldMotion`), per awake slot; present only while some field needs it.
    @usableFromInline var motion = FieldMotion()
    /// The gravity of the first `foldedGravityCount` awake slots before this step's field accelerations were added
    /// to it (`foldFieldAcceleration`).
    @usableFromInline var savedGravity: [Vec2] = []
    @usableFromInline var foldedGravityCount = 0
    /// Simulated seconds of field time (drives animated noise).
    @usableFromInline var time: Float = 0
    /// Indices of the fields that take the general path this step (reused scratch).
    @usableFromInline var generalScratch: [Int] = []

    @usableFromInline init() {}
}
