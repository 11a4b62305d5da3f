import DynamicsSIMD

/// A sleeping island: its bodies sit outside the awake range and its contacts wait here, untouched, until
/// something wakes it.
@usableFromInline
struct SleepingIsland {
    @usableFromInline var bodies: [Int32] = []
    @usableFromInline var contacts: [Contact] = []
    @usableFromInline var inUse = false
}

/// The sleeping islands, and the scratch of the union-find that groups awake bodies into islands.
@usableFromInline
struct IslandStore {
    @usableFromInline var sleeping: [SleepingIsland] = []
    @usableFromInline var freeIndices: [Int32] = []
    @usableFromInline var wakeList: [Int32] = []
    @usableFromInline var unionParent: [Int32] = []
    @usableFromInline var minSleepTime: [Float] = []
    /// Scratch of `putRestingIslandsToSleep`: per root slot, its index in `islandRoots` (−1 between calls).
    @usableFromInline var rootIndex: [Int32] = []
    @usableFromInline var roots: [(root: Int32, start: Int, count: Int)] = []
    @usableFromInline var members: [Int32] = []

    @usableFromInline init() {}
}
