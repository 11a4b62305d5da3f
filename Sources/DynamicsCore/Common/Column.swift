#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Gives back a column's buffer (from `Column.allocateZeroed`).
@inline(__always) private func freeColumnBuffer(_ p: UnsafeMutableRawPointer) { free(p) }

/// A growable raw buffer: one column of a struct-of-arrays table.
///
/// Columns are owned by a table class that frees them in `deinit`. The raw `base` is read in two places only: the
/// body columns' scoped handle (`BodyStore.withColumns`, which hands a pass all of them as local pointers, keeping
/// class-property access and exclusivity checks out of its loops) and this file's accessors (`buffer(count:)`,
/// `rawBytes` for the C kernels, the subscript). The subscript asserts its bounds in debug builds.
struct Column<Element> {
    var base: UnsafeMutablePointer<Element>
    var capacity: Int

    init() {
        base = Column.allocateZeroed(1)
        capacity = 0
    }

    /// A buffer of `n` elements, every byte zero, from `calloc`: a large buffer comes straight from the kernel's
    /// zeroed pages, which are touched (and faulted in) where the elements are first written, often on the workers,
    /// instead of all at once by a fill on the thread that grows the column. Released with `free`.
    static func allocateZeroed(_ n: Int) -> UnsafeMutablePointer<Element> {
        precondition(MemoryLayout<Element>.alignment <= 16, "a column's elements are aligned to at most 16 bytes")
        guard let raw = calloc(Swift.max(n, 1), MemoryLayout<Element>.stride) else {
            fatalError("out of memory: a column of \(n) elements of \(MemoryLayout<Element>.stride) bytes")
        }
        return raw.bindMemory(to: Element.self, capacity: Swift.max(n, 1))
    }

    /// Grows to hold at least `minimum` elements, keeping the first `count`. Amortised doubling.
    ///
    /// The capacity is a multiple of 4 and the spare capacity is zero bytes (columns hold plain numbers), so a
    /// 4-wide kernel may read a partial last group of four without leaving the buffer or reading garbage.
    mutating func reserve(_ minimum: Int, count: Int) {
        guard minimum > capacity else { return }
        reallocate(to: Swift.max(minimum, capacity * 2, 16), count: count)
    }

    /// Grows to exactly `minimum` elements (rounded up to a multiple of 4), keeping the first `count`: for a
    /// caller that knows how many it will add (a bulk creation), so no doubling slack is left.
    mutating func reserveExactly(_ minimum: Int, count: Int) {
        guard minimum > capacity else { return }
        reallocate(to: minimum, count: count)
    }

    /// Moves the first `count` elements into a buffer of `minimum` rounded up to a multiple of 4, spare capacity
    /// zeroed.
    mutating func reallocate(to minimum: Int, count: Int) {
        let newCapacity = (minimum + 3) & ~3
        let fresh = Column.allocateZeroed(newCapacity)
        fresh.moveInitialize(from: base, count: count)
        freeColumnBuffer(base)
        base = fresh
        capacity = newCapacity
    }

    func free(count: Int) {
        base.deinitialize(count: count)
        freeColumnBuffer(base)
    }

    /// The first `count` elements, read-only (`count` at most the capacity).
    @inline(__always) func buffer(count: Int) -> UnsafeBufferPointer<Element> {
        assert(count >= 0 && count <= capacity)
        return UnsafeBufferPointer(start: base, count: count)
    }

    /// The buffer's bytes, for a C kernel that takes the column as raw memory (the packed solver state).
    var rawBytes: UnsafeMutableRawPointer { @inline(__always) get { UnsafeMutableRawPointer(base) } }

    /// Deinitializes the first `count` elements, keeping the buffer.
    func deinitialize(count: Int) { base.deinitialize(count: count) }

    subscript(i: Int) -> Element {
        @inline(__always) get { assert(i >= 0 && i < capacity); return base[i] }
        @inline(__always) nonmutating set { assert(i >= 0 && i < capacity); base[i] = newValue }
    }

