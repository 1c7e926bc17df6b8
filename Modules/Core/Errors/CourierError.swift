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
    public var stage: Stage
    /// The request being sent, when one was built.
    public var request: HTTPRequest?
    /// The response head, when one arrived.
    public var response: HTTPResponse?
    /// The response body, when it was read.
    public var responseBody: Data?
    /// The concrete reason.
    public var underlyingError: any Error
    /// For a download that failed or was cancelled part-way: what continues it
    /// (``Session/downloadTask(resumingWith:to:options:)``); `nil` when it cannot be resumed.
    public var resumeData: ResumeData?

    /// An error; ``wrapping(_:stage:request:response:responseBody:)`` avoids double wrapping.
    public init(
        stage: Stage,
        request: HTTPRequest? = nil,
        response: HTTPResponse? = nil,
        responseBody: Data? = nil,
        underlyingError: any Error
    ) {
        self.stage = stage
        self.request = request
        self.response = response
        self.responseBody = responseBody
        self.underlyingError = underlyingError
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
            existing.request = existing.request ?? request
            existing.response = existing.response ?? response
            existing.responseBody = existing.responseBody ?? responseBody
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
