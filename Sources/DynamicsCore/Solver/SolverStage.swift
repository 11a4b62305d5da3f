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
