import CoreMetrics
import CourierCore
import CourierCurl
import CourierLogging
import CourierMetrics
import CourierTesting
import CourierTracing
import FoundationEssentials
import HTTPTypes
import InMemoryLogging
import InMemoryTracing
import Logging
import MetricsTestKit
import Testing
import Tracing

/// The examples of docs/observability.md, compiled and run (Scripts/lib/check-doc-examples.py keeps them in step).
@Suite struct ObservabilityDocExamplesTests {
    @Test func allThreeOnOneConfiguration() async throws {
        let tracer = InMemoryTracer()
        let metrics = TestMetrics()
        let transport = MockTransport(always: .text("ok"))
        var configuration = SessionConfiguration(baseURL: URL(string: "https://api.example"))
        configuration.addLogging(RequestLogging(logger: Logger(label: "courier")))
        configuration.addTracing(RequestTracing(tracer: tracer))
        configuration.addMetrics(RequestMetrics(factory: metrics))
        let session = Session(configuration: configuration, transport: transport)

        _ = try await session.data(.get, "users")
        #expect(tracer.finishedSpans.count == 2)
        #expect(try metrics.expectCounter("http.client.requests", [
            ("http.request.method", "GET"), ("url.scheme", "https"), ("server.address", "api.example"),
            ("http.response.status_class", "2xx"),
        ]).totalValue == 1)
    }

    @Test func logging() async throws {
        var logger = Logger(label: "courier")
        logger.logLevel = .debug
        var configuration = SessionConfiguration()
        configuration.addLogging(RequestLogging(logger: logger, redacting: [HTTPField.Name("X-Api-Key")!]))
        #expect(configuration.networkInterceptors.isEmpty && configuration.eventListenerFactory != nil)   // no bodies below trace
    }

    @Test func curlTrace() async throws {
        var logger = Logger(label: "courier.curl")
        logger.logLevel = .trace
        let logging = RequestLogging(logger: logger)
        var curl = CurlTransport.Configuration()
        curl.diagnostics = logging.transportDiagnostics
        let transport = try CurlTransport(configuration: curl)
        #expect(transport.configuration.diagnostics != nil)
        await transport.shutdown()
    }

    @Test func tracing() async throws {
        let tracer = InMemoryTracer()
        var configuration = SessionConfiguration()
        configuration.addTracing(RequestTracing(tracer: tracer))
        #expect(configuration.interceptors.count == 1 && configuration.networkInterceptors.count == 1)
    }

    @Test func metrics() async throws {
        let metrics = TestMetrics()
        var configuration = SessionConfiguration()
        configuration.addMetrics(RequestMetrics(factory: metrics, maximumHosts: 16))
        let session = Session(configuration: configuration, transport: MockTransport(always: .text("ok")))
        _ = try await session.data(for: HTTPRequest(method: .get, scheme: "https", authority: "a.test", path: "/"))
        #expect(metrics.counters.count == 1)
    }
}
