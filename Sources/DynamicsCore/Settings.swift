/// Engine parameters, with the reason for each default. Lengths are in points (100 points = 1 metre), time in
/// seconds.
public struct WorldSettings: Sendable {
    /// The allowed overlap that contacts keep, so resting contacts do not flicker between touching and not.
    /// 0.5 pt is Box2D's 0.005 m at 100 points per metre.
    public var linearSlop: Float = 0.5

    /// How far apart two shapes may be and still get a (speculative) contact point, on top of the distance they
    /// can close within one step. 4 × linearSlop, as in Box2D v3.
    public var speculativeDistance: Float = 2.0

    /// Contact stiffness (Hz), used up to a quarter of the substep rate (stiffer than that, the soft step rings and
    /// stacks fall); contacts with a static body or boundary get twice this, under the same cap.
    ///
    /// A resting contact is a stiff, over-damped spring: one carrying the weight of `n` items sinks about
    /// n·g/ω² (ω = 2π·hertz). The default, Box2D v3's 30 Hz, lets a 20-row pyramid of 10-point boxes under
    /// 1000 points/s² sink about 5 points; it stands within 2 at 60 Hz (the cap at 4 substeps) and a 100-row one
    /// within 5 at 180 Hz (the cap at 12 substeps). Stiffer contacts cost deep loose piles their calm: a 28-deep
    /// rain pile (rain_10000) takes far longer to come to rest at 60 Hz than at 30 Hz. Raise it (and the substep
    /// count) for tall stacks, keep it for piles.
    public var contactHertz: Float = 30
    /// Contact damping ratio (non-dimensional). Over-damped so piles do not bounce. Box2D v3 uses 10; at the
    /// default 4 substeps 5 settles piles sooner (rain_4000 asleep at step 375 at 5, 443 at 10). Where contacts sit at
    /// the stiffness cap (a quarter of the substep rate), 10 leaves a deep stack jittering at a few points per second
    /// that never rests (pyramid_100 at 12 substeps and 180 Hz); below the cap it settles tall stacks fastest
    /// (pyramid_100 at 24 substeps and 180 Hz: asleep at step 56 at 10, 75 at 5).
    public var contactDampingRatio: Float = 5
    /// Tall stacks. The contact settings above are a pile's; a stack much deeper than a pile (a tower or pyramid of
    /// a hundred rows) falls at them: four substeps cannot carry its weight up before its top has dropped, and at
    /// 30 Hz it would sink by about D²·g/(2ω²) even standing (140 points at 100 rows). While an awake stack is
    /// deeper than `tallStackDepth` items (counted in touching contacts from a static or sleeping body), the world's
    /// steps are solved with contacts stiff enough that it sinks about `tallStackSink` points under its weight, at
    /// damping ratio 10, and with the substeps that stiffness needs, up to `tallStackMaximumSubsteps` (never fewer
    /// than asked; every awake body takes them). A 100-row pyramid of 10-point boxes under 1000 points/s² takes 24
    /// substeps at 178 Hz, stands 4 points down and rests within a second; once it sleeps, steps cost what they did.
    /// 64 is deeper than rain piles reach (a settled pile of 10,000 items is 29 deep, and resting items are at most
    /// 42 deep in the rain piles while they land; the chains of touching items in a landing, deeper for a moment,
    /// move too fast to count), so piles keep the settings that bring them to rest soonest. 0 turns the rule off
    /// (`World+StackDepth.swift` has the derivation).
    public var tallStackDepth: Int = 64
    public var tallStackSink: Float = 4
    public var tallStackMaximumSubsteps: Int = 32

    /// The largest speed (points/s) at which overlap is pushed apart: 3 m/s, as in Box2D v3.
    public var contactPushMaxVelocity: Float = 300

    /// Stiffness (Hz) and damping ratio for rigid joints; rigid joints are solved stiffly and only their position
    /// error is corrected softly.
    public var jointHertz: Float = 60
    public var jointDampingRatio: Float = 2
    /// The largest speed (points/s) at which a rigid joint corrects its position error: 10 m/s. Below an error of
    /// about 15 points the correction is the soft step's own; a larger one (an attached item moved by hand far from
    /// where its attachment holds it) is closed at this speed instead of in one burst, which would throw the item
    /// faster than the step's speculative contacts foresee and through a wall.
    public var jointPushMaxVelocity: Float = 1000

    /// The largest speed of a body (points/s): 100,000 (1 km/s), checked once per step. Far beyond any gesture,
    /// it bounds what forces without limit (an anti-drag field, the singular core of a radial gravity field) can do.
    public var maximumLinearSpeed: Float = 100_000
    /// The largest angular speed of a body (radians/s): 10,000, about 1,600 turns a second.
    public var maximumAngularSpeed: Float = 10_000

    /// Below this approach speed (points/s) restitution is not applied, so resting items do not jitter (1 m/s).
    public var restitutionThreshold: Float = 100

