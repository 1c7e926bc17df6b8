#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CourierCore
import HTTPTypes

/// A final response head with the lines that make it, written out as the parser reads them: a status line, one
/// `name: value` line per field, then the empty line, each followed by LF. A head whose lines are these bytes, one
/// for one (each without the spaces or tabs at its end, which the parser skips), is this head (``ResponseHeadParser``),
/// with no field parsed, looked up or made again.
///
/// Written out, not copied as the lines came: the parser keeps no bytes while it reads a head, and only a head it
/// took as it came (``ResponseHeadParser`` says when) gives lines that the parser reads back into the same head:
///
/// - the status line is the version, one space, the three digits, and one space and the reason phrase unless it is
///   empty. The parser skips any run of spaces between these parts and at the reason's ends, and the reason of such
///   a head is its line's bytes, valid UTF-8 that swift-http-types kept as it was, so these bytes give the same
///   version, code and reason phrase;
/// - a field line is the name's own spelling, a colon, and one space and the value unless it is empty: a value the
///   parser took as it came is visible ASCII and tabs with no space or tab at either end, which is what the parser
///   makes of these bytes again.
///
/// Immutable, so a parser can hold the one it started with while other transfers' heads replace the loop's
/// (``RecentFields/lastTemplate``): libcurl hands a head over line by line as it arrives, and one loop's heads
/// interleave.
final class HeadTemplate {
    /// The head these lines make.
    let head: HTTPResponse
    /// The status line's version, e.g. `HTTP/1.1` (``ResponseHeadParser/version``).
    let version: String
    /// What ``CurlTransfer`` reads from every head it hands over, read once here for the heads that repeat this one:
    /// the announced length (``ContentLengthCheck``) and how the body is to be decoded (``ContentCoding/decoding(_:)``).
    let contentLength: Int64?
    let decoding: Result<[ContentCoding], any Error>?
    /// Whether the body of an answer to a GET with this head ends with its connection (an HTTP/1 head with neither
    /// `Content-Length` nor chunked coding), which over TLS is whole only after the server's close_notify
    /// (``CloseNotifyWatch``).
    let endsWithConnection: Bool
    /// The lines, each followed by LF; the last is the empty line that ends the head.
    private let lines: [UInt8]

    private static let lineFeed: UInt8 = 0x0A

    /// The template of `head`, or nil for a head that cannot frame a body as its fields say (a switch of protocols, a
    /// `Content-Length` that is no one count: ``ContentLengthCheck``), which a transfer refuses, or whose connection must
    /// carry no other exchange (``ContentLengthCheck/Reading/forbidsReuse(version:)``), which the transfer retires:
    /// a head that repeats a template is taken without a check.
    init?(head: HTTPResponse, version: String) {
        let reading = ContentLengthCheck.read(head.headerFields)
        guard ContentLengthCheck.problem(in: head, method: .get, reading: reading) == nil, !reading.forbidsReuse(version: version) else { return nil }
        endsWithConnection = BodyFraming.endsWithConnection(head, version: version, method: .get, reading: reading)
        self.head = head
        self.version = version
        contentLength = reading.count
        decoding = ContentCoding.decoding(head)
        var lines: [UInt8] = []
        lines.reserveCapacity(256)
        lines.append(contentsOf: version.utf8)
        lines.append(0x20)
        let code = head.status.code
        lines.append(UInt8(truncatingIfNeeded: 0x30 + code / 100 % 10))
        lines.append(UInt8(truncatingIfNeeded: 0x30 + code / 10 % 10))
        lines.append(UInt8(truncatingIfNeeded: 0x30 + code % 10))
        let reason = head.status.reasonPhrase
        if !reason.isEmpty {
            lines.append(0x20)
            lines.append(contentsOf: reason.utf8)
        }
        lines.append(Self.lineFeed)
        for field in head.headerFields {
            lines.append(contentsOf: field.name.rawName.utf8)
            lines.append(0x3A)
            field.withUnsafeBytesOfValue { value in
                guard !value.isEmpty else { return }
                lines.append(0x20)
                lines.append(contentsOf: value)
            }
            lines.append(Self.lineFeed)
        }
        lines.append(Self.lineFeed)
        self.lines = lines
    }

    /// Whether the line that starts at `offset` is `line` (without its line end); if so, `offset` moves to the next.
    /// Only the last line is empty, so an empty line that matches ends a head that is this one, whole. A line with an
    /// LF inside is never one of the template's, though it could be two of them (libcurl splits lines at LF first).
    func matches(_ line: UnsafeRawBufferPointer, at offset: inout Int) -> Bool {
        lines.withUnsafeBytes { all in
            let end = offset + line.count
            guard end < all.count, all[end] == Self.lineFeed else { return false }
            guard line.isEmpty || memcmp(all.baseAddress! + offset, line.baseAddress!, line.count) == 0 else { return false }
            guard line.isEmpty || memchr(line.baseAddress!, Int32(Self.lineFeed), line.count) == nil else { return false }
            offset = end + 1
            return true
        }
    }
}
