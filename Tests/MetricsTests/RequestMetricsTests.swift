@testable import CourierMetrics
import CoreMetrics
import CourierCore
import CourierTesting
import FoundationEssentials
import HTTPTypes
import MetricsTestKit
import Testing

/// `RequestMetrics` in a session over `MockTransport`, measured into swift-metrics' `TestMetrics`.
@Suite struct RequestMetricsTests {
    private func session(_ metrics: TestMetrics, _ transport: MockTransport, maximumHosts: Int = 32) -> Session {
        var configuration = SessionConfiguration()
        configuration.addMetrics(RequestMetrics(factory: metrics, maximumHosts: maximumHosts))
        return Session(configuration: configuration, transport: transport)
    }

    private func request(_ path: String, host: String = "api.test", method: HTTPRequest.Method = .get) -> HTTPRequest {
        HTTPRequest(method: method, scheme: "https", authority: host, path: path)
    }

    private func dimensions(method: String = "GET", host: String = "api.test", _ outcome: (String, String)...) -> [(String, String)] {
        [("http.request.method", method), ("url.scheme", "https"), ("server.address", host)] + outcome
    }

    @Test func callsAreCountedTimedAndSizedByOutcome() async throws {
        let metrics = TestMetrics()
        let transport = MockTransport { request in
            request.pathWithoutQuery == "/missing" ? .text("nope", status: .notFound) : .text("hello")
        }
        let session = session(metrics, transport)
        _ = try await session.data(for: request("/a"))
        _ = try await session.data(for: request("/b"), body: Body("123"))
        _ = try await session.data(for: request("/missing"))

        let ok = dimensions(("http.response.status_class", "2xx"))
        #expect(try metrics.expectCounter(Instruments.requests, ok).totalValue == 2)
        #expect(try metrics.expectTimer(Instruments.duration, ok).values.count == 2)
        #expect(try metrics.expectTimer(Instruments.duration, ok).values.allSatisfy { $0 >= 0 })
        #expect(try metrics.expectRecorder(Instruments.responseBodySize, ok).values == [5, 5])
        #expect(try metrics.expectRecorder(Instruments.requestBodySize, ok).values == [0, 3])
        let missing = dimensions(("http.response.status_class", "4xx"))
        #expect(try metrics.expectCounter(Instruments.requests, missing).totalValue == 1)
        #expect(try metrics.expectRecorder(Instruments.responseBodySize, missing).values == [4])
        // In flight: up and down once per call, nothing left.
        let active = try metrics.expectMeter(Instruments.activeRequests, dimensions())
        #expect(active.values == [1, 0, 1, 0, 1, 0])
    }

    @Test func aFailureHasNoStatusClassAndItsErrorType() async throws {
        let metrics = TestMetrics()
        let transport = MockTransport(always: .failure(TransportError(.cannotConnect, message: "refused")))
        await #expect(throws: CourierError.self) { try await session(metrics, transport).data(for: request("/down", method: .post)) }
        let failed = dimensions(method: "POST", ("http.response.status_class", "none"), ("error.type", "connection_failed"))
        #expect(try metrics.expectCounter(Instruments.requests, failed).totalValue == 1)
        #expect(try metrics.expectMeter(Instruments.activeRequests, dimensions(method: "POST")).lastValue == 0)
    }

    @Test func aCallInFlightIsOnTheMeter() async throws {
        let metrics = TestMetrics()
        let session = session(metrics, MockTransport(always: .text("late", delay: .seconds(30))))
        let call = Task { try await session.data(for: request("/slow")) }
        let active = try await waitForMeter(metrics, dimensions())
        #expect(active.lastValue == 1)
        call.cancel()
        _ = await call.result
        #expect(active.lastValue == 0)
        let cancelled = dimensions(("http.response.status_class", "none"), ("error.type", "cancelled"))
        #expect(try metrics.expectCounter(Instruments.requests, cancelled).totalValue == 1)
    }

    private func waitForMeter(_ metrics: TestMetrics, _ dimensions: [(String, String)]) async throws -> TestMeter {
        for _ in 0..<2_000 {
            if let meter = try? metrics.expectMeter(Instruments.activeRequests, dimensions), meter.lastValue == 1 { return meter }
            try await Task.sleep(for: .milliseconds(5))
        }
        return try metrics.expectMeter(Instruments.activeRequests, dimensions)
    }

    @Test func hostsBeyondTheBoundShareOneName() async throws {
        let metrics = TestMetrics()
        let session = session(metrics, MockTransport(always: .text("ok")), maximumHosts: 2)
        for host in ["a.test", "B.test:8443", "c.test", "d.test", "a.test"] {
            _ = try await session.data(for: request("/", host: host))
        }
        let ok = ("http.response.status_class", "2xx")
        #expect(try metrics.expectCounter(Instruments.requests, dimensions(host: "a.test", ok)).totalValue == 2)
        #expect(try metrics.expectCounter(Instruments.requests, dimensions(host: "b.test", ok)).totalValue == 1)
        #expect(try metrics.expectCounter(Instruments.requests, dimensions(host: "_OTHER", ok)).totalValue == 2)
        #expect(Set(metrics.counters.map { $0.dimensions.first { $0.0 == "server.address" }!.1 }) == ["a.test", "b.test", "_OTHER"])
    }

    @Test func methodsOutsideTheConventionAreOther() async throws {
        let metrics = TestMetrics()
        _ = try await session(metrics, MockTransport(always: .text("ok"))).data(for: request("/", method: HTTPRequest.Method("PURGE")!))
        #expect(try metrics.expectCounter(Instruments.requests, dimensions(method: "_OTHER", ("http.response.status_class", "2xx"))).totalValue == 1)
    }

    @Test(arguments: [(200, "2xx"), (101, "1xx"), (599, "5xx"), (600, "none"), (99, "none")])
    func statusClasses(status: Int, expected: String) {
        #expect(Instruments.statusClass(status) == expected)
        #expect(Instruments.statusClass(nil) == "none")
    }
}
