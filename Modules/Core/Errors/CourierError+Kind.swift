import HTTPTypes

extension CourierError {
    /// The common questions about a failure, answered without casting ``underlyingError``: was it
    /// a cancellation, a timeout, the connection, the server's certificate, an unacceptable status?
    ///
    /// A struct with static values rather than an enum (AsyncHTTPClient's pattern), so new kinds
    /// never break a `switch`: end one with `default`.
    ///
    /// ```swift
    /// do { user = try await api.get("users/1", as: User.self) }
    /// catch let error as CourierError {
    ///     switch error.kind {
    ///     case .unacceptableStatus where error.response?.status == .notFound: user = nil
    ///     case .timedOut, .connectionFailed: scheduleRetry()
    ///     default: throw error
    ///     }
    /// }
    /// ```
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The kind's name, e.g. `timed out`.
        public let name: String

        /// A kind with this name, for an error type of your own (see ``CourierErrorKindProviding``).
        public init(_ name: String) { self.name = name }

        /// The task was cancelled: `cancel()`, Swift task cancellation, or the session's invalidation
        /// (which also refuses tasks made after it).
        public static let cancelled = Kind("cancelled")
        /// A timeout ended the exchange (connecting, the total limit, or too long without progress).
        public static let timedOut = Kind("timed out")
        /// No connection, or a lost one: the host name did not resolve, the connection was refused or
        /// reset, a send or a receive failed. Usually worth a retry.
        public static let connectionFailed = Kind("connection failed")
        /// The server's certificate was not trusted, or TLS failed before a request was sent.
        public static let trustFailed = Kind("trust failed")
        /// The response's status was not acceptable to the validation; the status is ``CourierError/response``'s.
        public static let unacceptableStatus = Kind("unacceptable status")
        /// The response's content type was not acceptable to the validation.
        public static let unacceptableContentType = Kind("unacceptable content type")
        /// The server's bytes broke HTTP or a content coding: a malformed head, a truncated or corrupt body.
        public static let malformedResponse = Kind("malformed response")
        /// A body (or its decoding) went past a configured size limit.
        public static let tooLarge = Kind("too large")
        /// A redirect was refused: too many, to an invalid `Location`, or with a body that cannot be sent again.
        public static let redirectFailed = Kind("redirect failed")
        /// The request could not be built: a malformed URL, an invalid header, parameters a serializer refused.
        /// Nothing was sent.
        public static let invalidRequest = Kind("invalid request")
        /// A response serializer could not make its value of the body (invalid JSON, a failed `Decodable` …).
        public static let serializationFailed = Kind("serialization failed")
        /// A file could not be opened, read, written or moved (uploads from files, downloads).
        public static let fileFailed = Kind("file failed")
        /// Anything else: see ``CourierError/underlyingError``.
        public static let other = Kind("other")

        /// The kind's name.
        public var description: String { name }
    }

    /// What kind of failure this is; see ``Kind``.
    public var kind: Kind {
        if isCancellation { return .cancelled }
        switch underlyingError {
        case let error as any CourierErrorKindProviding: return error.courierErrorKind
        case let error as TransportError: return Self.kind(of: error.code)
        case is TrustError: return .trustFailed
        case is RedirectError: return .redirectFailed
        case let error as BodyError: return error.reason == .tooLarge ? .tooLarge : .other
        case is InvalidRequestError: return .invalidRequest
        case is FileError: return .fileFailed
        case is SessionError: return .cancelled
        default: break
        }
        switch stage {
        case .requestSerialization: return .invalidRequest
        case .responseSerialization: return .serializationFailed
        default: return .other
        }
    }

    /// The unacceptable status, when validation refused the response for its status.
    public var unacceptableStatus: HTTPResponse.Status? {
        kind == .unacceptableStatus ? response?.status : nil
    }

    /// True when the server's certificate was not trusted or TLS failed.
    public var isTrustFailure: Bool { kind == .trustFailed }

    /// True when there was no connection or it was lost (see ``Kind/connectionFailed``).
    public var isConnectionFailure: Bool { kind == .connectionFailed }

    private static func kind(of code: TransportError.Code) -> Kind {
        switch code {
        case .timedOut: .timedOut
        case .nameResolution, .cannotConnect, .connectionLost, .sendFailed, .receiveFailed, .proxyRefused: .connectionFailed
        case .shutDown: .cancelled  // the session was invalidated with the exchange in flight
        case .tlsFailure: .trustFailed
        case .malformedResponse, .truncatedBody, .decodingFailed: .malformedResponse
        case .decompressionLimitExceeded: .tooLarge
        default: .other
        }
    }
}

/// An error that says which ``CourierError/Kind`` it is, so ``CourierError/kind`` answers for it
/// without knowing its type.
///
/// Implement it on the error type of a module of your own — a serializer's, a transport's, an
/// interceptor's — when one of the kinds fits (a validation error is ``CourierError/Kind/unacceptableStatus``,
/// a parse error ``CourierError/Kind/serializationFailed``). Without it, ``CourierError/kind`` judges by
/// the stage that raised the error.
public protocol CourierErrorKindProviding: Error {
    /// The kind this error is.
    var courierErrorKind: CourierError.Kind { get }
}
