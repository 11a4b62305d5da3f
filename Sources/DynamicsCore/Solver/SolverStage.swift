/// The stages of one substep of the soft step, in order, with Box2D v3's names: the velocities are integrated
/// (gravity, forces, fields, damping), the constraints are warm started with the impulses they ended the last
/// substep with, solved with their position bias (each pushes out its position error at the softness of its kind),
/// the positions are integrated, and the constraints are solved again without the bias (relaxed), so that the push
/// leaves no velocity behind. After the last substep come restitution and storing the impulses for the next
/// step's warm start (`World.solve`).
enum SolverStage {
    case warmStart, solve, relax

    /// Whether the constraints push to correct their position error: in the solve stage only.
    @inline(__always) var usesBias: Bool { self == .solve }
}

/// The bodies' own passes a substep folds into a packed state's copies, where that packed state holds every awake
/// body and nothing else solves them (`World.solve` decides per substep; none by default): the same operations on
/// each body in the copy as in the pass it replaces, so the same results.
struct PackedFusion {
    /// Nonzero: the h by which the warm start's copy into the packed state integrates the velocities (v + h·g,
    /// gravity alone changing them; the rods on the workers).
    var kickIn: Float = 0
    /// Nonzero: the h by which the solve pass's copy-out also moves the bodies, packing their new poses for the relax
    /// pass (`World.moveInCopy`), recording the step's start poses where `recordStart`.
    var move: Float = 0
    var recordStart = false
    /// Nonzero: the h of the next substep's velocity integration, which the relax pass applies to the packed
    /// velocities in place of copying them out (`World.kickPacked`).
    var kickOut: Float = 0
    /// The last relax pass left the packed velocities kicked in place: the warm start copies none in.
    var kicked = false

    /// No fusion: each copy copies, and the bodies' passes run on their own.
    static let none = PackedFusion()
}
