// swift-tools-version:6.1
import PackageDescription

/// Courier's integration tests: real servers on 127.0.0.1, started by `Scripts/servers.sh`.
/// Run them with `Scripts/integration.sh` (which starts and stops the servers).
/// Also the soak, `courier-soak` (a benchmark, not a test): run it with `Scripts/soak.sh`.
let package = Package(
    name: "CourierIntegration",
    dependencies: [
        .package(name: "Courier", path: ".."),
    ],
    targets: [
        // SHA-256 from libcrypto, to check bodies against the servers' published hashes.
        .systemLibrary(
            name: "CSoakDigest",
            path: "Soak/CSoakDigest",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // The soak's parts (the request mix, the exercises, the sampler, the verdict), a library so
        // SoakTests can check the verdict and the mix without servers.
        .target(
            name: "CourierSoakKit",
            dependencies: [
                "CSoakDigest",
                .product(name: "CourierCore", package: "Courier"),
                .product(name: "CourierCurl", package: "Courier"),
                .product(name: "CourierTesting", package: "Courier"),
            ],
            path: "Soak/Kit",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .executableTarget(
            name: "courier-soak",
            dependencies: ["CourierSoakKit"],
            path: "Soak/Main",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .testTarget(
            name: "SoakTests",
            dependencies: ["CourierSoakKit"],
            path: "Tests/SoakTests",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                .product(name: "CourierCore", package: "Courier"),
                .product(name: "CourierCurl", package: "Courier"),
                .product(name: "CourierTesting", package: "Courier"),
                .product(name: "Courier", package: "Courier"),
                .product(name: "CourierResponseSerialization", package: "Courier"),
                .product(name: "CourierXML", package: "Courier"),
                .product(name: "CourierSecurity", package: "Courier"),
                .product(name: "CourierAuthentication", package: "Courier"),
                .product(name: "CourierStreaming", package: "Courier"),
                .product(name: "CourierCookies", package: "Courier"),
                .product(name: "CourierCache", package: "Courier"),
            ],
            path: "Tests/IntegrationTests",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
