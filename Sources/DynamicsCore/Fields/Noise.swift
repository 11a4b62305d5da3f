/// Smooth, deterministic gradient noise in three dimensions (x, y, time), our own: a hashed lattice of unit
/// gradients with quintic interpolation (Perlin's improved scheme). Values lie in about −1…1 and vary smoothly.
/// The same seed gives the same values on every run and machine (integer hashing, no tables built at run time).
enum GradientNoise {
    @inline(__always) static func hash(_ x: Int32, _ y: Int32, _ z: Int32, _ seed: UInt32) -> UInt32 {
        var h = UInt32(bitPattern: x) &* 0x8DA6_B343 ^ UInt32(bitPattern: y) &* 0xD816_3841 ^ UInt32(bitPattern: z) &* 0xCB1A_B31F ^ seed &* 0x1656_67B1
        h ^= h >> 13
        h = h &* 0x85EB_CA6B
        h ^= h >> 16
        return h
    }

    /// The gradient at a lattice corner dotted with the offset: 12 edge directions of a cube.
    @inline(__always) static func grad(_ h: UInt32, _ x: Float, _ y: Float, _ z: Float) -> Float {
        switch h % 12 {
        case 0: return x + y
        case 1: return -x + y
        case 2: return x - y
        case 3: return -x - y
        case 4: return x + z
        case 5: return -x + z
        case 6: return x - z
        case 7: return -x - z
        case 8: return y + z
        case 9: return -y + z
        case 10: return y - z
        default: return -y - z
        }
    }

    @inline(__always) static func fade(_ t: Float) -> Float { t * t * t * (t * (t * 6 - 15) + 10) }

    static func value(_ x: Float, _ y: Float, _ z: Float, seed: UInt32) -> Float {
        // Far from the origin (or late in an animation) a Float has no fraction left: the lattice is wrapped to
        // ±2²⁴ cells, where the conversion to Int32 is exact, and a coordinate that is not finite gives no noise.
        guard x.isFinite && y.isFinite && z.isFinite else { return 0 }
        let wrap: Float = 16_777_216
        let fx = x.rounded(.down), fy = y.rounded(.down), fz = z.rounded(.down)
        let ix = Int32(fx.truncatingRemainder(dividingBy: wrap)), iy = Int32(fy.truncatingRemainder(dividingBy: wrap))
        let iz = Int32(fz.truncatingRemainder(dividingBy: wrap))
        let dx = x - fx, dy = y - fy, dz = z - fz
        let u = fade(dx), v = fade(dy), w = fade(dz)
        func corner(_ cx: Int32, _ cy: Int32, _ cz: Int32) -> Float {
            grad(hash(ix &+ cx, iy &+ cy, iz &+ cz, seed), dx - Float(cx), dy - Float(cy), dz - Float(cz))
        }
        let x00 = corner(0, 0, 0) + u * (corner(1, 0, 0) - corner(0, 0, 0))
        let x10 = corner(0, 1, 0) + u * (corner(1, 1, 0) - corner(0, 1, 0))
        let x01 = corner(0, 0, 1) + u * (corner(1, 0, 1) - corner(0, 0, 1))
        let x11 = corner(0, 1, 1) + u * (corner(1, 1, 1) - corner(0, 1, 1))
        let y0 = x00 + v * (x10 - x00), y1 = x01 + v * (x11 - x01)
        return y0 + w * (y1 - y0)
    }

    /// A 2D vector field from two decorrelated channels.
    static func vector(_ p: Vec2, time: Float, seed: UInt32) -> Vec2 {
        Vec2(value(p.x, p.y, time, seed: seed), value(p.x + 31.416, p.y - 47.853, time, seed: seed &+ 0x9E37_79B9))
    }
}
