import FoundationEssentials
import HTTPTypes

/// The error every task and session call fails with: what failed, where, and on which exchange.
///
/// The concrete reason is ``underlyingError`` (a ``TransportError``, ``RedirectError``,
/// ``BodyError``, a serializer's error, a `CancellationError`…); ``stage`` says which part of the
/// pipeline raised it, and the request, response and body travel with it where they exist.
///
/// ```swift
/// do { _ = try await session.data(for: request) }
/// catch let error as CourierError where error.isTimeout { … }
/// ```
public struct CourierError: Error, Sendable, CustomStringConvertible {
    /// Where in the pipeline an error was raised.
    public struct Stage: Sendable, Hashable, CustomStringConvertible {
        /// A short name, e.g. `transport` or `interceptor LoggingInterceptor`.
        public let name: String

        /// A stage with this name.
        public init(_ name: String) { self.name = name }

        /// Building the request: URL, headers, parameters.
        public static let requestSerialization = Stage("request serialization")
        /// An interceptor of the given type threw.
        public static func interceptor(_ type: Any.Type) -> Stage { Stage("interceptor \(type)") }
        /// The retry stage: waiting before a retry was interrupted.
        public static let retry = Stage("retry")
        /// The redirect stage refused to follow.
        public static let redirect = Stage("redirect")
        /// The transport: connecting, TLS, sending, receiving.
        public static let transport = Stage("transport")
        /// Reading the response body.
        public static let responseBody = Stage("response body")
        /// Turning the response into a value.
        public static let responseSerialization = Stage("response serialization")
        /// Writing a downloaded file or moving it to its destination.
        public static let download = Stage("download")
        /// The session itself, e.g. after `invalidate`.
        public static let session = Stage("session")

        /// The stage's name.
        public var description: String { name }
    }

    /// Where the error was raised.
    public var stage: Stage {
        get { box.values.stage }
        set { change { $0.stage = newValue } }
    }
    /// The request being sent, when one was built.
    public var request: HTTPRequest? {
        get { box.values.request }
        set { change { $0.request = newValue } }
    }
    /// The response head, when one arrived.
    public var response: HTTPResponse? {
        get { box.values.response }
        set { change { $0.response = newValue } }
    }
    /// The response body, when it was read.
    public var responseBody: Data? {
        get { box.values.responseBody }
        set { change { $0.responseBody = newValue } }
    }
    /// The concrete reason.
    public var underlyingError: any Error {
        get { box.values.underlyingError }
        set { change { $0.underlyingError = newValue } }
    }
    /// For a download that failed or was cancelled part-way: what continues it
    /// (``Session/downloadTask(resumingWith:to:options:)``); `nil` when it cannot be resumed.
    public var resumeData: ResumeData? {
        get { box.values.resumeData }
        set { change { $0.resumeData = newValue } }
    }

    /// Everything the error says.
    private struct Values: Sendable {
        var stage: Stage
        var request: HTTPRequest?
        var response: HTTPResponse?
        var responseBody: Data?
        var underlyingError: any Error
        var resumeData: ResumeData?
    }

    /// The values in one object, never changed once made: a change makes a new one. An error is 8 bytes this way
    /// instead of 128, and every call holds room for one (or for a `Result` with one) in each of its async frames,
    /// which the task allocates per call whether or not anything fails; only a failure pays for the object.
    private final class Box: Sendable {
        let values: Values
        init(_ values: Values) { self.values = values }
    }

    private var box: Box

    private mutating func change(_ body: (inout Values) -> Void) {
        var values = box.values
        body(&values)
        box = Box(values)
    }

    /// An error; ``wrapping(_:stage:request:response:responseBody:)`` avoids double wrapping.
    public init(
        stage: Stage,
        request: HTTPRequest? = nil,
        response: HTTPResponse? = nil,
        responseBody: Data? = nil,
        underlyingError: any Error
    ) {
        box = Box(Values(
            stage: stage, request: request, response: response, responseBody: responseBody,
            underlyingError: underlyingError, resumeData: nil
        ))
    }

    /// `error` itself when it already is a `CourierError` (filling in what it lacks), otherwise a
    /// new one at `stage`.
    // Never inlined: inlined into an async function, its cast and temporaries would each take room in that
    // function's frame, which is allocated from the task on every call whether or not anything failed.
    @inline(never)
    public static func wrapping(
        _ error: any Error,
        stage: Stage,
        request: HTTPRequest? = nil,
        response: HTTPResponse? = nil,
        responseBody: Data? = nil
    ) -> CourierError {
        if var existing = error as? CourierError {
            // One new object at most, and none when nothing is missing.
            if (existing.request == nil && request != nil) || (existing.response == nil && response != nil)
                || (existing.responseBody == nil && responseBody != nil) {
                existing.change { values in
                    values.request = values.request ?? request
                    values.response = values.response ?? response
                    values.responseBody = values.responseBody ?? responseBody
                }
            }
            return existing  // resumeData travels with it
        }
        return CourierError(
            stage: stage, request: request, response: response, responseBody: responseBody,
            underlyingError: error
        )
    }

    /// True when the task was cancelled (by `cancel()`, Swift task cancellation or invalidation).
    public var isCancellation: Bool {
        underlyingError is CancellationError
    }

    /// True when a timeout ended the exchange.
    public var isTimeout: Bool {
        (underlyingError as? TransportError)?.code == .timedOut
    }

    /// e.g. `transport failed for GET http://x/y: connection refused (curl 7: …)`.
    public var description: String {
        var text = "\(stage) failed"
        if let request {
            text += " for \(request.method) \(request.url?.absoluteString ?? request.path ?? "")"
        }
        if let response {
            text += " (status \(response.status.code))"
        }
        let reason = isCancellation ? "cancelled" : String(describing: underlyingError)
        return text + ": " + reason
    }
}
