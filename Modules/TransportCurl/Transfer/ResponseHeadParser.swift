import HTTPTypes
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

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
    /// True after a field line, so that a folded line may continue its value.
    private var continuesField = false
    /// Taken once per parser, not per line.
    private let commonNames = CommonFieldNames.shared
    /// Fields of common names and the last head written out (its template), from earlier responses: a line that repeats
    /// a kept field is that field, a head that repeats the template is its head. Nil to make every field.
    private let recentFields: RecentFields?
    /// The loop's last template (``RecentFields/lastTemplate``), taken at the head's first line, while every line so far
    /// is the template's line at the same place: a head that is the template's lines whole is its head, with nothing
    /// parsed (a polled resource, a server's fixed headers within the second of its `Date`). Taken, not looked up again:
    /// the loop's other transfers end heads of their own while libcurl hands this one over line by line.
    private var template: HeadTemplate?
    /// Where the template's next line starts, and how many of its lines this head has repeated.
    private var templateOffset = 0, templateLines = 0
    /// The template's head when this head began as it: its status line, at least, was the template's, and a head with
    /// that status shares its status storage (an allocation fewer).
    private var statusTemplate: HTTPResponse?
    /// Whether every line so far was taken as it came, so the head can be written out as a template (``HeadTemplate``
    /// says why): a reason phrase that is its line's bytes (not legalized by swift-http-types, not decoded from bytes
    /// that are not UTF-8), no folded line, no value taken leniently, no field dropped.
    private var isPlain = true

    /// A parser. Each field is made straight from its line (no value buffer carried between lines: one allocation
    /// less per response). `recentFields` must be used on the parser's thread only.
    init(recentFields: RecentFields? = nil) {
        self.recentFields = recentFields
        // Room for a typical head, so the fields do not regrow line by line; a parser with `recentFields` makes it at
        // the status line, or where its head stops repeating the template, so a repeated head makes none.
        if recentFields == nil { fields.reserveCapacity(16) }
    }
    /// The template whose head this parser returned whole, if it did: what it read of the head once, its reader need not
    /// read again.
    private(set) var repeatedTemplate: HeadTemplate?
    /// The version of the last status line, e.g. `HTTP/2`.
    private(set) var version: String?

    private static let space: UInt8 = 0x20, tab: UInt8 = 0x09, colon: UInt8 = 0x3A
    private static let cr: UInt8 = 0x0D, lf: UInt8 = 0x0A

    /// Consumes one line, CRLF included or not.
    mutating func consume(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        var end = bytes.count
        while end > 0, bytes[end - 1] == Self.lf || bytes[end - 1] == Self.cr { end -= 1 }
        let line = UnsafeRawBufferPointer(rebasing: bytes[0..<end])
        if let template {
            if template.matches(Self.comparable(line, isStatusLine: false), at: &templateOffset) {
                templateLines += 1
                guard line.isEmpty else { return .needMore }
                // The template's lines, whole: its head.
                repeatedTemplate = template
                recentFields?.templateRepeated()
                return .head(template.head)
            }
            divergeFromTemplate(template)
        } else if status == nil, templateLines == 0, !line.isEmpty, let recentFields,
                  let last = recentFields.lastTemplate, last.matches(Self.comparable(line, isStatusLine: true), at: &templateOffset) {
            template = last
            templateLines = 1
            version = last.version
            return .needMore
        }
        if status == nil {
            return line.isEmpty ? .needMore : parseStatusLine(line)
        }
        if line.isEmpty {
            guard let status else { return .malformed("missing status line") }
            if (100..<200).contains(status.code) && status.code != 101 {
                self = ResponseHeadParser(recentFields: recentFields)
                return .needMore
            }
            return .head(finalHead(status: status))
        }
        if line[0] == Self.space || line[0] == Self.tab {
            isPlain = false
            if continuesField { continueLastField(with: Self.trimmed(line)) }
            return .needMore
        }
        guard let colon = Self.firstColon(in: line) else {
            return .malformed("header line without a colon: \(String(decoding: line.prefix(80), as: UTF8.self))")
        }
        let nameBytes = Self.bytes(UnsafeRawBufferPointer(rebasing: line[..<colon]))
        let slot = commonNames.slot(of: nameBytes)
        let value = Self.trimmed(UnsafeRawBufferPointer(rebasing: line[(colon + 1)...]))
        // The same line as an earlier response's: its field again, checked and made then.
        if let slot, let recentFields, let kept = recentFields.field(slot: slot, value: value) {
            fields.append(kept)
            continuesField = true
            return .needMore
        }
        // A name swift-http-types refuses drops the field, and any folded line after it.
        let name: HTTPField.Name
        if let slot {
            name = commonNames.name(at: slot)
        } else if let parsed = HTTPField.Name(String(decoding: nameBytes, as: UTF8.self)) {
            name = parsed
        } else if let framing = Self.framingName(beforeWhitespace: nameBytes) {
            // `Content-Length : 5`: libcurl takes no length from it (and frames the body by the connection's end),
            // a server or proxy that trims the space takes 5. RFC 9112 section 5.1 forbids the space for this reason.
            return .malformed("whitespace between the field name \(framing) and its colon")
        } else {
            continuesField = false
            isPlain = false
            return .needMore
        }
        continuesField = true
        // `append`, not HTTPFields' own `replaceSubrange`: called from here that one is not specialized, and
        // looks up generic metadata for every field (Callgrind: 12,000 instructions more per response).
        // A value of visible ASCII and tabs, nearly every value, is the same whether `HTTPField` takes it leniently
        // or strictly, and the lenient initializer validates it through the generic path; any other value is
        // taken leniently (CR, LF and NUL would become spaces).
        if Self.isVisibleASCII(value) {
            let field = HTTPField(name: name, value: String(decoding: Self.bytes(value), as: UTF8.self))
            if let slot, let recentFields { recentFields.keep(field, slot: slot) }
            fields.append(field)
        } else {
            isPlain = false
            fields.append(HTTPField(name: name, lenientValue: value))
        }
        return .needMore
    }

    /// The head that ends with `status`. With ``RecentFields``, a head whose status line was the template's shares its
    /// status storage, and the head may become the next template.
    private mutating func finalHead(status: HTTPResponse.Status) -> HTTPResponse {
        guard let recentFields else { return HTTPResponse(status: status, headerFields: fields) }
        var head: HTTPResponse
        if var shared = statusTemplate {
            shared.headerFields = fields
            head = shared
        } else {
            head = HTTPResponse(status: status, headerFields: fields)
        }
        let isPlain = isPlain, version = version ?? ""
        recentFields.templateMissed { isPlain ? HeadTemplate(head: head, version: version) : nil }
        return head
    }

    /// This head stops repeating `template` at its current line: the lines before are the template's, so its status
    /// and first fields are this head's, as parsed then.
    private mutating func divergeFromTemplate(_ template: HeadTemplate) {
        self.template = nil
        guard templateLines > 0 else { return }
        let head = template.head
        status = head.status
        statusTemplate = head
        fields.reserveCapacity(16)
        let repeated = templateLines - 1
        if repeated > 0 {
            for index in 0..<repeated { fields.append(head.headerFields[index]) }
        }
        continuesField = repeated > 0
    }

    /// Consumes one line given as text (for tests and callers that have a `String`).
    mutating func consume(line: String) -> Outcome {
        var bytes = Array(line.utf8)
        bytes.append(contentsOf: [Self.cr, Self.lf])
        return bytes.withUnsafeBytes { consume($0) }
    }

    /// The bytes as `UInt8`s: `String(decoding:as:)` has a fast path for this type, while a raw buffer's
    /// slice goes through the generic one (which looks up type metadata at run time on every call).
    private static func bytes(_ raw: UnsafeRawBufferPointer) -> UnsafeBufferPointer<UInt8> {
        raw.assumingMemoryBound(to: UInt8.self)
    }

    /// Whether every byte is visible ASCII (0x20 to 0x7E) or a tab. Eight bytes at a time: a header value is
    /// checked again by `HTTPField` and by `String`, so this first pass should cost as little as it can.
    static func isVisibleASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highBits: UInt64 = 0x8080_8080_8080_8080
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            // A byte below 0x20 borrows in the subtraction and sets its high bit where the byte's own was clear;
            // a byte of 0x7F or more sets its high bit in the sum or already has it.
            let below = (word &- ones &* 0x20) & ~word & highBits
            let above = ((word &+ ones) | word) & highBits
            if below | above != 0 { break }   // a tab, or a byte that is not visible ASCII: the bytewise check decides
            offset += 8
        }
        while offset < bytes.count {
            let byte = bytes[offset]
            guard (byte >= 0x20 && byte < 0x7F) || byte == tab else { return false }
            offset += 1
        }
        return true
    }

    /// `Content-Length` or `Transfer-Encoding` (in any case) when `name` is one of them followed by spaces or tabs.
    private static func framingName(beforeWhitespace name: UnsafeBufferPointer<UInt8>) -> String? {
        var end = name.count
        while end > 0, name[end - 1] == space || name[end - 1] == tab { end -= 1 }
        guard end < name.count else { return nil }
        let trimmed = String(decoding: UnsafeBufferPointer(rebasing: name[..<end]), as: UTF8.self).lowercased()
        return ["content-length", "transfer-encoding"].contains(trimmed) ? trimmed : nil
    }

    /// Where the line's first colon is, if it has one (`memchr`, which reads many bytes at a time).
    private static func firstColon(in line: UnsafeRawBufferPointer) -> Int? {
        guard let base = line.baseAddress, let found = memchr(base, Int32(colon), line.count) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    /// `line` as it is compared with a template's line: without the spaces at its end (a status line: libcurl writes
    /// HTTP/2's as `HTTP/2 200 `), or the spaces and tabs (a field line), which the parser skips in either. A line that
    /// begins with a space or tab (folded) is left whole, so it is never a template's line, nor the empty line.
    private static func comparable(_ line: UnsafeRawBufferPointer, isStatusLine: Bool) -> UnsafeRawBufferPointer {
        guard let first = line.first, first != space, first != tab else { return line }
        var end = line.count
        while line[end - 1] == space || (!isStatusLine && line[end - 1] == tab) { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: line[..<end])
    }

    /// `bytes` without the spaces and tabs at either end.
    private static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var start = 0, end = bytes.count
        while start < end, bytes[start] == space || bytes[start] == tab { start += 1 }
        while end > start, bytes[end - 1] == space || bytes[end - 1] == tab { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    /// Obsolete line folding (rare): the last field's value, one space, and the continuation.
    private mutating func continueLastField(with continuation: UnsafeRawBufferPointer) {
        let last = fields.index(before: fields.endIndex)
        var value = Array(fields[last].value.utf8)
        value.append(Self.space)
        value.append(contentsOf: continuation)
        var end = value.count
        while end > 0, value[end - 1] == Self.space { end -= 1 }
        fields[last] = HTTPField(name: fields[last].name, lenientValue: value[..<end])
    }

    /// `HTTP/<digit>[.<digit>] SP <3 digits> [SP <reason>]`.
    private mutating func parseStatusLine(_ line: UnsafeRawBufferPointer) -> Outcome {
        // Built only on failure: the message's string would cost an allocation per response.
        var malformed: Outcome { .malformed("invalid status line: \(String(decoding: line.prefix(80), as: UTF8.self))") }
        guard line.starts(with: "HTTP/".utf8),
              let firstSpace = line.firstIndex(of: Self.space),
              Self.isVersion(UnsafeRawBufferPointer(rebasing: line[5..<firstSpace]))
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
        let reasonBytes = UnsafeRawBufferPointer(rebasing: line[reasonStart..<reasonEnd])
        let reason = reasonBytes.isEmpty ? "" : String(decoding: reasonBytes, as: UTF8.self)
        let status = HTTPResponse.Status(code: code, reasonPhrase: reason)
        self.status = status
        // swift-http-types turns a control byte into a space, and any other scalar too then (a space may end up at an
        // end, which the parser would trim from these bytes); decoding turns a byte that is not UTF-8 into U+FFFD. A
        // head whose reason is not its bytes cannot be written out and read back the same.
        if recentFields != nil, isPlain {
            var stored = status.reasonPhrase
            isPlain = stored.withUTF8 { RecentFields.areEqual(UnsafeRawBufferPointer($0), reasonBytes) }
        }
        if recentFields != nil { fields.reserveCapacity(16) }
        return .needMore
    }

    /// Whether the bytes after `HTTP/` are a version: a digit, a dot and a digit, as RFC 9112 writes it (`1.1`),
    /// or one digit, as libcurl writes HTTP/2 and HTTP/3 heads (`2`). libcurl refuses any other version before a
    /// line reaches this parser; the check keeps
    /// the parser as strict on its own, so that bytes such as a combining mark after the slash never make a
    /// version that only looks like one.
    private static func isVersion(_ bytes: UnsafeRawBufferPointer) -> Bool {
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        switch bytes.count {
        case 1: return isDigit(bytes[0])
        case 3: return isDigit(bytes[0]) && bytes[1] == 0x2E && isDigit(bytes[2])
        default: return false
        }
    }
}
