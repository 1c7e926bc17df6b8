import CourierCore
import HTTPTypes

/// What of a request may be written to a log: the URL without credentials (and without query values
/// unless asked) and heads with the secret fields' values replaced. Pure, so it is tested alone.
struct Redaction: Sendable {
    static let placeholder = TelemetryNames.redacted

    let fieldNames: Set<HTTPField.Name>
    let logsQueryValues: Bool

    /// The URL as Core's ``TelemetryNames`` writes it, made safe for one log line.
    func url(of request: HTTPRequest) -> String {
        LogText.escaped(TelemetryNames.url(of: request, keepsQueryValues: logsQueryValues))
    }

    func target(_ path: String) -> String {
        TelemetryNames.target(path, keepsQueryValues: logsQueryValues)
    }

    /// The fields, one `Name: value` per element, secret values replaced.
    func fields(_ fields: HTTPFields) -> [String] {
        fields.map { field in
            "\(field.name): \(fieldNames.contains(field.name) ? Self.placeholder : LogText.escaped(field.value))"
        }
    }

    /// Lines of a head as a transport traces them (`Name: value`, or a request or status line),
    /// secret values and the request line's query values replaced.
    func redactingHeadLines(_ text: String) -> String {
        // Split by scalars: as Characters, "\r\n" is one, and a split on "\n" would not cut a CRLF head.
        text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { rawLine -> String in
            let line = Substring(rawLine.last == "\r" ? rawLine.dropLast() : rawLine)
            if let colon = line.utf8.firstIndex(of: UInt8(ascii: ":")),
               let name = HTTPField.Name(String(line[..<colon])), fieldNames.contains(name) {
                return "\(line[..<colon]): \(Self.placeholder)"
            }
            // A request line: METHOD target VERSION.
            let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            if parts.count == 3, parts[2].hasPrefix("HTTP/"), parts[1].utf8.contains(UInt8(ascii: "?")) {
                return LogText.escaped("\(parts[0]) \(target(String(parts[1]))) \(parts[2])")
            }
            return LogText.escaped(line)
        }.joined(separator: "\n")
    }
}
