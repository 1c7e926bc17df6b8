@testable import CourierTracing
import CourierCore
import CourierTesting
import FoundationEssentials
import HTTPTypes
import InMemoryTracing
import Testing
import Tracing

/// `RequestTracing` in a session over `MockTransport`, its spans caught by swift-distributed-tracing's `InMemoryTracer`.
@Suite struct RequestTracingTests {
    private func session(_ tracer: InMemoryTracer, _ transport: MockTransport, recordsQueryValues: Bool = false) -> Session {
        var configuration = SessionConfiguration(baseURL: URL(string: "https://api.test:8443"))
        configuration.addTracing(RequestTracing(tracer: tracer, recordsQueryValues: recordsQueryValues))
        return Session(configuration: configuration, transport: transport)
    }

    private func request(_ path: String, method: HTTPRequest.Method = .get) -> HTTPRequest {
        HTTPRequest(method: method, scheme: "https", authority: "u:p@api.test:8443", path: path)
    }

    private let spanIDField = HTTPField.Name(InMemoryTracer.spanIDKey)!
    private let traceIDField = HTTPField.Name(InMemoryTracer.traceIDKey)!

    @Test func aCallSpanAndAnExchangeSpanPerHopWithTheContextOnTheWire() async throws {
        let tracer = InMemoryTracer()
        let transport = MockTransport { request in
            request.pathWithoutQuery == "/old" ? .redirect(to: "/new?q=1") : .text("ok")
        }
        _ = try await session(tracer, transport).data(for: request("/old?token=abc"))

        let spans = tracer.finishedSpans
        #expect(spans.count == 3)
        let call = try #require(spans.first { $0.parentSpanID == nil })
        let exchanges = spans.filter { $0.parentSpanID == call.spanID }
        #expect(exchanges.count == 2)
        #expect(spans.allSatisfy { $0.traceID == call.traceID && $0.kind == .client && $0.operationName == "GET" })

        #expect(call.attributes.get("http.request.method") == .string("GET"))
        #expect(call.attributes.get("url.full") == .string("https://api.test:8443/old?token=REDACTED"))
        #expect(call.attributes.get("server.address") == .string("api.test"))
        #expect(call.attributes.get("server.port") == .int64(8443))
        #expect(call.attributes.get("url.scheme") == .string("https"))
        #expect(call.attributes.get("http.response.status_code") == .int64(200))
        #expect(call.status == nil)

        let first = try #require(exchanges.first { $0.attributes.get("http.request.resend_count") == nil })
        let second = try #require(exchanges.first { $0.attributes.get("http.request.resend_count") == .int64(1) })
        #expect(first.attributes.get("http.response.status_code") == .int64(302))
        #expect(second.attributes.get("url.full") == .string("https://api.test:8443/new?q=REDACTED"))

        // Each exchange's own span went out in its request's headers, in the tracer's propagation format.
        let sent = transport.requests
        #expect(sent.map { $0.head.headerFields[spanIDField] } == [first.spanID, second.spanID])
        #expect(sent.allSatisfy { $0.head.headerFields[traceIDField] == call.traceID })
    }

    @Test func theCallerContextIsTheParent() async throws {
        let tracer = InMemoryTracer()
        let server = tracer.startSpan("GET /checkout", ofKind: .server)
        let session = session(tracer, MockTransport(always: .text("ok")))
        _ = try await ServiceContext.withValue(server.context) {
            try await session.data(for: request("/items"))
        }
        server.end()
        let call = try #require(tracer.finishedSpans.first { $0.parentSpanID == server.context.inMemorySpanContext?.spanID })
        #expect(call.traceID == server.context.inMemorySpanContext?.traceID)
        #expect(call.operationName == "GET")
    }

    @Test func anErrorStatusMarksBothSpans() async throws {
        let tracer = InMemoryTracer()
        _ = try await session(tracer, MockTransport(always: .status(.internalServerError))).data(for: request("/boom", method: .post))
        let spans = tracer.finishedSpans
        #expect(spans.count == 2)
        for span in spans {
            #expect(span.status?.code == .error)
            #expect(span.attributes.get("error.type") == .string("500"))
            #expect(span.attributes.get("http.response.status_code") == .int64(500))
            #expect(span.operationName == "POST")
        }
    }

    @Test func aFailureIsRecordedWithItsType() async throws {
        let tracer = InMemoryTracer()
        let transport = MockTransport(always: .failure(TransportError(.timedOut, message: "slow")))
        await #expect(throws: CourierError.self) { try await session(tracer, transport).data(for: request("/slow")) }
        let spans = tracer.finishedSpans
        #expect(spans.count == 2)
        for span in spans {
            #expect(span.status?.code == .error)
            #expect(span.attributes.get("error.type") == .string("timed_out"))
            #expect(span.errors.count == 1)
        }
        #expect(tracer.activeSpans.isEmpty)
    }

    @Test func anUnknownMethodIsOther() async throws {
        let tracer = InMemoryTracer()
        _ = try await session(tracer, MockTransport(always: .text("ok"))).data(for: request("/x", method: HTTPRequest.Method("PURGE")!))
        let call = try #require(tracer.finishedSpans.first { $0.parentSpanID == nil })
        #expect(call.operationName == "HTTP")
        #expect(call.attributes.get("http.request.method") == .string("_OTHER"))
        #expect(call.attributes.get("http.request.method_original") == .string("PURGE"))
    }

    @Test func queryValuesWhenAsked() async throws {
        let tracer = InMemoryTracer()
        _ = try await session(tracer, MockTransport(always: .text("ok")), recordsQueryValues: true).data(for: request("/s?q=swift#top"))
        #expect(tracer.finishedSpans.allSatisfy { $0.attributes.get("url.full") == .string("https://api.test:8443/s?q=swift") })
    }

    @Test func theInjectorSkipsNamesThatCannotGoOnTheWire() {
        var fields: HTTPFields = [:]
        HTTPFieldsInjector().inject("00-abc-def-01", forKey: "traceparent", into: &fields)
        HTTPFieldsInjector().inject("x", forKey: "bad name", into: &fields)
        #expect(fields.count == 1 && fields[HTTPField.Name("traceparent")!] == "00-abc-def-01")
    }
}
