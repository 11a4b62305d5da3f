import DynamicsCore

/// SplitMix64 (Steele, Lea and Flood, 2014): a small seeded generator with a 64-bit state, for reproducible
/// randomised scenes, soaks and fuzzers. The same seed gives the same sequence on every platform, so a run that
/// fails can be replayed from its seed. Not for cryptography.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(state: UInt64) { self.state = state }

    @inlinable
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in [0, 1) from the top 53 bits, every value a multiple of 2⁻⁵³.
    @inlinable
    public mutating func unit() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }
}
