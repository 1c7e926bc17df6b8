import FoundationEssentials

/// One event of a `text/event-stream` (server-sent events), as the WHATWG EventSource rules
/// dispatch it.
///
/// ```swift
/// for try await event in session.events("updates") where event.type == "price" {
///     let price = try event.decode(Price.self)
/// }
/// ```
public struct ServerSentEvent: Sendable, Hashable, CustomStringConvertible {
    /// The `event:` field, or `message` when the event named none.
    public var type: String
    /// The `data:` lines, joined with line feeds.
    public var data: String
    /// The last `id:` the stream set, at or before this event (empty when none): what a reconnection
    /// sends back as `Last-Event-ID`.
    public var lastEventID: String

    /// An event.
    public init(type: String = "message", data: String, lastEventID: String = "") {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
    }

    /// The data decoded as JSON into `Value`.
    public func decode<Value: Decodable>(_ type: Value.Type, decoder: JSONDecoder = JSONDecoder()) throws -> Value {
        try decoder.decode(Value.self, from: Data(data.utf8))
    }

    /// `type` and `data`, as a log line would show them.
    public var description: String {
        "\(type)\(lastEventID.isEmpty ? "" : " #\(lastEventID)"): \(data)"
    }
}
