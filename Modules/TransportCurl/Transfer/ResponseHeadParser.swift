import HTTPTypes

/// Turns the header lines libcurl hands over (status line, fields, blank line) into an
/// `HTTPResponse`. Pure, so it is tested without a socket.
///
/// Informational responses (1xx, e.g. `100 Continue`) are skipped: the head returned is the final
/// one. Folded lines (obsolete line folding) continue the previous value.
struct ResponseHeadParser {
    /// What a line meant.
    enum Outcome: Equatable {
        /// More lines are needed.
        case needMore
        /// The final head is complete.
        case head(HTTPResponse)
        /// The line is not HTTP.
        case malformed(String)
    }

    private var status: HTTPResponse.Status?
    private var fields = HTTPFields()
    private var lastName: HTTPField.Name?
    private var lastValue: String = ""
    /// The version of the last status line, e.g. `HTTP/2`.
    private(set) var version: String?

    /// Consumes one line, CRLF included or not.
    mutating func consume(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        let line = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<end]), as: UTF8.self)
        return consume(line: line)
    }

    mutating func consume(line: String) -> Outcome {
        if status == nil {
            guard !line.isEmpty else { return .needMore }
            return parseStatusLine(line)
        }
        if line.isEmpty {
            commitField()
            guard let status else { return .malformed("missing status line") }
            if (100..<200).contains(status.code) && status.code != 101 {
                self = ResponseHeadParser()
                return .needMore
            }
            return .head(HTTPResponse(status: status, headerFields: fields))
        }
        if line.first == " " || line.first == "\t" {
            guard lastName != nil else { return .needMore }
            lastValue += " " + line.drop { $0 == " " || $0 == "\t" }
            return .needMore
        }
        commitField()
        guard let colon = line.firstIndex(of: ":") else {
            return .malformed("header line without a colon: \(line.prefix(80))")
        }
        lastName = HTTPField.Name(String(line[..<colon]))
        lastValue = String(line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
        return .needMore
    }

    private mutating func commitField() {
        defer { lastName = nil; lastValue = "" }
        guard let name = lastName else { return }
        var value = Substring(lastValue)
        while value.last == " " || value.last == "\t" { value = value.dropLast() }
        fields.append(HTTPField(name: name, lenientValue: Array(value.utf8)))
    }

    private mutating func parseStatusLine(_ line: String) -> Outcome {
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"),
              parts[1].count == 3, let code = Int(parts[1]), (100...999).contains(code)
        else {
            return .malformed("invalid status line: \(line.prefix(80))")
        }
        version = String(parts[0])
        let reason = parts.count > 2 ? String(parts[2]) : ""
        status = HTTPResponse.Status(code: code, reasonPhrase: reason.isEmpty ? "" : reason)
        return .needMore
    }
}
