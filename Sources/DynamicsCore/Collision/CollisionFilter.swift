import DynamicsSIMD

/// Which collision classes collide: `collides[a * classCount + b]`; `classActive[c]` when class c collides with
/// anything. Class 0 collides with nothing.
struct CollisionFilter {
    var classCount = 1
    var collides: [Bool] = [false]
    var classActive: [Bool] = [false]

    init() {}
}
