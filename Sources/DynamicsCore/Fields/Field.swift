/// The field kinds of UIKit's `UIFieldBehavior`; one kernel each.
public enum FieldKind: UInt8, Sendable {
    case drag, vortex, radialGravity, linearGravity, velocity, noise, turbulence, spring, electric, magnetic, custom
}

/// What a custom field block receives for one item (points, points/s, UIKit mass and charge, seconds).
public struct FieldSample: Sendable {
    public var position: Vec2
    public var velocity: Vec2
    public var mass: Float
    public var charge: Float
    public var deltaTime: Float
}

/// One field, compiled to plain parameters. Distances inside the formulas are in metres (100 points).
///
/// Every kind's magnitude is multiplied by r^(−falloff), with r the distance from `position` in metres and never
/// less than `minimumRadius`. Forces are in UIKit newtons (the engine multiplies by 100):
/// - linear gravity: F = m · direction · strength (1 UIKit newton per unit mass = 100 points/s²)
/// - radial gravity: F = −strength · m · r̂
/// - spring: F = −strength · r̂ (with the default falloff −1 this is −strength · r, Hooke's law)
/// - electric: F = strength · charge · r̂ (positive strength pushes positive charges away)
/// - magnetic: F = strength · charge · v⊥ (v in metres/s, turned 90° counter-clockwise on screen)
/// - vortex: F = strength · m · t̂ (t̂ turns counter-clockwise on screen around `position`)
/// - drag: F = −strength · v (metres/s)
/// - noise: F = strength · m · n(x, t), a smooth deterministic vector noise; turbulence: scaled by the speed
///   (metres/s) as well
/// - velocity: not a force; sets the velocity to direction · 100 points/s · strength
/// - custom: the block's return value.
public struct FieldDefinition {
    public var kind: FieldKind
    /// points
    public var position: Vec2 = .zero
    public var region: FieldRegion = .infinite
    public var strength: Float = 1
    public var falloff: Float = 0
    /// points
    public var minimumRadius: Float = 1e-3
    public var direction: Vec2 = .zero
    /// 0 (rough) … 1 (smooth)
    public var smoothness: Float = 0
    /// How fast the noise changes in time; 0 freezes it.
    public var animationSpeed: Float = 0
    public var seed: UInt32 = 0
    /// The custom field's block (kind `.custom` only); called once per affected item per step.
    public var evaluate: ((FieldSample) -> Vec2)?

    public init(kind: FieldKind) { self.kind = kind }

    func validate() throws {
        try requireFinite(position, "field position")
        try requireFinite(strength, "field strength")
        try requireFinite(falloff, "field falloff")
        try requireFinite(direction, "field direction")
        try requireFinite(animationSpeed, "field animation speed")
        if !(minimumRadius.isFinite && minimumRadius >= 0) { throw DynamicsError("field minimum radius must be finite and not negative, got \(minimumRadius)") }
        if !(smoothness.isFinite && smoothness >= 0 && smoothness <= 1) { throw DynamicsError("field smoothness must be within 0...1, got \(smoothness)") }
        try region.validate()
        if kind == .custom && evaluate == nil { throw DynamicsError("a custom field needs an evaluation block") }
    }
}

/// A compiled field with its items (body id indices).
struct FieldRecord {
    var def: FieldDefinition
    var region: RegionProgram
    var bodies: [Int32]
    var generations: [UInt32]
    /// The field holds every dynamic body (as of `bodySetVersion`): its kernel can walk the awake range directly.
    var coversAll: Bool
    var bodySetVersion: Int
}