    /// Appends at index `count` (the caller keeps the count).
    mutating func append(_ value: Element, count: Int) {
        reserve(count + 1, count: count)
        (base + count).initialize(to: value)
    }

    /// Moves element `last` into `i` (swap-remove); the caller decrements its count.
    func removeBySwap(_ i: Int, last: Int) {
        if i != last { base[i] = base[last] }
        (base + last).deinitialize(count: 1)
    }

    /// Gives the buffer back (a column of plain numbers with nothing in use): capacity 0, as a new column.
    mutating func release() {
        guard capacity > 0 else { return }
        freeColumnBuffer(base)
        base = Column.allocateZeroed(1)
        capacity = 0
    }

    func swapAt(_ i: Int, _ j: Int) {
        if i != j { swap(&base[i], &base[j]) }
    }
}

/// A column whose every slot holds `fill` until some slot is given another value. Until then it has no buffer,
/// and the kernels leave its term out: a scene with no pushes or resistance pays neither memory nor loads for them.
/// Once present it stays present.
struct LazyColumn<Element> {
    var column = Column<Element>()
    var isPresent = false
    let fill: Element

    init(fill: Element) { self.fill = fill }

    /// The buffer, or nil while every slot holds `fill`.
    var base: UnsafeMutablePointer<Element>? { isPresent ? column.base : nil }

    subscript(i: Int) -> Element {
        @inline(__always) get { isPresent ? column[i] : fill }
        @inline(__always) nonmutating set { precondition(isPresent, "a lazy column is written before it is present"); column[i] = newValue }
    }

    /// Gives the column a buffer of `capacity` (at least `count`), every one of the `count` slots holding `fill`.
    mutating func materialize(count: Int, capacity: Int) {
        guard !isPresent else { return }
        column.reallocate(to: Swift.max(capacity, count), count: 0)
        column.base.initialize(repeating: fill, count: count)
        isPresent = true
    }

    mutating func reserveExactly(_ minimum: Int, count: Int) {
        if isPresent { column.reserveExactly(minimum, count: count) }
    }

    /// Appends `fill` at index `count` (the caller keeps the count).
    mutating func append(count: Int) {
        if isPresent { column.append(fill, count: count) }
    }

    func swapAt(_ i: Int, _ j: Int) {
        if isPresent { column.swapAt(i, j) }
    }

    func removeBySwap(_ i: Int, last: Int) {
        if isPresent { column.removeBySwap(i, last: last) }
    }

    func free(count: Int) {
        column.free(count: isPresent ? count : 0)
    }
}

/// A table rebuilt every step (the contact constraints, the wide contact batches): a count over a `Column`, with
/// the array operations the step uses. Earlier in the step, before the table is rebuilt, its buffer is lent to the
/// broadphase as raw scratch memory (`borrowBytes`), so the two passes' temporaries share one allocation: a Box2D
/// style step arena in two tables. Elements are plain values (no references).
struct StepTable<Element>: RandomAccessCollection {
    var storage = Column<Element>()
    private(set) var count = 0
    /// The buffer is bound to another type by `borrowBytes` and must be bound back before it is used as elements.
    var lent = false

    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { count }
    var capacity: Int { storage.capacity }

    subscript(i: Int) -> Element {
        @inline(__always) get { precondition(i >= 0 && i < count, "step table index out of range"); return storage.base[i] }
    }

    @inline(__always) mutating func reclaim() {
        if lent {
            UnsafeMutableRawPointer(storage.base).bindMemory(to: Element.self, capacity: Swift.max(storage.capacity, 1))
            lent = false
        }
    }

    mutating func removeAll(keepingCapacity: Bool) {
        reclaim()
        count = 0
        if !keepingCapacity { storage.release() }
    }

