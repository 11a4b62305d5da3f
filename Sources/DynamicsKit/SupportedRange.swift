/// The range of numbers DynamicsKit accepts, and why.
///
/// The engine computes in 32-bit `Float`: 24 bits of precision and nothing beyond about 3.4 × 10³⁸. A finite
/// `CGFloat` can still be far outside what that can simulate (an item at 10³⁰ points is a NaN a few steps later,
/// a size of 10³⁹ is infinite). So every value is checked against these limits at the call that sets it, and a
/// value outside them is refused there, with a message naming the item or behavior and the rule.
///
/// - Coordinates (centers, anchors, snap points, field positions, boundary points, reference bounds): within
///   ±1,000,000 points. There a `Float` still resolves 1/16 point, an eighth of the contacts' slop.
/// - Item sizes: 0.01 to 100,000 points on each side; offsets and paths within an item's size.
/// - Speeds: up to 100,000 points/s (the engine's `maximumLinearSpeed`, which bounds every body's speed), and
///   angular speeds up to 10,000 radians/s (`maximumAngularSpeed`).
/// - Every other quantity (strengths, magnitudes, densities, frequencies, coefficients, charges): within
///   ±1,000,000 of its unit; a field's falloff within ±4 (r⁻⁴ at the field's smallest radius is still a `Float`).
/// - Time: `timeStep` from 10 µs to 1 s, `substepCount` from 1 to 64, and at most 1,000,000 steps asked of one
///   call (`advance(by:)`, `runUntilPaused(timeout:)`), so no call can run for ever.
public enum SupportedRange {
    /// Points.
    public static let coordinate: CGFloat = 1_000_000
    /// Points.
    public static let size: ClosedRange<CGFloat> = 0.01...100_000
    /// Points/s.
    public static let speed: CGFloat = 100_000
    /// Radians/s (the engine's `maximumAngularSpeed`).
    public static let angularSpeed: CGFloat = 10_000
    /// Any other quantity, in its unit.
    public static let magnitude: CGFloat = 1_000_000
    /// A field's falloff exponent.
    public static let falloff: CGFloat = 4
    /// Seconds.
    public static let timeStep: ClosedRange<Double> = 1e-5...1
    public static let substeps: ClosedRange<Int> = 1...64
    /// Steps one call may run.
    public static let stepsPerCall = 1_000_000
}

extension CGFloat {
    /// Finite and within ±`limit`.
    @inline(__always) func isWithin(_ limit: CGFloat) -> Bool { isFinite && Swift.abs(self) <= limit }
}

extension CGPoint {
    /// Both coordinates within ±`SupportedRange.coordinate`.
    var isSupportedCoordinate: Bool { x.isWithin(SupportedRange.coordinate) && y.isWithin(SupportedRange.coordinate) }
    func isWithin(_ limit: CGFloat) -> Bool { x.isWithin(limit) && y.isWithin(limit) }
}

extension CGVector {
    func isWithin(_ limit: CGFloat) -> Bool { dx.isWithin(limit) && dy.isWithin(limit) }
}

extension UIOffset {
    func isWithin(_ limit: CGFloat) -> Bool { horizontal.isWithin(limit) && vertical.isWithin(limit) }
}

/// The rule texts, so that every message states the same limits.
enum Rule {
    static let coordinate = "finite and within ±1,000,000 points"
    static let size = "between 0.01 and 100,000 points"
    static let speed = "finite and within ±100,000 points/s"
    static let angularSpeed = "finite and within ±10,000 radians/s"
    static let magnitude = "finite and within ±1,000,000"
    static let nonNegativeMagnitude = "finite, not negative and at most 1,000,000"
}
