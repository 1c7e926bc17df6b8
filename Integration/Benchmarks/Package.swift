// swift-tools-version:6.1
import PackageDescription

/// Courier's benchmarks: the same workloads run by Courier, a raw libcurl client in C, URLSession
/// (FoundationNetworking) and AsyncHTTPClient, each as its own process; Courier's multipart upload
/// (against the curl command-line tool's `-F`); and `serialization-bench`, Courier's query strings
/// against Foundation's `URLComponents`. Run by Scripts/bench.sh, which builds this package in
/// release mode and writes docs/performance.md's tables.
let package = Package(
    name: "CourierBenchmarks",
    dependencies: [
        .package(name: "Courier", path: "../.."),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.30.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    ],
    targets: [
        .target(name: "BenchSupport", path: "Sources/BenchSupport"),
        .executableTarget(
            name: "raw-curl",
            path: "Sources/raw-curl",
            linkerSettings: [.linkedLibrary("curl")]
        ),
        .executableTarget(
            name: "raw-curl-threads",
            path: "Sources/raw-curl-threads",
            linkerSettings: [.linkedLibrary("curl")]
        ),
        .executableTarget(
            name: "courier-bench",
            dependencies: [
                "BenchSupport",
                .product(name: "CourierCore", package: "Courier"),
                .product(name: "CourierCurl", package: "Courier"),
                .product(name: "CourierMultipart", package: "Courier"),
                .product(name: "CourierLogging", package: "Courier"),
                .product(name: "CourierTracing", package: "Courier"),
                .product(name: "CourierMetrics", package: "Courier"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            path: "Sources/courier-bench"
        ),
        .executableTarget(
            name: "json-bench",
            dependencies: [
                .product(name: "CourierCore", package: "Courier"),
                .product(name: "CourierResponseSerialization", package: "Courier"),
            ],
            path: "Sources/json-bench"
        ),
        .executableTarget(
            name: "serialization-bench",
            dependencies: [
                "BenchSupport",
                .product(name: "CourierCore", package: "Courier"),
                .product(name: "CourierRequestSerialization", package: "Courier"),
            ],
            path: "Sources/serialization-bench"
        ),
        .executableTarget(
            name: "xml-bench",
            dependencies: [
                .product(name: "CourierCore", package: "Courier"),
                .product(name: "CourierXML", package: "Courier"),
            ],
            path: "Sources/xml-bench"
        ),
        .executableTarget(name: "urlsession-bench", dependencies: ["BenchSupport"], path: "Sources/urlsession-bench"),
        .executableTarget(
            name: "ahc-bench",
            dependencies: [
                "BenchSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Sources/ahc-bench"
        ),
    ],
    swiftLanguageModes: [.v6]
)
