// swift-tools-version:6.1
import PackageDescription

/// Courier's integration tests: real servers on 127.0.0.1, started by `Scripts/servers.sh`.
/// Run them with `Scripts/integration.sh` (which starts and stops the servers).
let package = Package(
    name: "CourierIntegration",
    dependencies: [
        .package(name: "Courier", path: ".."),
    ],
    targets: [
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
            ],
            path: "Tests/IntegrationTests",
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