    /// Room for `n` elements in all, exactly (rounded up to a multiple of 4).
    mutating func reserveCapacity(_ n: Int) {
        reclaim()
        storage.reserveExactly(n, count: count)
    }

    mutating func append(_ element: Element) {
        reclaim()
        storage.append(element, count: count)
        count += 1
    }

    /// Makes room for `n` more elements and counts them in; returns the first one's address. The caller
    /// initializes all `n` before anything reads them (the element types are plain values).
    mutating func extend(by n: Int) -> UnsafeMutablePointer<Element> {
        reclaim()
        storage.reserve(count + n, count: count)
        let first = storage.base + count
        count += n
        return first
    }

    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: storage.base, count: count))
    }

    func withUnsafeMutableBufferPointer<R>(_ body: (UnsafeMutableBufferPointer<Element>) throws -> R) rethrows -> R {
        try body(UnsafeMutableBufferPointer(start: storage.base, count: count))
    }

    /// Empties the table and lends its buffer, grown to hold at least `bytes` (aligned for any element of 16 bytes
    /// or less), until the table is next filled; the caller binds the memory to its own type.
    mutating func borrowBytes(_ bytes: Int) -> UnsafeMutableRawPointer {
        reclaim()
        count = 0
        let stride = MemoryLayout<Element>.stride
        let elements = (bytes + stride - 1) / stride
        // Exactly the first time; growing again, as the step's tables grow (`grownCapacity`), so a slowly growing
        // need does not reallocate every step.
        if elements > storage.capacity {
            storage.reserveExactly(storage.capacity == 0 ? elements : grownCapacity(elements, from: storage.capacity), count: 0)
        }
        lent = true
        return UnsafeMutableRawPointer(storage.base)
    }

    /// Gives the buffer back (capacity 0).
    mutating func release() {
        reclaim()
        count = 0
        storage.release()
    }

    func free() { storage.free(count: 0) }
}

/// A column by body id whose every id holds `fill` until some id is given another value (to the bit): until then it
/// has no storage, and reads give `fill`. `LazyColumn` is the same for the columns by slot. Elements are plain
/// values without padding (they are compared as bytes).
@usableFromInline struct LazyIDColumn<Element> {
    private(set) var values: [Element] = []
    let fill: Element

    init(fill: Element) { self.fill = fill }

    /// No id holds anything but `fill` yet: the column has no storage.
    var isEmpty: Bool { values.isEmpty }

    subscript(i: Int) -> Element {
        @inline(__always) get { values.isEmpty ? fill : values[i] }
    }

    /// Gives id `i` the value; the first value other than `fill` makes the column, `fill` for all `ids` ids.
    mutating func set(_ i: Int, _ value: Element, ids: Int) {
        if values.isEmpty {
            let isFill = withUnsafeBytes(of: value) { v in withUnsafeBytes(of: fill) { f in v.elementsEqual(f) } }
            if isFill { return }
            values = Array(repeating: fill, count: ids)
        }
        values[i] = value
    }

    /// A new id (holding `fill`).
    mutating func appendID() {
        if !values.isEmpty { values.append(fill) }
    }

    mutating func reserveCapacity(_ ids: Int) {
        if !values.isEmpty { values.reserveCapacity(ids) }
    }

    /// The storage (empty while no id holds anything but `fill`).
    @usableFromInline func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R {
        try values.withUnsafeBufferPointer(body)
    }
}

/// The capacity a step's table takes when it must grow to hold `need`: an eighth to spare, and at least twice what it
/// had, so a count that climbs over many steps (a landing wave's contacts, from hundreds to tens of thousands)
/// reallocates a few times, not every few steps (each time a fresh buffer, its pages faulted in). A table holding over
/// 2¼ times its need is given back (`World.releaseUnusedScratch`): one just grown holds at most twice.
@inline(__always) func grownCapacity(_ need: Int, from capacity: Int) -> Int { Swift.max(need + need / 8, 2 * capacity) }
