import CourierCore
import HTTPTypes

/// Why a line or event stream could not go on. It reaches the caller inside a ``CourierError``
/// (stage ``CourierError/Stage/responseBody``, or ``CourierError/Stage/responseSerialization`` for a
/// JSON line that does not decode), whose ``CourierError/kind`` says which kind of failure it is.
///
/// A struct with static codes, so new codes never break a `switch`.
public struct StreamError: Error, Sendable, CustomStringConvertible, CourierErrorKindProviding {
    /// What went wrong.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code's name.
        public let name: String
        private init(_ name: String) { self.name = name }

        /// A line ran past the maximum length before its end: the stream is not line-delimited, or hostile.
        public static let lineTooLong = Code("line too long")
        /// An event's data ran past the maximum size before the blank line that ends it.
        public static let eventTooLarge = Code("event too large")
        /// A line was not valid UTF-8.
        public static let invalidUTF8 = Code("invalid UTF-8")
        /// A line of an NDJSON stream did not decode.
        public static let invalidJSONLine = Code("invalid JSON line")
        /// The server answered an event-stream request with a status other than 200 or 204, or a
        /// content type other than `text/event-stream`: it is not an event stream, and is not retried.
        public static let notAnEventStream = Code("not an event stream")
        /// The server ended an event stream (a browser reconnects after that, and so does ``EventSource``);
        /// seen as the last failure of ``tooManyFailures``.
        public static let streamEnded = Code("stream ended")
        /// The event stream failed more times in a row than ``EventSourceConfiguration/maximumConsecutiveFailures``
        /// allows without delivering an event; ``StreamError/underlyingError`` holds the last failure.
        public static let tooManyFailures = Code("too many failures")

        /// The code's name.
        public var description: String { name }
    }

    /// What went wrong.
    public var code: Code
    /// The 1-based number of the line concerned, when there is one.
    public var line: Int?
    /// The limit that was passed, for ``Code/lineTooLong`` and ``Code/eventTooLarge``.
    public var limit: Int?
    /// The response head, for ``Code/notAnEventStream``.
    public var response: HTTPResponse?
    /// The decoder's error, or the last failure for ``Code/tooManyFailures``.
    public var underlyingError: (any Error)?

    /// An error.
    public init(_ code: Code, line: Int? = nil, limit: Int? = nil, response: HTTPResponse? = nil, underlyingError: (any Error)? = nil) {
        self.code = code
        self.line = line
        self.limit = limit
        self.response = response
        self.underlyingError = underlyingError
    }

    /// The kind of failure: too large, malformed, serialization, or the status or content type refused.
    public var courierErrorKind: CourierError.Kind {
        switch code {
        case .lineTooLong, .eventTooLarge: return .tooLarge
        case .invalidUTF8: return .malformedResponse
        case .invalidJSONLine: return .serializationFailed
        case .notAnEventStream: return response?.status == .ok ? .unacceptableContentType : .unacceptableStatus
        case .tooManyFailures: return (underlyingError as? CourierError)?.kind ?? .connectionFailed
        case .streamEnded: return .connectionFailed
        default: return .other
        }
    }

    /// A sentence a user can act on.
    public var description: String {
        let at = line.map { " at line \($0)" } ?? ""
        switch code {
        case .lineTooLong: return "a line\(at) is longer than \(limit ?? 0) bytes"
        case .eventTooLarge: return "an event\(at) holds more than \(limit ?? 0) bytes of data"
        case .invalidUTF8: return "line\(line.map { " \($0)" } ?? "") is not valid UTF-8"
        case .invalidJSONLine: return "line\(line.map { " \($0)" } ?? "") is not the JSON expected: \(underlyingError.map { "\($0)" } ?? "")"
        case .notAnEventStream:
            let status = response.map { "\($0.status.code)" } ?? "?"
            let type = response?.headerFields[.contentType] ?? "none"
            return "not an event stream: status \(status), content type \(type)"
        case .tooManyFailures:
            return "the event stream failed \(limit ?? 0) times in a row: \(underlyingError.map { "\($0)" } ?? "")"
        default: return code.name
        }
    }
}
