/// The joint kinds; one solver file each. A closed enum dispatched by one `switch` in the solver stages.
public enum JointKind: UInt8, Sendable {
    /// Keeps two anchor points at `length` (rigid when `minLength == maxLength`), or within
    /// `minLength ... maxLength` (a rope when `minLength` is 0), optionally with a spring of `hertz`.
    case distance
    /// Pins two anchor points together; optional angle range (`lowerLimit ... upperLimit`, radians) and
    /// friction torque.
    case revolute
    /// Pins two anchors together and holds the relative angle.
    case weld
    /// Lets body B slide along `localAxisA` relative to A without turning, optionally within a range (points).
    case prismatic
    /// Springs body A's anchor to a world target and its angle to 0 (UIKit's snap behavior).
    case snap
}

/// Everything needed to create a joint. Lengths in points, angles in radians, torques in mass·points²/s².
public struct JointDefinition: Sendable {
    public var kind: JointKind
    public var bodyA: BodyID
    /// `nil` attaches A to a fixed point of the world at `localAnchorB` (world coordinates).
    public var bodyB: BodyID?
    /// Anchor on A relative to A's origin (item center), in A's frame.
    public var localAnchorA: Vec2 = .zero
    /// Anchor on B relative to B's origin, in B's frame; or the world point when `bodyB` is nil.
    public var localAnchorB: Vec2 = .zero
    public var length: Float = 0
    public var minLength: Float = 0
    public var maxLength: Float = .infinity
    /// Spring frequency (Hz); 0 = no spring.
    public var hertz: Float = 0
    /// Spring damping ratio (non-dimensional; 1 = critical).
    public var dampingRatio: Float = 0
    public var enableLimit = false
    public var lowerLimit: Float = 0
    public var upperLimit: Float = 0
    public var maxFrictionTorque: Float = 0
    /// Sliding axis in A's frame (prismatic).
    public var localAxisA: Vec2 = Vec2(1, 0)

    public init(kind: JointKind, bodyA: BodyID, bodyB: BodyID?) {
        self.kind = kind
        self.bodyA = bodyA
        self.bodyB = bodyB
    }
}

/// Soft-constraint coefficients (Box2D v3's `b2Softness`): a constraint with stiffness `hertz` and damping ratio
/// `zeta`, integrated implicitly over a substep `h`.
struct Softness: Sendable {
    var biasRate: Float
    var massScale: Float
    var impulseScale: Float

    static let rigid = Softness(biasRate: 0, massScale: 1, impulseScale: 0)

    init(biasRate: Float, massScale: Float, impulseScale: Float) {
        self.biasRate = biasRate; self.massScale = massScale; self.impulseScale = impulseScale
    }

    init(hertz: Float, zeta: Float, h: Float) {
        if hertz == 0 { self = .rigid; return }
        let omega = 2 * Float.pi * hertz
        let a1 = 2 * zeta + h * omega
        let a2 = h * omega * a1
        let a3 = 1 / (1 + a2)
        biasRate = omega / a1
        massScale = a2 * a3
        impulseScale = a3
    }
}

/// Stored joint: definition, accumulated impulses (warm starting), and per-step solver temporaries.
struct JointRecord {
    var kind: JointKind
    var bodyA: Int32
    var bodyB: Int32            // -1 = the world
    var localA: Vec2            // relative to A's COM, A's frame
    var localB: Vec2            // relative to B's COM, B's frame; world point for the world
    var length: Float
    var minLength: Float
    var maxLength: Float
    var hertz: Float
    var dampingRatio: Float
    var enableLimit: Bool
    var lower: Float
    var upper: Float
    var maxFrictionTorque: Float
    var localAxisA: Vec2
    var referenceAngle: Float

    // accumulated impulses
    var linearImpulse: Vec2 = .zero
    var angularImpulse: Float = 0
    var axialImpulse: Float = 0
    var lowerImpulse: Float = 0
    var upperImpulse: Float = 0
    var motorImpulse: Float = 0

    /// A world anchor's move since the last step (points) and, during a step, its velocity (points/s): an anchor
    /// moved by a finger moves at the finger's velocity, and what is attached to it without length follows.
    var anchorShift: Vec2 = .zero
    var anchorVelocity: Vec2 = .zero

    /// Forgets the accumulated impulses (warm starting starts again from none).
    mutating func resetImpulses() {
        linearImpulse = .zero; angularImpulse = 0; axialImpulse = 0; lowerImpulse = 0; upperImpulse = 0; motorImpulse = 0
    }

    /// Carries the stored impulses to a substep `ratio` times as long (`World.rescaleWarmStart`).
    mutating func scaleImpulses(by ratio: Float) {
        linearImpulse = Vec2(warmStartImpulse(linearImpulse.x, scaledBy: ratio), warmStartImpulse(linearImpulse.y, scaledBy: ratio))
        angularImpulse = warmStartImpulse(angularImpulse, scaledBy: ratio)
        axialImpulse = warmStartImpulse(axialImpulse, scaledBy: ratio)
        lowerImpulse = warmStartImpulse(lowerImpulse, scaledBy: ratio)
        upperImpulse = warmStartImpulse(upperImpulse, scaledBy: ratio)
        motorImpulse = warmStartImpulse(motorImpulse, scaledBy: ratio)
    }

    // per-step temporaries
    var slotA: Int32 = -1       // -1 = not a moving body (world, static or not awake)
    var slotB: Int32 = -1
    var mA: Float = 0, iA: Float = 0, mB: Float = 0, iB: Float = 0
    var fixedPosA: Vec2 = .zero, fixedRotA = Rotation.identity
    var fixedPosB: Vec2 = .zero, fixedRotB = Rotation.identity
    var spring = Softness.rigid
}
