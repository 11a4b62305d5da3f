import XCTest
import DynamicsProfiles
import DynamicsScenes
import DynamicsKit

/// The committed profiles and the loader's refusals.
final class ProfileTests: XCTestCase {
    static let profilesDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Profiles")

    func committedProfiles() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: Self.profilesDirectory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" && $0.lastPathComponent != "baselines.json" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// Benchmarks/SCENES.md "Checks": item and link counts and the sums of the item centers.
    static let checks: [String: (items: Int, links: Int, sumX: Double, sumY: Double)] = [
        "rain/1000": (1000, 0, 590806.103529, 108708.134505),
        "rain/4000": (4000, 0, 4749468.487756, 809728.720092),
        "rain/10000": (10000, 0, 17967849.815883, 3276248.701754),
        "pyramid/20": (210, 0, 210000, 195650),
        "pyramid/100": (5050, 0, 5050000, 3358250),
        "joint_grid/100": (10000, 19900, 10000000, 5950000),
        "field_swarm/10000": (10000, 0, 10000000, 10000000),
    ]

    func test_everyCommittedProfileLoadsAndBuilds() throws {
        let urls = try committedProfiles()
        XCTAssertGreaterThanOrEqual(urls.count, 13)
        for url in urls {
            let profile: Profile
            do { profile = try Profile(contentsOf: url) } catch { XCTFail("\(error)"); continue }
            XCTAssertEqual(profile.name + ".json", url.lastPathComponent)
            XCTAssertFalse(profile.summary.isEmpty, "\(url.lastPathComponent) has no description")
            let scene = profile.makeScene()
            XCTAssertEqual(scene.items.count, profile.items.count)
            XCTAssertFalse(scene.animator.behaviors.isEmpty)
        }
    }

    /// Every Benchmarks/SCENES.md scene at every size has a profile, and its generated items reproduce the check sums.
    func test_sceneProfilesReproduceTheSceneChecks() throws {
        var seen = Set<String>()
        for url in try committedProfiles() {
            let profile = try Profile(contentsOf: url)
            guard let scene = profile.scene else { continue }
            let name = scene.name
            guard let check = Self.checks[name] else { return XCTFail("\(url.lastPathComponent): no check for \(name)") }
            seen.insert(name)
            XCTAssertEqual(profile.items.count, check.items, url.lastPathComponent)
            let sumX = profile.items.reduce(0.0) { $0 + Double($1.center.x) }
            let sumY = profile.items.reduce(0.0) { $0 + Double($1.center.y) }
            XCTAssertEqual(sumX, check.sumX, accuracy: 1e-5, url.lastPathComponent)
            XCTAssertEqual(sumY, check.sumY, accuracy: 1e-5, url.lastPathComponent)
            let links = profile.makeScene().links.count
            XCTAssertEqual(links, check.links, url.lastPathComponent)
            XCTAssertEqual(profile.bounds.width, CGFloat(scene.width))
            XCTAssertEqual(profile.bounds.height, CGFloat(scene.height))
        }
        XCTAssertEqual(seen, Set(Self.checks.keys))
    }

    /// The object-API build of a scene profile behaves as the core build: same item count in the world, and the
    /// same outcome on a short run (rain_1000 lands with nothing outside).
    func test_rainProfileRunsThroughTheObjectAPI() throws {
        let profile = try Profile(contentsOf: Self.profilesDirectory.appendingPathComponent("rain-1000.json"))
        let scene = profile.makeScene()
        for _ in 0..<120 { _ = scene.animator.step() }
        let centers = scene.items.map { SIMD2(Double($0.center.x), Double($0.center.y)) }
        let stats = SceneStatistics(scene: profile.scene!, centers: centers)
        XCTAssertEqual(stats.outside, 0)
        XCTAssertEqual(stats.nonfinite, 0)
        XCTAssertGreaterThan(stats.meanY, 1500, "the rain has fallen")
    }

    // MARK: refusals

