import HTTPTypes

/// Turns the header lines libcurl hands over (status line, fields, blank line) into an
/// `HTTPResponse`, working on the bytes (no `String` per line). Pure, so it is tested without a
/// socket.
///
/// Informational responses (1xx but 101, e.g. `100 Continue`) are skipped: the head returned is
/// the final one. Folded lines (obsolete line folding) continue the previous value.
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
    private var lastValue: [UInt8] = []

    /// A parser with room for a typical head, so fields and values do not regrow line by line.
    init() {
        fields.reserveCapacity(16)
        lastValue.reserveCapacity(128)
    }
    /// The version of the last status line, e.g. `HTTP/2`.
    private(set) var version: String?

    private static let space: UInt8 = 0x20, tab: UInt8 = 0x09, colon: UInt8 = 0x3A
    private static let cr: UInt8 = 0x0D, lf: UInt8 = 0x0A

    /// Consumes one line, CRLF included or not.
    mutating func consume(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        var end = bytes.count
        while end > 0, bytes[end - 1] == Self.lf || bytes[end - 1] == Self.cr { end -= 1 }
        let line = UnsafeRawBufferPointer(rebasing: bytes[0..<end])
        if status == nil {
            return line.isEmpty ? .needMore : parseStatusLine(line)
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
        if line[0] == Self.space || line[0] == Self.tab {
            guard lastName != nil else { return .needMore }
            lastValue.append(Self.space)
            lastValue.append(contentsOf: line.drop { $0 == Self.space || $0 == Self.tab })
            return .needMore
        }
        commitField()
        guard let colon = line.firstIndex(of: Self.colon) else {
            return .malformed("header line without a colon: \(String(decoding: line.prefix(80), as: UTF8.self))")
        }
        lastName = HTTPField.Name(String(decoding: line[..<colon], as: UTF8.self))
        lastValue.append(contentsOf: line[(colon + 1)...].drop { $0 == Self.space || $0 == Self.tab })
        return .needMore
    }

    /// Consumes one line given as text (for tests and callers that have a `String`).
    mutating func consume(line: String) -> Outcome {
        var bytes = Array(line.utf8)
        bytes.append(contentsOf: [Self.cr, Self.lf])
        return bytes.withUnsafeBytes { consume($0) }
    }

    private mutating func commitField() {
        defer {
            lastName = nil
            lastValue.removeAll(keepingCapacity: true)
        }
        guard let name = lastName else { return }
        var end = lastValue.count
        while end > 0, lastValue[end - 1] == Self.space || lastValue[end - 1] == Self.tab { end -= 1 }
        fields.append(HTTPField(name: name, lenientValue: lastValue[0..<end]))
    }

    /// `HTTP/<version> SP <3 digits> [SP <reason>]`.
    private mutating func parseStatusLine(_ line: UnsafeRawBufferPointer) -> Outcome {
        // Built only on failure: the message's string would cost an allocation per response.
        var malformed: Outcome { .malformed("invalid status line: \(String(decoding: line.prefix(80), as: UTF8.self))") }
        guard line.starts(with: "HTTP/".utf8),
              let firstSpace = line.firstIndex(of: Self.space)
        else { return malformed }
        var codeStart = firstSpace
        while codeStart < line.count, line[codeStart] == Self.space { codeStart += 1 }
        guard codeStart + 3 <= line.count else { return malformed }
        var code = 0
        for index in codeStart..<(codeStart + 3) {
            let digit = line[index]
            guard digit >= 0x30, digit <= 0x39 else { return malformed }
            code = code * 10 + Int(digit - 0x30)
        }
        guard code >= 100, codeStart + 3 == line.count || line[codeStart + 3] == Self.space else { return malformed }
        version = String(decoding: line[..<firstSpace], as: UTF8.self)
        var reasonStart = codeStart + 3
        while reasonStart < line.count, line[reasonStart] == Self.space { reasonStart += 1 }
        var reasonEnd = line.count
        while reasonEnd > reasonStart, line[reasonEnd - 1] == Self.space { reasonEnd -= 1 }
        let reason = reasonStart < reasonEnd ? String(decoding: line[reasonStart..<reasonEnd], as: UTF8.self) : ""
        status = HTTPResponse.Status(code: code, reasonPhrase: reason)
        return .needMore
    }
}
