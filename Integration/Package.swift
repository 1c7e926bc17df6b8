// swift-tools-version:6.1
import PackageDescription

/// Courier's integration tests: real servers on 127.0.0.1, started by `Scripts/servers.sh`.
/// Run them with `Scripts/integration.sh` (which starts and stops the servers).
/// Also the soak, `courier-soak` (a benchmark, not a test): run it with `Scripts/soak.sh`; and the exit probe,
/// `courier-exit-probe`: run it with `Scripts/exit-probe.sh`.
let package = Package(
    name: "CourierIntegration",
    dependencies: [
        .package(name: "Courier", path: ".."),
        // The test kits of the packages Courier's observability products speak to, and the OpenAPI runtime
        // the generated client needs (the same packages Courier's products depend on).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.0"),
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
        // A program's exit with its curl threads ending after OpenSSL's exit handler (Scripts/exit-probe.sh).
        .executableTarget(
            name: "courier-exit-probe",
            dependencies: [
                .product(name: "CourierCore", package: "Courier"),
                .product(name: "CourierCurl", package: "Courier"),
            ],
            path: "ExitProbe",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .testTarget(
            name: "SoakTests",
            dependencies: ["CourierSoakKit"],
            path: "Tests/SoakTests",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // The client swift-openapi-generator made from OpenAPI/HTTPBinAPI/openapi.yaml (Scripts/generate-openapi.sh
        // regenerates it; CI never builds the generator).
        .target(
            name: "HTTPBinAPI",
            dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            path: "OpenAPI/HTTPBinAPI",
            exclude: ["openapi.yaml", "openapi-generator-config.yaml"],
            // The generator's empty component files import what they do not use; it silences that with an
            // attribute only Swift 6.4 reads. Generated code is not edited, so its warnings are suppressed here.
            swiftSettings: [.unsafeFlags(["-suppress-warnings"])]
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
                .product(name: "CourierLogging", package: "Courier"),
                .product(name: "CourierTracing", package: "Courier"),
                .product(name: "CourierMetrics", package: "Courier"),
                .product(name: "CourierOpenAPI", package: "Courier"),
                "HTTPBinAPI",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            path: "Tests/IntegrationTests",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