    func refusal(_ json: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            _ = try Profile(json: json, file: "bad.json")
            XCTFail("accepted: \(json)", file: file, line: line)
            return ""
        } catch let e as ProfileError {
            XCTAssertEqual(e.file, "bad.json", file: file, line: line)
            return e.description
        } catch {
            XCTFail("unexpected error \(error)", file: file, line: line)
            return ""
        }
    }

    let good = """
    {"name": "x", "bounds": [100, 100], "steps": 10,
     "items": [{"id": "a", "center": [10, 10], "size": [5, 5]}, {"generator": "grid", "id": "g", "rows": 2, "columns": 3,
                "origin": [20, 20], "pitch": [10, 10], "size": [4, 4]}],
     "behaviors": [{"kind": "gravity", "items": "all"}, {"kind": "collision", "items": ["a", "g[5]"], "referenceBounds": true}]}
    """

    func test_aValidProfileResolvesNamesAndGroups() throws {
        let p = try Profile(json: good, file: "good.json")
        XCTAssertEqual(p.items.count, 7)
        XCTAssertEqual(p.items[6].name, "g[5]")
        XCTAssertEqual(p.items[6].center, CGPoint(x: 40, y: 30))
        guard case let .collision(items, _, referenceBounds, _, _, _, _) = p.behaviors[1] else { return XCTFail() }
        XCTAssertEqual(items, [0, 6])
        XCTAssertTrue(referenceBounds)
    }

    func test_malformedJSONIsRefusedWithLineAndColumn() {
        let m = refusal("{\"name\": \"x\",\n \"steps\": }")
        XCTAssertTrue(m.contains("bad.json: malformed JSON at line 2, column 11"), m)
    }

    /// The three mistakes Foundation's JSON readers on Linux report badly or not at all: a misspelt literal
    /// ("Unexpected end of file" there), a member given twice (the last silently wins there) and a number out of
    /// Double's range (a character offset there). The profile reader names the line and column of each.
    func test_misspeltLiteralDuplicateMemberAndHugeNumberAreLocated() {
        let m = refusal("{\"name\": \"x\",\n  \"steps\": tru}")
        XCTAssertTrue(m.contains("bad.json: malformed JSON at line 2, column"), m)
        XCTAssertTrue(m.contains("expected 'true'"), m)
        let m2 = refusal("{\"name\": \"x\",\n\"steps\": 10,\n\"steps\": 20}")
        XCTAssertTrue(m2.contains("line 3"), m2)
        XCTAssertTrue(m2.contains("member 'steps' appears twice"), m2)
        let m3 = refusal("{\"name\": \"x\", \"steps\": 1e999}")
        XCTAssertTrue(m3.contains("bad.json: malformed JSON at line 1, column"), m3)
    }

    func test_unknownBehaviorKindNamesItsPath() {
        let json = good.replacingOccurrences(of: "{\"kind\": \"gravity\"", with: "{\"kind\": \"gravitation\"")
        let m = refusal(json)
        XCTAssertTrue(m.contains("bad.json: behaviors[0].kind: unknown behavior kind 'gravitation'"), m)
    }

    func test_missingFieldIsNamed() {
        let m = refusal(good.replacingOccurrences(of: "\"steps\": 10,", with: ""))
        XCTAssertTrue(m.contains("bad.json: missing field 'steps'"), m)
        let m2 = refusal(good.replacingOccurrences(of: "\"center\": [10, 10], ", with: ""))
        XCTAssertTrue(m2.contains("bad.json: items[0]: missing field 'center'"), m2)
    }

    func test_negativeSizeIsRefused() {
        let m = refusal(good.replacingOccurrences(of: "\"size\": [5, 5]", with: "\"size\": [-5, 5]"))
        XCTAssertTrue(m.contains("bad.json: items[0].size: expected a width and height between 0.01 and 100,000 points"), m)
    }

    func test_undefinedItemReferenceNamesTheElement() {
        let m = refusal(good.replacingOccurrences(of: "[\"a\", \"g[5]\"]", with: "[\"a\", \"g[1]\", \"b\"]"))
        XCTAssertTrue(m.contains("bad.json: behaviors[1].items[2]: no item or generator named 'b' is defined"), m)
        let m2 = refusal(good.replacingOccurrences(of: "\"g[5]\"", with: "\"g[6]\""))
        XCTAssertTrue(m2.contains("behaviors[1].items[1]: 'g[6]' is out of range: 'g' has 6 items"), m2)
    }

    func test_wrongTypesAndUnknownFieldsAreRefused() {
        let m = refusal(good.replacingOccurrences(of: "\"steps\": 10", with: "\"steps\": \"ten\""))
        XCTAssertTrue(m.contains("bad.json: steps: expected a number, found a string"), m)
        let m2 = refusal(good.replacingOccurrences(of: "\"referenceBounds\": true", with: "\"referenceBound\": true"))
        XCTAssertTrue(m2.contains("behaviors[1]: unknown field 'referenceBound'"), m2)
        let m3 = refusal(good.replacingOccurrences(of: "{\"kind\": \"gravity\", \"items\": \"all\"}",
                                                   with: "{\"kind\": \"field\", \"field\": \"custom\", \"items\": \"all\"}"))
        XCTAssertTrue(m3.contains("behaviors[0].field: unknown field 'custom'"), m3)
        let m4 = refusal(good.replacingOccurrences(of: "\"rows\": 2", with: "\"rows\": 0"))
        XCTAssertTrue(m4.contains("items[1].rows: expected a whole number ≥ 1, found 0"), m4)
    }

    /// A profile's contact stiffness reaches both the core world and the animator's; a bad one is refused.
    func test_contactDampingRatioIsAppliedAndChecked() throws {
        let p = try Profile(json: good.replacingOccurrences(of: "\"steps\": 10,", with: "\"steps\": 10, \"contactDampingRatio\": 10,"), file: "good.json")
        XCTAssertEqual(p.contactDampingRatio, 10)
        XCTAssertEqual(p.makeScene().animator.world.settings.contactDampingRatio, 10)
        XCTAssertEqual(try Profile(json: good, file: "good.json").makeScene().animator.world.settings.contactDampingRatio,
                       WorldSettings().contactDampingRatio)
        let pyramid = try Profile(contentsOf: Self.profilesDirectory.appendingPathComponent("pyramid-100.json"))
        XCTAssertEqual(try pyramid.makeCoreWorld()?.world.settings.contactDampingRatio, 10)
        let m = refusal(good.replacingOccurrences(of: "\"steps\": 10,", with: "\"steps\": 10, \"contactDampingRatio\": -1,"))
        XCTAssertTrue(m.contains("bad.json: contactDampingRatio: expected a damping ratio from 0 to 1000, found -1"), m)
    }

    func test_contactHertzIsAppliedAndChecked() throws {
        let p = try Profile(json: good.replacingOccurrences(of: "\"steps\": 10,", with: "\"steps\": 10, \"contactHertz\": 60,"), file: "good.json")
        XCTAssertEqual(p.contactHertz, 60)
        XCTAssertEqual(p.makeScene().animator.world.settings.contactHertz, 60)
        XCTAssertEqual(try Profile(json: good, file: "good.json").makeScene().animator.world.settings.contactHertz,
                       WorldSettings().contactHertz)
        let pyramid = try Profile(contentsOf: Self.profilesDirectory.appendingPathComponent("pyramid-100.json"))
        XCTAssertEqual(try pyramid.makeCoreWorld()?.world.settings.contactHertz, 180)
        let m = refusal(good.replacingOccurrences(of: "\"steps\": 10,", with: "\"steps\": 10, \"contactHertz\": -30,"))
        XCTAssertTrue(m.contains("bad.json: contactHertz: expected a number > 0, found -30"), m)
    }

    func test_aMissingFileIsNamed() {
        XCTAssertThrowsError(try Profile(contentsOf: URL(fileURLWithPath: "/nonexistent/none.json"))) { error in
            XCTAssertTrue("\(error)".hasPrefix("none.json: cannot be read"), "\(error)")
        }
    }

    /// Boundary contacts of the items of a profile's collision behaviors, counted.
    final class BoundaryHits: CollisionBehaviorDelegate {
        var hits = 0
        func collisionBehavior(_ behavior: CollisionBehavior, beganContactFor item: DynamicItem, withBoundaryIdentifier identifier: AnyHashable?, at point: CGPoint) { hits += 1 }
    }

    /// "An item thrown by an instantaneous push bounces off the edges of the screen and comes to rest": the
    /// flick profile does what its description says.
    func test_flickProfile_bouncesOffTheEdges_andComesToRest() throws {
        let profile = try Profile(contentsOf: Self.profilesDirectory.appendingPathComponent("flick.json"))
        let scene = profile.makeScene()
        let log = BoundaryHits()
        var collisions: [CollisionBehavior] = []
        func collect(_ b: DynamicBehavior) {
            if let c = b as? CollisionBehavior { collisions.append(c) }
            b.childBehaviors.forEach(collect)
        }
        scene.animator.behaviors.forEach(collect)
        for c in collisions { c.collisionDelegate = log }
        var steps = 0
        while scene.animator.isRunning && steps < profile.steps { scene.animator.step(); steps += 1 }
        XCTAssertGreaterThanOrEqual(log.hits, 2, "bounces off the edges")
        XCTAssertFalse(scene.animator.isRunning, "comes to rest within its \(profile.steps) steps")
    }

    /// The falling square rests on the bottom edge: its touching contact is counted while it sleeps.
    func test_restingItemsContacts_areCountedWhileTheySleep() throws {
        let profile = try Profile(contentsOf: Self.profilesDirectory.appendingPathComponent("falling-square.json"))
        let scene = profile.makeScene()
        XCTAssertTrue(scene.animator.runUntilPaused(timeout: 10))
        XCTAssertEqual(scene.animator.world.touchingContactCount, 0, "asleep: no awake contact")
        XCTAssertEqual(scene.animator.world.allTouchingContactCount, 1)
    }

    /// A profile changed after parsing into something DynamicsKit refuses is refused by `makeCheckedScene` with the
    /// file and the library's rule, not a stop.
    func test_checkedScene_turnsALibraryRefusalIntoAProfileError() throws {
        var profile = try Profile(contentsOf: Self.profilesDirectory.appendingPathComponent("falling-square.json"))
        profile.timeStep = 1e-9
        XCTAssertThrowsError(try profile.makeCheckedScene()) { error in
            let line = "\(error)"
            XCTAssertTrue(line.hasPrefix("falling-square.json"), line)
            XCTAssertTrue(line.contains("timeStep must be between"), line)
        }
    }
}
