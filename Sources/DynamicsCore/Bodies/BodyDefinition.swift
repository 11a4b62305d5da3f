/// One shape of a body: its geometry in the body's frame (points, relative to the body origin) and its mass.
public struct ShapeDefinition: Equatable, Sendable {
    public var geometry: ShapeGeometry
    /// Mass in UIKit units (a 100×100-point item of density 1 has mass 1). Static bodies ignore it.
    public var mass: Float

    public init(_ geometry: ShapeGeometry, mass: Float) {
        self.geometry = geometry
        self.mass = mass
    }

    /// A `width` × `height` rectangle with UIKit's mass rule, mass = density × width × height / 10 000.
    public static func box(width: Float, height: Float, density: Float = 1, center: Vec2 = .zero, angle: Float = 0) -> ShapeDefinition {
        ShapeDefinition(.box(width: width, height: height, center: center, angle: angle), mass: density * width * height / 10_000)
    }
}

/// How a body moves.
public enum BodyType: UInt8, Sendable {
    /// Moved by forces and contacts.
    case dynamic
    /// Never moves (anchored items, boundaries); still collides with dynamic bodies.
    case `static`
}

/// Everything needed to create a body. Units: points, radians, seconds.
public struct BodyDefinition: Sendable {
    public var type: BodyType = .dynamic
    /// Position of the body origin (for an item: its center), points.
    public var position: Vec2 = .zero
    /// Rotation in radians; positive turns clockwise on screen.
    public var angle: Float = 0
    /// points/s
    public var linearVelocity: Vec2 = .zero
    /// radians/s, positive clockwise on screen
    public var angularVelocity: Float = 0
    public var shapes: [ShapeDefinition] = []
    /// When false the body keeps its angle (infinite rotational inertia).
    public var allowsRotation: Bool = true
    /// Exponential damping rates (1/s): v(t) = v0 · e^(−rate·t).
    public var linearDamping: Float = 0.1
    public var angularDamping: Float = 0.1
    /// Restitution 0…1 (pairs mix by max) and friction coefficient ≥ 0 (pairs mix by √(μ1·μ2)).
    public var restitution: Float = 0.2
    public var friction: Float = 0.2
    /// Electric charge, read by field kernels.
    public var charge: Float = 0
    /// Constant acceleration in points/s² (the sum of the gravity behaviors that hold the body).
    public var gravity: Vec2 = .zero
    /// Collision class: bodies collide when the world's collision matrix allows their pair of classes. Class 0
    /// collides with nothing.
    public var collisionClass: Int32 = 0
    /// A value for the owner (the object layer stores its item index here). Not used by the engine.
    public var userTag: Int32 = -1

    public init() {}

    /// A dynamic box body, with UIKit's defaults.
    public static func box(center: Vec2, width: Float, height: Float, density: Float = 1) -> BodyDefinition {
        var d = BodyDefinition()
        d.position = center
        d.shapes = [.box(width: width, height: height, density: density)]
        return d
    }
}
