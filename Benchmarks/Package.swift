// swift-tools-version: 6.0
//
// The benchmark suite: DynamicsKit (through the core and through the object API), Box2D 2.4.1 and Chipmunk 7 on
// the same Benchmarks/SCENES.md scenes in one Google Benchmark run. Needs libbenchmark-dev, libbox2d-dev and libchipmunk-dev
// (`Benchmarks/setup` installs them); the root package builds and tests without any of this.
import PackageDescription

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
            linkerSettings: [.linkedLibrary("box2d"), .linkedLibrary("chipmunk")]
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
