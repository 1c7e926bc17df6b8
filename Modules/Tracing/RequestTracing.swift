import CourierCore
import HTTPTypes
public import Tracing

/// Traces a session's calls with swift-distributed-tracing, by OpenTelemetry's HTTP client conventions:
/// a client span per call and a child span per exchange on the wire (each redirect hop and retry), whose
/// context goes out in the request's headers through the tracer's propagation (W3C `traceparent` with an
/// OpenTelemetry tracer).
///
/// Install it with one line, ``CourierCore/SessionConfiguration/addTracing(_:)``:
///
/// ```swift
/// var configuration = SessionConfiguration()
/// configuration.addTracing(RequestTracing())   // the tracer bootstrapped in InstrumentationSystem
/// ```
///
/// Spans take the caller's `ServiceContext.current` as parent, so a call made inside a server's request
/// span joins its trace. Both spans are named by the method (`GET`) and carry `http.request.method`,
/// `url.full` (without user, password or query values unless asked), `url.scheme`, `server.address`,
/// `server.port`, then `http.response.status_code` (and `network.protocol.version` when the transport measured
/// the exchange by the time its head arrived: the curl transport measures when the body ends, so its spans
/// do not carry it); an exchange after the first carries `http.request.resend_count`. A status of 400 or more, or an error, sets `error.type` and the
/// span's status to error. A span ends when its response head arrives (or the call fails): a body read
/// later is not part of it.
public struct RequestTracing: Sendable {
    /// The tracer; `nil` uses `InstrumentationSystem.tracer` at each call, so a tracer bootstrapped after
    /// the session was made is used.
    public var tracer: (any Tracer)?
    /// Put query values in `url.full` as they are; by default they are replaced by `REDACTED`.
    public var recordsQueryValues: Bool

    /// Tracing with `tracer` (the bootstrapped one by default).
    public init(tracer: (any Tracer)? = nil, recordsQueryValues: Bool = false) {
        self.tracer = tracer
        self.recordsQueryValues = recordsQueryValues
    }

    var currentTracer: any Tracer { tracer ?? InstrumentationSystem.tracer }

    /// The interceptor of the call's span: add it to ``CourierCore/SessionConfiguration/interceptors``
    /// (``CourierCore/SessionConfiguration/addTracing(_:)`` does).
    public var callInterceptor: any Interceptor { CallTracingInterceptor(tracing: self) }
    /// The interceptor of each exchange's span, which also injects the context into the request: add it
    /// last to ``CourierCore/SessionConfiguration/networkInterceptors``.
    public var exchangeInterceptor: any Interceptor { ExchangeTracingInterceptor(tracing: self) }
}

extension SessionConfiguration {
    /// Traces every call of the session as `tracing` says: its call interceptor goes first among the
    /// application interceptors (so the call's span covers them, retries included), its exchange
    /// interceptor last among the network interceptors (so the headers it injects go out as they are).
    public mutating func addTracing(_ tracing: RequestTracing) {
        interceptors.insert(tracing.callInterceptor, at: 0)
        networkInterceptors.append(tracing.exchangeInterceptor)
    }
}

/// The span of one call, and the count of exchanges under it for `http.request.resend_count`.
struct CallTracingInterceptor: Interceptor {
    let tracing: RequestTracing

    func intercept(_ request: HTTPRequest, body: Body?, context: RequestContext, next: InterceptorNext) async throws -> Response {
        let tracer = tracing.currentTracer
        let span = tracer.startSpan(SpanNaming.name(of: request), context: ServiceContext.current ?? .topLevel, ofKind: .client)
        var spanContext = span.context
        // A span that records nothing (a no-op tracer, a sampled-out trace) gets no attributes built for it.
        if span.isRecording {
            span.attributes = SpanNaming.requestAttributes(request, recordsQueryValues: tracing.recordsQueryValues)
            spanContext[ExchangeCounterKey.self] = ExchangeCounter()
        }
        do {
            // A span that records nothing need not be the context of what runs below: its children would record
            // nothing either (a no-op tracer, or a trace sampled out), and the exchange still injects its own context.
            let response = span.isRecording
                ? try await ServiceContext.withValue(spanContext) { try await next(request, body: body, context: context) }
                : try await next(request, body: body, context: context)
            if span.isRecording { SpanNaming.record(response, on: span) }
            span.end()
            return response
        } catch {
            SpanNaming.record(error, on: span)
            span.end()
            throw error
        }
    }
}

/// The span of one exchange on the wire, its context injected into the request's headers.
struct ExchangeTracingInterceptor: Interceptor {
    let tracing: RequestTracing

    func intercept(_ request: HTTPRequest, body: Body?, context: RequestContext, next: InterceptorNext) async throws -> Response {
        let tracer = tracing.currentTracer
        let parent = ServiceContext.current ?? .topLevel
        let resends = parent[ExchangeCounterKey.self]?.next() ?? 0
        let span = tracer.startSpan(SpanNaming.name(of: request), context: parent, ofKind: .client)
        if span.isRecording {
            var attributes = SpanNaming.requestAttributes(request, recordsQueryValues: tracing.recordsQueryValues)
            if resends > 0 { attributes["http.request.resend_count"] = resends }
            span.attributes = attributes
        }
        var request = request
        tracer.inject(span.context, into: &request.headerFields, using: HTTPFieldsInjector())
        do {
            let response = span.isRecording
                ? try await ServiceContext.withValue(span.context) { try await next(request, body: body, context: context) }
                : try await next(request, body: body, context: context)
            if span.isRecording { SpanNaming.record(response, on: span) }
            span.end()
            return response
        } catch {
            SpanNaming.record(error, on: span)
            span.end()
            throw error
        }
    }
}

/// Writes a tracer's propagation fields (`traceparent`, `tracestate`, or whatever the tracer uses) into
/// a request's header fields, replacing any of the same name. A key that is not a valid field name is
/// skipped: it could not go on the wire.
public struct HTTPFieldsInjector: Injector {
    /// An injector.
    public init() {}

    /// Sets `key` to `value` in `fields`.
    public func inject(_ value: String, forKey key: String, into fields: inout HTTPFields) {
        guard let name = HTTPField.Name(key) else { return }
        fields[name] = value
    }
}
