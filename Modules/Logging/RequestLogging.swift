import CourierCore
import HTTPTypes
public import Logging

/// What a session writes to a swift-log `Logger`, and how much of it.
///
/// Install it with one line, ``CourierCore/SessionConfiguration/addLogging(_:)``:
///
/// ```swift
/// var configuration = SessionConfiguration()
/// configuration.addLogging(RequestLogging(logger: Logger(label: "courier")))
/// ```
///
/// By level, for every call the session runs:
/// - `info`: one line when the call ends, with method, URL, status, duration, body sizes, connection
///   reuse, redirects and retries (``summaryLevel`` changes the level).
/// - `warning` and `error`: that line when the call failed, with the error's stage (`warning` when the
///   server answered, `error` when it did not); a cancelled call stays at the summary level.
/// - `debug`: each request and response head on the wire, redirect hops and retries included.
/// - `trace`: the first ``maximumBodyBytes`` of each request and response body.
///
/// Every line carries the call's id in `courier.request_id`. Credentials never reach the log: the URL
/// loses its user and password, query values are replaced unless ``logsQueryValues`` is set, and the
/// fields named by ``redactedFieldNames`` show `REDACTED`.
///
/// Implement your own ``CourierCore/EventListener`` instead when you want another format or sink.
public struct RequestLogging: Sendable {
    /// Where lines go; its log level decides what is written (and what is computed at all).
    public var logger: Logger
    /// The level of the line written when a call ends without error.
    public var summaryLevel: Logger.Level
    /// Header fields whose values are replaced by `REDACTED` in heads and transport diagnostics.
    public var redactedFieldNames: Set<HTTPField.Name>
    /// Write query values as they are; by default only their names are written.
    public var logsQueryValues: Bool
    /// At most this many bytes of each body are written at `trace`.
    public var maximumBodyBytes: Int

    /// The fields always redacted: credentials and cookies.
    public static let defaultRedactedFieldNames: Set<HTTPField.Name> = [.authorization, .proxyAuthorization, .cookie, .setCookie]

    /// Logging to `logger`.
    ///
    /// - Parameters:
    ///   - logger: Where lines go.
    ///   - summaryLevel: The level of the line that ends a successful call.
    ///   - redacting: More field names to redact, beside ``defaultRedactedFieldNames`` (an API key header, say).
    ///   - logsQueryValues: Write query values as they are.
    ///   - maximumBodyBytes: The most bytes of a body written at `trace`.
    public init(
        logger: Logger,
        summaryLevel: Logger.Level = .info,
        redacting: Set<HTTPField.Name> = [],
        logsQueryValues: Bool = false,
        maximumBodyBytes: Int = 4096
    ) {
        self.logger = logger
        self.summaryLevel = summaryLevel
        self.redactedFieldNames = Self.defaultRedactedFieldNames.union(redacting)
        self.logsQueryValues = logsQueryValues
        self.maximumBodyBytes = max(0, maximumBodyBytes)
    }

    /// A handler for a transport's own trace (`CurlTransport.Configuration.diagnostics`): each piece
    /// goes to ``logger`` at `trace`, with the call's id and with redacted header values.
    ///
    /// ```swift
    /// var curl = CurlTransport.Configuration()
    /// curl.diagnostics = logging.transportDiagnostics
    /// ```
    public var transportDiagnostics: TransportDiagnosticsHandler {
        let logger = logger
        let redaction = Redaction(fieldNames: redactedFieldNames, logsQueryValues: logsQueryValues)
        return { diagnostic in
            guard logger.logLevel <= .trace else { return }
            var metadata: Logger.Metadata = ["courier.transport.kind": "\(Self.name(of: diagnostic.kind))"]
            if let task = diagnostic.taskID, let session = diagnostic.sessionID {
                metadata["courier.request_id"] = "\(RequestID(sessionID: session, taskID: task))"
            }
            let text: String
            switch diagnostic.kind {
            case .headerIn, .headerOut: text = redaction.redactingHeadLines(diagnostic.text)
            default: text = LogText.escaped(diagnostic.text)
            }
            logger.trace("\(text)", metadata: metadata, source: LoggingEventListener.source)
        }
    }

    private static func name(of kind: TransportDiagnostic.Kind) -> String {
        switch kind {
        case .info: "info"
        case .headerOut: "header-out"
        case .headerIn: "header-in"
        case .dataOut: "data-out"
        case .dataIn: "data-in"
        }
    }

    var redaction: Redaction { Redaction(fieldNames: redactedFieldNames, logsQueryValues: logsQueryValues) }
}

extension SessionConfiguration {
    /// Logs every call of the session as `logging` says: a listener for the lines of each call and, when the
    /// logger is at `trace` now, a network interceptor for bodies (added last, so it sees what goes on the wire).
    /// Keeps the listeners and interceptors already configured.
    ///
    /// Bodies are logged only by a session configured while its logger was at `trace`: a session that logs
    /// less carries no body interceptor at all, so its calls pay nothing for it.
    public mutating func addLogging(_ logging: RequestLogging) {
        addEventListenerFactory { _ in LoggingEventListener(logging: logging) }
        if logging.logger.logLevel <= .trace, logging.maximumBodyBytes > 0 {
            networkInterceptors.append(BodyLoggingInterceptor(logging: logging))
        }
    }
}

/// The id every line of one call carries: session and task, e.g. `1.42`.
struct RequestID: CustomStringConvertible {
    let sessionID: UInt64
    let taskID: UInt64

    init(sessionID: UInt64, taskID: UInt64) {
        self.sessionID = sessionID
        self.taskID = taskID
    }

    init(_ task: SessionTask) {
        self.init(sessionID: task.sessionID, taskID: task.id)
    }

    var description: String { "\(sessionID).\(taskID)" }
}