    /// Sleep thresholds: UIKit stops an item below about 1 pt/s and 2 degrees/s held for half a second. They are
    /// applied to the average motion over the half second (an item vibrating in place rests), with any instant
    /// over 4x the thresholds restarting the wait (by both the velocity an item ends the step with and its move over
    /// the step: an item jammed in a pile can end steps with a velocity it does not move by); a turn still counts as
    /// rest when no point of the item moves more than the linear threshold allows.
    public var sleepLinearVelocity: Float = 1
    public var sleepAngularVelocity: Float = 2 * .pi / 180
    public var timeToSleep: Float = 0.5
    public var sleepingEnabled: Bool = true
    /// Reuse last step's impulses as the first guess (faster convergence for resting contacts and joints).
    public var warmStarting: Bool = true

    /// Grid cell size for the broadphase in points; 0 picks it from the typical item size when the step runs.
    public var gridCellSize: Float = 0

    public init() {}

    /// Throws a `DynamicsError` naming the first setting that breaks its rule: lengths, speeds, damping ratios and
    /// times finite and not negative; stiffnesses (hertz) positive (infinity means as stiff as the substeps allow).
    public func validate() throws {
        func finiteNotNegative(_ value: Float, _ name: String) throws {
            guard value.isFinite && value >= 0 else {
                throw DynamicsError("WorldSettings.\(name) must be finite and not negative, got \(value)")
            }
        }
        func positive(_ value: Float, _ name: String) throws {
            guard value > 0 else { throw DynamicsError("WorldSettings.\(name) must be positive, got \(value)") }
        }
        try finiteNotNegative(linearSlop, "linearSlop")
        try finiteNotNegative(speculativeDistance, "speculativeDistance")
        try positive(contactHertz, "contactHertz")
        try finiteNotNegative(contactDampingRatio, "contactDampingRatio")
        try finiteNotNegative(contactPushMaxVelocity, "contactPushMaxVelocity")
        try positive(jointHertz, "jointHertz")
        try finiteNotNegative(jointDampingRatio, "jointDampingRatio")
        try finiteNotNegative(jointPushMaxVelocity, "jointPushMaxVelocity")
        try finiteNotNegative(restitutionThreshold, "restitutionThreshold")
        try positive(maximumLinearSpeed, "maximumLinearSpeed")
        try positive(maximumAngularSpeed, "maximumAngularSpeed")
        guard maximumAngularSpeed.isFinite else { throw DynamicsError("WorldSettings.maximumAngularSpeed must be finite, got \(maximumAngularSpeed)") }
        guard maximumLinearSpeed.isFinite else { throw DynamicsError("WorldSettings.maximumLinearSpeed must be finite, got \(maximumLinearSpeed)") }
        try finiteNotNegative(sleepLinearVelocity, "sleepLinearVelocity")
        try finiteNotNegative(sleepAngularVelocity, "sleepAngularVelocity")
        try finiteNotNegative(timeToSleep, "timeToSleep")
        try finiteNotNegative(gridCellSize, "gridCellSize")
        guard tallStackDepth >= 0 else { throw DynamicsError("WorldSettings.tallStackDepth must not be negative, got \(tallStackDepth)") }
        guard tallStackSink.isFinite && tallStackSink > 0 else {
            throw DynamicsError("WorldSettings.tallStackSink must be finite and positive, got \(tallStackSink)")
        }
        guard tallStackMaximumSubsteps >= 1 && tallStackMaximumSubsteps <= 64 else {
            throw DynamicsError("WorldSettings.tallStackMaximumSubsteps must be between 1 and 64, got \(tallStackMaximumSubsteps)")
        }
    }

    func requireValid() {
        do { try validate() } catch { preconditionFailure("\(error)") }
    }
}

/// A generational handle to a body. A handle to a destroyed body is detected, never dereferenced.
public struct BodyID: Hashable, Sendable, CustomStringConvertible {
    public let index: Int32
    public let generation: UInt32
    @inlinable public init(index: Int32, generation: UInt32) { self.index = index; self.generation = generation }
    public var description: String { "body \(index).\(generation)" }
}

/// A generational handle to a joint.
public struct JointID: Hashable, Sendable, CustomStringConvertible {
    public let index: Int32
    public let generation: UInt32
    @inlinable public init(index: Int32, generation: UInt32) { self.index = index; self.generation = generation }
    public var description: String { "joint \(index).\(generation)" }
}

/// Errors the engine reports for invalid input. Each names the offending value and the rule it breaks.
public struct DynamicsError: Error, CustomStringConvertible, Equatable, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

@inlinable func requireFinite(_ v: Float, _ what: @autoclosure () -> String) throws {
    if !v.isFinite { throw DynamicsError("\(what()) must be finite, got \(v)") }
}
@inlinable func requireFinite(_ v: Vec2, _ what: @autoclosure () -> String) throws {
    if !(v.x.isFinite && v.y.isFinite) { throw DynamicsError("\(what()) must be finite, got (\(v.x), \(v.y))") }
}
