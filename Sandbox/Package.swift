// swift-tools-version: 6.0
//
// The live sandbox: `dynamics-play` serves a page where a running simulation is dragged, flicked and thrown with
// the pointer. It is a package of its own, beside the library, so that the library, the `dynamics` command and
// their tests never build the web server (Hummingbird, SwiftNIO) it needs.
import PackageDescription

let package = Package(
    name: "DynamicsSandbox",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "dynamics-play", targets: ["dynamics-play"]),
    ],
    dependencies: [
        .package(name: "DynamicsKit", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // The simulation side: the session, its input, the wire format and the input log. No networking, so it is
        // tested directly and re-simulates a recorded session headless.
        .target(
            name: "DynamicsSandbox",
            dependencies: [
                .product(name: "DynamicsKit", package: "DynamicsKit"),
                .product(name: "DynamicsProfiles", package: "DynamicsKit"),
                .product(name: "DynamicsReplay", package: "DynamicsKit"),
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "dynamics-play",
            dependencies: [
                "DynamicsSandbox",
                .product(name: "DynamicsDemos", package: "DynamicsKit"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "DynamicsSandboxTests",
            dependencies: ["DynamicsSandbox", "dynamics-play"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ]
)
