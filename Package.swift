// swift-tools-version:6.1
import PackageDescription

/// Courier: a modular HTTP client SDK for Swift on Linux.
///
/// Every module is its own library product, so a consumer links only what it names.
/// Module sources live under `Modules/<Module>/`, unit tests under `Tests/<Module>Tests/`.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Courier",
    products: [
        .library(name: "CourierCore", targets: ["CourierCore"]),
        .library(name: "CourierTesting", targets: ["CourierTesting"]),
        .library(name: "CourierCurl", targets: ["CourierCurl"]),
        .library(name: "CourierRequestSerialization", targets: ["CourierRequestSerialization"]),
        .library(name: "CourierMultipart", targets: ["CourierMultipart"]),
        .library(name: "CourierResponseSerialization", targets: ["CourierResponseSerialization"]),
        .library(name: "CourierXML", targets: ["CourierXML"]),
        .library(name: "CourierReachability", targets: ["CourierReachability"]),
        .library(name: "CourierSecurity", targets: ["CourierSecurity"]),
        .library(name: "CourierAuthentication", targets: ["CourierAuthentication"]),
        .library(name: "CourierStreaming", targets: ["CourierStreaming"]),
        .library(name: "CourierCookies", targets: ["CourierCookies"]),
        .library(name: "CourierCache", targets: ["CourierCache"]),
        .library(name: "CourierLogging", targets: ["CourierLogging"]),
        .library(name: "CourierTracing", targets: ["CourierTracing"]),
        .library(name: "CourierMetrics", targets: ["CourierMetrics"]),
        .library(name: "CourierOpenAPI", targets: ["CourierOpenAPI"]),
        .library(name: "Courier", targets: ["Courier"]),
        .executable(name: "courier", targets: ["CourierCLIMain"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Each of these serves one product only (DESIGN.md): a consumer that does not name the product builds none.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.0"),
    ],
    targets: [
        .target(
            name: "CourierCore",
            dependencies: [.product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Modules/Core",
            swiftSettings: strictSettings
        ),
        .systemLibrary(
            name: "CCurl",
            path: "Modules/CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // The decoders of HTTP's content codings (CourierCurl decodes bodies itself, see docs/curl-transport.md).
        // libcurl already loads these three libraries, so a CourierCurl consumer loads nothing new.
        .systemLibrary(
            name: "CCompression",
            path: "Modules/CCompression",
            providers: [.apt(["zlib1g-dev", "libbrotli-dev", "libzstd-dev"])]
        ),
        .target(
            name: "CourierCurl",
            dependencies: ["CourierCore", "CCurl", "CCompression", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Modules/TransportCurl",
            swiftSettings: strictSettings
        ),
        // libcrypto only (X.509, PEM, digests): CourierSecurity makes no TLS connection of its own.
        .systemLibrary(
            name: "COpenSSL",
            path: "Modules/COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "CourierSecurity",
            dependencies: ["CourierCore", "COpenSSL"],
            path: "Modules/Security",
            swiftSettings: strictSettings
        ),
        .target(
            name: "CourierRequestSerialization",
            dependencies: ["CourierCore", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Modules/RequestSerialization",
            swiftSettings: strictSettings
        ),
        // Credentials that expire: single-flight refresh as an interceptor (Core only).
        .target(
            name: "CourierAuthentication",
            dependencies: ["CourierCore", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Modules/Authentication",
            swiftSettings: strictSettings
        ),
        // Server-sent events and line / NDJSON streams as AsyncSequences over Core's bodies (Core only).
        .target(
            name: "CourierStreaming",
            dependencies: ["CourierCore", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Modules/Streaming",
            swiftSettings: strictSettings
        ),
        // libpsl: the Public Suffix List (libcurl already loads it), for CourierCookies only.
        .systemLibrary(
            name: "CPSL",
            path: "Modules/CPSL",
            pkgConfig: "libpsl",
            providers: [.apt(["libpsl-dev"])]
        ),
        // A cookie jar (RFC 6265bis) as a network interceptor, with curl's cookie-file format.
        .target(
            name: "CourierCookies",
            dependencies: ["CourierCore", "CPSL", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Modules/Cookies",
            swiftSettings: strictSettings
        ),
        // A private HTTP cache (RFC 9111) as a network interceptor, in memory or on disk (Core only).
        .target(
            name: "CourierCache",
            dependencies: ["CourierCore", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Modules/Cache",
            swiftSettings: strictSettings
        ),
        .target(
            name: "CourierMultipart",
            dependencies: ["CourierCore", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Modules/Multipart",
            swiftSettings: strictSettings
        ),
        .target(
            name: "CourierResponseSerialization",
            dependencies: ["CourierCore", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Modules/ResponseSerialization",
            swiftSettings: strictSettings
        ),
        .systemLibrary(
            name: "CLibXML2",
            path: "Modules/CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .target(
            name: "CourierXML",
            dependencies: [
                "CourierCore", "CourierResponseSerialization", "CLibXML2",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Modules/XML",
            swiftSettings: strictSettings
        ),
        .target(
            name: "CNetlink",
            path: "Modules/CNetlink"
        ),
        .target(
            name: "CourierReachability",
            dependencies: ["CourierCore", "CNetlink", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Modules/Reachability",
            swiftSettings: strictSettings
        ),
        .target(
            name: "CourierTesting",
            dependencies: ["CourierCore", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Modules/Testing",
            swiftSettings: strictSettings
        ),
        .target(
            name: "Courier",
            dependencies: [
                "CourierCore", "CourierCurl", "CourierRequestSerialization", "CourierMultipart", "CourierAuthentication", "CourierStreaming", "CourierCookies", "CourierCache",
                "CourierResponseSerialization", "CourierReachability", "CourierSecurity",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Modules/Courier",
            swiftSettings: strictSettings
        ),
        // Observability and interop: each product over Core's listener and interceptor protocols and one package of
        // the server ecosystem. Not in the umbrella: a program names the ones it wants.
        .target(
            name: "CourierLogging",
            dependencies: ["CourierCore", .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "Logging", package: "swift-log")],
            path: "Modules/Logging",
            swiftSettings: strictSettings
        ),
        .target(
            name: "CourierTracing",
            dependencies: ["CourierCore", .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "Tracing", package: "swift-distributed-tracing")],
            path: "Modules/Tracing",
            swiftSettings: strictSettings
        ),
        .target(
            name: "CourierMetrics",
            dependencies: ["CourierCore", .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "CoreMetrics", package: "swift-metrics")],
            path: "Modules/Metrics",
            swiftSettings: strictSettings
        ),
        .target(
            name: "CourierOpenAPI",
            dependencies: ["CourierCore", .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            path: "Modules/OpenAPI",
            swiftSettings: strictSettings
        ),
        // The command line's code, a library so that tests and fuzz targets can reach its parsers; not a product.
        .target(
            name: "CourierCLI",
            dependencies: [
                "CourierCore", "CourierCurl", "CourierRequestSerialization", "CourierMultipart",
                "CourierResponseSerialization", "CourierReachability", "CourierSecurity", "Courier", "CourierXML",
                "CourierAuthentication", "CourierCookies", "CourierStreaming", "CourierCache",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Modules/CLI",
            swiftSettings: strictSettings
        ),
        // `courier`: only the entry point.
        .executableTarget(
            name: "CourierCLIMain",
            dependencies: ["CourierCLI"],
            path: "Modules/CLIMain",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierAuthenticationTests",
            dependencies: ["CourierAuthentication", "CourierCore", "CourierTesting", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Tests/AuthenticationTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierStreamingTests",
            dependencies: ["CourierStreaming", "CourierCore", "CourierTesting", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Tests/StreamingTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierCookiesTests",
            dependencies: ["CourierCookies", "CourierCore", "CourierTesting", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Tests/CookiesTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierCacheTests",
            dependencies: ["CourierCache", "CourierCore", "CourierTesting", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Tests/CacheTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierLoggingTests",
            dependencies: [
                "CourierLogging", "CourierCore", "CourierTesting", .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"), .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            path: "Tests/LoggingTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierTracingTests",
            dependencies: [
                "CourierTracing", "CourierCore", "CourierTesting", .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Tracing", package: "swift-distributed-tracing"), .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            path: "Tests/TracingTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierMetricsTests",
            dependencies: [
                "CourierMetrics", "CourierCore", "CourierTesting", .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "CoreMetrics", package: "swift-metrics"), .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            path: "Tests/MetricsTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierOpenAPITests",
            dependencies: ["CourierOpenAPI", "CourierCore", "CourierTesting", .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            path: "Tests/OpenAPITests",
            swiftSettings: strictSettings
        ),
        // docs/observability.md's examples: they combine the three observability products and their test kits.
        .testTarget(
            name: "CourierObservabilityGuideTests",
            dependencies: [
                "CourierLogging", "CourierTracing", "CourierMetrics", "CourierCore", "CourierCurl", "CourierTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"), .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"), .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "CoreMetrics", package: "swift-metrics"), .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            path: "Tests/ObservabilityGuideTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierCoreTests",
            dependencies: ["CourierCore", "CourierTesting", "Courier"],
            path: "Tests/CoreTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierRequestSerializationTests",
            dependencies: ["CourierRequestSerialization", "CourierCore", "CourierTesting", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Tests/RequestSerializationTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierMultipartTests",
            dependencies: [
                "CourierMultipart", "CourierCore", "CourierTesting", "CourierRequestSerialization",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/MultipartTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierResponseSerializationTests",
            dependencies: [
                "CourierResponseSerialization", "CourierCore", "CourierTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/ResponseSerializationTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierXMLTests",
            dependencies: [
                "CourierXML", "CourierResponseSerialization", "CourierCore", "CourierTesting", "CLibXML2",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/XMLTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierCurlTests",
            dependencies: ["CourierCurl", "CourierCore", "CourierTesting", "CCurl", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Tests/CurlTests",
            exclude: ["Fixtures/make-compressed-fixtures.py"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierCLITests",
            dependencies: [
                "CourierCLI", "CourierCore", "CourierRequestSerialization", "CourierResponseSerialization", "CourierCookies", "CourierReachability", "CourierSecurity",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tests/CLITests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierReachabilityTests",
            dependencies: [
                "CourierReachability", "CourierCore", "CourierTesting", "Courier", "CNetlink",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/ReachabilityTests",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "ReachabilityProbe",
            dependencies: ["CourierReachability", "CourierCore", "CourierCurl", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Tests/ReachabilityProbe",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierReachabilityNamespaceTests",
            // The executables are dependencies so `swift build --build-tests` builds them: the
            // tests run them inside network namespaces.
            dependencies: ["CourierCLIMain", "ReachabilityProbe", "CourierCore", "CourierTesting"],
            path: "Tests/ReachabilityNamespaceTests",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierSecurityTests",
            dependencies: ["CourierSecurity", "CourierCore", "CourierCurl", .product(name: "HTTPTypes", package: "swift-http-types")],
            path: "Tests/SecurityTests",
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CourierTestingTests",
            dependencies: ["CourierCore", "CourierTesting"],
            path: "Tests/TestingTests",
            swiftSettings: strictSettings
        ),
        // The examples of docs/guide-modules.md and the README: they combine products no module's tests hold together.
        .testTarget(
            name: "CourierGuideTests",
            dependencies: [
                "Courier", "CourierCore", "CourierCurl", "CourierRequestSerialization", "CourierMultipart",
                "CourierResponseSerialization", "CourierXML", "CourierSecurity", "CourierTesting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/GuideTests",
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The fuzz targets (Tests/Fuzz): one libFuzzer binary, `courier-fuzz`, whose target is named by COURIER_FUZZ_TARGET.
// They import Courier's modules with `@testable` (the parsers are internal), which only a debug build allows, so
// the target exists only when COURIER_FUZZ=1: Scripts/fuzz.sh sets it and builds with
// `-sanitize=fuzzer,address` in .build-fuzz. Nothing else, and no consumer, ever sees it.
if Context.environment["COURIER_FUZZ"] == "1" {
    package.targets.append(
        .executableTarget(
            name: "courier-fuzz",
            dependencies: [
                "CourierCore", "CourierCurl", "CourierRequestSerialization", "CourierMultipart",
                "CourierResponseSerialization", "CourierXML", "CourierReachability", "CourierSecurity", "CourierCLI", "CourierStreaming", "CourierCookies", "CourierCache", "CourierLogging",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/Fuzz/Sources",
            swiftSettings: strictSettings
        )
    )
}
