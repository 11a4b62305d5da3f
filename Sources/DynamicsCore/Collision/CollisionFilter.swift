import DynamicsSIMD

/// Which collision classes collide: `collides[a * classCount + b]`; `classActive[c]` when class c collides with
/// anything. Class 0 collides with nothing.
@usableFromInline
struct CollisionFilter {
    @usableFromInline var classCount = 1
    @usableFromInline var collides: [Bool] = [false]
    @usableFromInline var classActive: [Bool] = [false]

    @usableFromInline init() {}
}
