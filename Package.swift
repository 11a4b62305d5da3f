// swift-tools-version: 6.0
//
// DynamicsKit: UIKit Dynamics for Swift on Linux, on a data-oriented engine.
//
// Build settings worth knowing:
// - `DynamicsCore` is the engine and uses the Swift standard library only (no Foundation), so it can be embedded
//   anywhere and the optimizer sees the whole step loop in one module. Its one dependency, `DynamicsSIMD`, is C: the
//   free-motion pass and the contact and rod passes, each built from one source at 4 lanes (portable) and, on
//   x86-64, at 8 (AVX2) or 16 (AVX-512) lanes chosen at run time, with bit-identical results. No build flag is
//   needed for either.
// - `-enforce-exclusivity=unchecked` is deliberately NOT set: the hot loops work on raw pointers obtained once per
//   stage, so dynamic exclusivity checks do not appear in them anyway.
import PackageDescription

let package = Package(
    name: "DynamicsKit",
    // Linux needs no entry. On Apple platforms the code needs ContinuousClock and Duration (macOS 13, iOS 16).
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "DynamicsKit", targets: ["DynamicsKit"]),
        .library(name: "DynamicsCore", targets: ["DynamicsCore"]),
        .library(name: "DynamicsScenes", targets: ["DynamicsScenes"]),
        .library(name: "DynamicsProfiles", targets: ["DynamicsProfiles"]),
        .library(name: "DynamicsReplay", targets: ["DynamicsReplay"]),
        .library(name: "DynamicsDemos", targets: ["DynamicsDemos"]),
        .executable(name: "dynamics", targets: ["dynamics"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // `swift package generate-documentation --target DynamicsKit` (the DocC catalog in Sources/DynamicsKit).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(name: "DynamicsSIMD"),
        .target(name: "DynamicsCore", dependencies: ["DynamicsSIMD"]),
        // The benchmark scenes of Benchmarks/SCENES.md and the seeded generator, built through the engine's public API.
        .target(name: "DynamicsScenes", dependencies: ["DynamicsCore"]),
        .target(
            name: "DynamicsKit",
            dependencies: ["DynamicsCore", "DynamicsSIMD"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .target(
            name: "DynamicsProfiles",
            dependencies: ["DynamicsKit", "DynamicsScenes", "DynamicsReplay"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .target(
            name: "DynamicsReplay",
            dependencies: ["DynamicsKit"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .target(
            name: "DynamicsDemos",
            dependencies: ["DynamicsKit", "DynamicsReplay"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .target(
            name: "DynamicsCLI",
            dependencies: [
                "DynamicsKit",
                "DynamicsScenes",
                "DynamicsProfiles",
                "DynamicsReplay",
                "DynamicsDemos",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "dynamics",
            dependencies: ["DynamicsCLI"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // What the test targets share (a floor world, recorders, item builders).
        .target(
            name: "DynamicsTestSupport",
            dependencies: ["DynamicsKit"],
            path: "Tests/DynamicsTestSupport",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(name: "DynamicsCoreTests", dependencies: ["DynamicsCore", "DynamicsScenes", "DynamicsTestSupport"]),
        .testTarget(
            name: "DynamicsProfilesTests",
            dependencies: ["DynamicsProfiles", "DynamicsScenes"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "DynamicsReplayTests",
            dependencies: ["DynamicsReplay"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "DynamicsDemosTests",
            dependencies: ["DynamicsDemos"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "DynamicsCLITests",
            // The sweep tests start the built `dynamics` as the pool and the schedulers do.
            dependencies: ["DynamicsCLI", "dynamics"],
            exclude: ["Golden"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "DynamicsKitTests",
            dependencies: ["DynamicsKit", "DynamicsScenes", "DynamicsTestSupport"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // The examples of the UIKit Dynamics documents, typed as UIKit code with only PORTING.md's edits.
        .testTarget(
            name: "PortedExamplesTests",
            dependencies: ["DynamicsKit"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ]
)
