import XCTest
@testable import DynamicsCore
import DynamicsScenes
import DynamicsSIMD

/// The broadphase's sorts against the standard library's.
final class SortTests: XCTestCase {
    func test_radixAndBucketSorts_matchTheStandardSort() {
        var rng = SplitMix64(state: 12345)
        var scratch: [UInt64] = [], counts: [Int] = [], buckets: [Int32] = []
        for n in [0, 1, 5, 127, 128, 1000, 5000] {
            // Pairs: lower id in the high half, higher id in the low half, with repeats.
            let ids = max(n / 3, 2)
            var pairs = (0..<n).map { _ -> UInt64 in
                let a = UInt64.random(in: 0..<UInt64(ids), using: &rng), b = UInt64.random(in: 0..<UInt64(ids), using: &rng)
                return min(a, b) << 32 | max(a, b)
            }
            let expected = pairs.sorted()
            var radix = pairs
            radixSort(&radix, scratch: &scratch, counts: &counts)
            XCTAssertEqual(radix, expected)
            bucketSort(&pairs, counts: &buckets, bucketCount: ids) { Int($0 >> 32) }
            XCTAssertEqual(pairs, expected)
            // Cell entries: by cell, then slot, whatever order the swaps leave within a cell.
            var entries: [UInt64] = []
            for s in 0..<n { entries.append(UInt64.random(in: 0..<40, using: &rng) << 32 | UInt64(s)) }
            entries.shuffle(using: &rng)
            let byCell = entries.sorted()
            bucketSort(&entries, counts: &buckets, bucketCount: 40) { Int($0 >> 32) }
            XCTAssertEqual(entries, byCell)
        }
    }
}
