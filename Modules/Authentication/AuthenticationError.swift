import CourierCore

/// Why ``AuthenticationInterceptor`` could not authenticate a call. Its ``CourierError/kind`` is
/// ``CourierError/Kind/authenticationFailed``.
///
/// A struct with static codes (AsyncHTTPClient's pattern), so new codes never break a `switch`.
public struct AuthenticationError: Error, Sendable, CustomStringConvertible, CourierErrorKindProviding {
    /// What went wrong.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code's name.
        public let name: String
        private init(_ name: String) { self.name = name }

        /// The interceptor has no credential: none was given, or it was removed (signed out).
        public static let missingCredential = Code("missing credential")
        /// The authenticator's ``Authenticator/refresh(_:)`` threw; ``AuthenticationError/underlyingError`` says why.
        public static let refreshFailed = Code("refresh failed")
        /// More refreshes were asked for than the ``RefreshWindow`` allows: the server keeps refusing
        /// fresh credentials.
        public static let excessiveRefresh = Code("excessive refresh")

        /// The code's name.
        public var description: String { name }
    }

    /// What went wrong.
    public var code: Code
    /// The refresh's own error, for ``Code/refreshFailed``.
    public var underlyingError: (any Error)?

    /// An error with `code`, and the error behind it when there is one.
    public init(_ code: Code, underlyingError: (any Error)? = nil) {
        self.code = code
        self.underlyingError = underlyingError
    }

    /// ``CourierError/Kind/authenticationFailed``.
    public var courierErrorKind: CourierError.Kind { .authenticationFailed }

    /// A sentence a user can act on.
    public var description: String {
        switch code {
        case .missingCredential: "no credential to authenticate with (none was given, or it was removed)"
        case .refreshFailed: "the credential could not be refreshed: \(underlyingError.map { "\($0)" } ?? "no reason given")"
        case .excessiveRefresh: "the credential was refreshed too often in a short time; the server keeps refusing it"
        default: code.name
        }
    }
}

extension CourierError.Kind {
    /// The call could not be authenticated: no credential, a refresh that failed, or refreshes
    /// refused over and over (``AuthenticationError``).
    public static let authenticationFailed = CourierError.Kind("authentication failed")
}
