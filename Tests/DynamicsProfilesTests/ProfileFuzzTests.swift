import XCTest
import DynamicsProfiles
import DynamicsKit

/// Mutations of every committed profile through the loader and a few steps: each is refused with a one-line
/// error naming the file, or runs with every item finite. Never a stop, a hang or a NaN.
final class ProfileFuzzTests: XCTestCase {
    /// Values a hostile or careless profile might hold in place of any number.
    static let hostileNumbers: [Double] = [0, -1, 1e-30, 1e30, -1e30, 1e300, -1e300, 1e12, 3.4e38, 0.5]

    /// Every path to a number in a JSON value, as keys and indices; of a long array (a profile's 400 explicit
    /// items), the first three elements and the last, which hold every field its elements have.
    static func numberPaths(_ value: Any, _ path: [Any] = []) -> [[Any]] {
        switch value {
        case let d as [String: Any]:
            return d.keys.sorted().flatMap { numberPaths(d[$0]!, path + [$0]) }
        case let a as [Any]:
            let indices = a.count <= 4 ? Array(a.indices) : [0, 1, 2, a.count - 1]
            return indices.flatMap { numberPaths(a[$0], path + [$0]) }
        case is NSNumber:
            if let n = value as? NSNumber, String(cString: n.objCType) == "c" { return [] }   // a JSON true or false
            return [path]
        default:
            return []
        }
    }

    static func replacing(_ value: Any, at path: ArraySlice<Any>, with new: Double) -> Any {
        guard let key = path.first else { return NSNumber(value: new) }
        if var d = value as? [String: Any], let k = key as? String {
            d[k] = replacing(d[k]!, at: path.dropFirst(), with: new)
            return d
        }
        if var a = value as? [Any], let i = key as? Int {
            a[i] = replacing(a[i], at: path.dropFirst(), with: new)
            return a
        }
        return value
    }

    func test_mutatedProfiles_areRefusedOrRunFinite() throws {
        let folder = ProfileTests.profilesDirectory
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".json") && $0 != "baselines.json" }.sorted()
        var cases = 0, refused = 0, ran = 0
        let clock = ContinuousClock(), start = clock.now
        for file in files {
            let data = try Data(contentsOf: folder.appendingPathComponent(file))
            let root = try JSONSerialization.jsonObject(with: data)
            for path in Self.numberPaths(root) {
                for value in Self.hostileNumbers {
                    cases += 1
                    let mutated = Self.replacing(root, at: path[...], with: value)
                    let text = String(decoding: try JSONSerialization.data(withJSONObject: mutated), as: UTF8.self)
                    let place = "\(file) \(path.map { "\($0)" }.joined(separator: ".")) = \(value)"
                    let scene: ProfileScene
                    do {
                        var profile = try Profile(json: text, file: file)
                        profile.steps = min(profile.steps, 3)
                        // The scenes of thousands of items are parsed only: building them for every mutation takes
                        // long, and their behaviors are the small profiles' kinds.
                        if profile.items.count > 2000 { ran += 1; continue }
                        scene = try profile.makeCheckedScene()
                    } catch let error as ProfileError {
                        refused += 1
                        let line = "\(error)"
                        XCTAssertTrue(line.hasPrefix(file), "\(place): the error names the file: \(line)")
                        XCTAssertFalse(line.contains("\n"), "\(place): one line")
                        continue
                    }
                    ran += 1
                    guard scene.items.count <= 1000 else { continue }
                    let (_, violations) = ContractViolation.collecting {
                        for _ in 0..<3 { scene.animator.step() }
                    }
                    XCTAssertEqual(violations, [], place)
                    for item in scene.items {
                        XCTAssertTrue(item.center.x.isFinite && item.center.y.isFinite, "\(place): \(item) is not finite")
                    }
                }
            }
        }
        print("profile fuzz: \(cases) mutations of \(files.count) profiles, \(refused) refused, \(ran) built and run, in \(clock.now - start)")
        XCTAssertGreaterThan(refused, 0)
        XCTAssertGreaterThan(ran, 0)
    }
}
