// swift-tools-version: 6.0
//
// The benchmark suite: DynamicsKit (through the core and through the object API), Box2D 2.4.1 and Chipmunk 7 on
// the same Benchmarks/SCENES.md scenes in one Google Benchmark run. Needs libbenchmark-dev and libbox2d-dev, and
// Chipmunk built at -O3 -DNDEBUG into .peers/chipmunk (`Benchmarks/setup` does both); the root package builds and
// tests without any of this.
import Foundation
import PackageDescription

/// Chipmunk 7.0.3 as `Benchmarks/setup` builds it from Debian's source package (Debian's own binary keeps its
/// debug checks on).
let chipmunk = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(".peers/chipmunk").path

let package = Package(
    name: "DynamicsBenchmarks",
    dependencies: [
        .package(name: "DynamicsKit", path: ".."),
    ],
    targets: [
        .target(
            name: "CGoogleBenchmark",
            linkerSettings: [.linkedLibrary("benchmark"), .linkedLibrary("pthread")]
        ),
        .target(
            name: "PeerEngines",
            dependencies: ["CGoogleBenchmark"],
            cxxSettings: [.unsafeFlags(["-I", chipmunk + "/include"])],
            linkerSettings: [
                .linkedLibrary("box2d"),
                .unsafeFlags(["-L", chipmunk + "/lib"]), .linkedLibrary("chipmunk_ndebug"), .linkedLibrary("m"),
            ]
        ),
        .executableTarget(
            name: "DynamicsBenchmarks",
            dependencies: [
                "CGoogleBenchmark",
                "PeerEngines",
                .product(name: "DynamicsKit", package: "DynamicsKit"),
                .product(name: "DynamicsProfiles", package: "DynamicsKit"),
                .product(name: "DynamicsScenes", package: "DynamicsKit"),
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ],
    cxxLanguageStandard: .cxx17
)
