import DynamicsSIMD

// The lane count of the engine's C kernels (DynamicsSIMD/DynamicsLanes.h): the free-motion pass, the contact pass and
// the rod pass.

extension World {
    /// The lanes of the engine's C kernels on this processor: 16 on x86-64 with AVX-512, 8 with AVX2, else 4 (at most
    /// the limit set with `limitVectorLanes(to:)`). The free-motion pass uses them all; the contact pass, bound by
    /// its gathers, at most 8; the rod pass 4. Every width gives bit-identical results.
    public static var vectorLanes: Int { Int(dk_vector_width()) }

    /// Holds the C kernels of every world in the process to at most `lanes` lanes (4, 8 or 16), or lets them use
    /// what the processor offers (`nil`): for measuring the narrower kernels. Results do not change.
    public static func limitVectorLanes(to lanes: Int?) throws {
        if let lanes, ![4, 8, 16].contains(lanes) {
            throw DynamicsError("vector lanes must be 4, 8 or 16, got \(lanes)")
        }
        dk_limit_vector_width(Int32(lanes ?? 0))
    }
}
