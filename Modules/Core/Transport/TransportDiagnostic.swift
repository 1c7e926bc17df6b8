/// One piece of a transport's own trace of an exchange (for ``CourierCurl``, libcurl's verbose
/// output): connection set-up, TLS, the heads as they cross the wire, and how many body bytes moved.
///
/// A transport reports these only to a handler its configuration names, on its own I/O thread, so a
/// handler must be quick and must not block. Heads are reported as sent and received, credentials
/// included: a handler that writes them anywhere redacts them first (CourierLogging's does).
public struct TransportDiagnostic: Sendable, Hashable {
    /// What the piece is.
    public enum Kind: Sendable, Hashable {
        /// The transport's own narration: resolving, connecting, reusing, TLS versions, closing.
        case info
        /// Request head lines, as sent.
        case headerOut
        /// Response head lines, as received (one field or status line at a time).
        case headerIn
        /// Body bytes sent; ``TransportDiagnostic/text`` says how many, never what they were.
        case dataOut
        /// Body bytes received; ``TransportDiagnostic/text`` says how many, never what they were.
        case dataIn
    }

    /// What the piece is.
    public var kind: Kind
    /// The text, without its trailing line break.
    public var text: String
    /// The task the exchange belongs to (``SessionTask/id``), when the transport knows it.
    public var taskID: UInt64?
    /// The session of that task (``SessionTask/sessionID``), when known.
    public var sessionID: UInt64?

    /// A diagnostic of `kind` saying `text`.
    public init(kind: Kind, text: String, taskID: UInt64? = nil, sessionID: UInt64? = nil) {
        self.kind = kind
        self.text = text
        self.taskID = taskID
        self.sessionID = sessionID
    }
}

/// Receives a transport's ``TransportDiagnostic``s, on the transport's I/O thread.
public typealias TransportDiagnosticsHandler = @Sendable (TransportDiagnostic) -> Void
