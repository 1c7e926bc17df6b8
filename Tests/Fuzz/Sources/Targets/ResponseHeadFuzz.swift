@testable import CourierCurl
import HTTPTypes

/// The response-head parser (`ResponseHeadParser`), fed line by line as libcurl hands a head over: any bytes
/// end in a head, a `malformed` outcome or a need for more, never a crash. A head it returns has a three-digit
/// final status (an informational 1xx other than 101 is skipped, never returned), no more fields than lines,
/// values without CR, LF or NUL (which would let a server smuggle a header into a later request), and a
/// version of the form `HTTP/1.1` or `HTTP/2`.
///
/// A second parser reads the same lines with every earlier input's common fields and its last head at hand
/// (`RecentFields`, as a transport's loop keeps them): it must give the same outcome and version, byte for byte,
/// whether it takes a template's head whole or in part (`HeadTemplate`) or not. After each line of odd length, a
/// third parser reads a whole head of its own through the same `RecentFields`, as another transfer of the loop does
/// between two lines of a head that libcurl hands over as it arrives. A head's `Content-Length` check
/// (`ContentLengthCheck`) never crashes, and a head repeating a template passes it; how a body ends (`BodyFraming`) is
/// read as a plain reading of the fields reads it, and a template keeps what a transfer would decide.
enum ResponseHeadFuzz: FuzzTarget {
    static let name = "response-head"

    /// Kept from input to input. `nonisolated(unsafe)`: libFuzzer runs one input at a time, on one thread.
    nonisolated(unsafe) static let recentFields = RecentFields()

    /// Heads another transfer ends in the middle of the input's: other fields, the other spelling, none at all.
    static let interleaved: [[String]] = [
        ["HTTP/1.1 200 OK", "Server: nginx", "Set-Cookie: sid=B", ""],
        ["HTTP/2 200", "server: nginx", "date: Sat, 28 Nov 2026 08:41:12 GMT", ""],
        ["HTTP/1.1 200 OK", ""],
    ]

    static func run(_ input: FuzzInput) {
        var parser = ResponseHeadParser()
        var sharing = ResponseHeadParser(recentFields: recentFields)
        var lines = 0
        for line in input.restSplit(at: 0x0A) {
            lines += 1
            var bytes = Array(line)
            bytes.append(0x0A)
            let outcome = bytes.withUnsafeBytes { parser.consume($0) }
            let sharingOutcome = bytes.withUnsafeBytes { sharing.consume($0) }
            if line.count % 2 == 1 {
                var other = ResponseHeadParser(recentFields: recentFields)
                for otherLine in interleaved[line.count / 2 % interleaved.count] { _ = other.consume(line: otherLine) }
            }
            precondition(outcome == sharingOutcome, "a parser sharing earlier values gave \(sharingOutcome), not \(outcome)")
            precondition(parser.version.map { Array($0.utf8) } == sharing.version.map { Array($0.utf8) }, "the version differs when shared")
            if case .head(let response) = outcome, case .head(let shared) = sharingOutcome {
                // `==` compares neither the reason phrase nor the order of fields of different names.
                precondition(Array(response.status.reasonPhrase.utf8) == Array(shared.status.reasonPhrase.utf8), "the reason phrase differs when shared")
                precondition(response.headerFields.count == shared.headerFields.count, "the field count differs when shared")
                for (field, sharedField) in zip(response.headerFields, shared.headerFields) {
                    precondition(Array(field.value.utf8) == Array(sharedField.value.utf8), "field \(field.name) differs when shared")
                    precondition(Array(field.name.rawName.utf8) == Array(sharedField.name.rawName.utf8), "field \(field.name)'s spelling differs when shared")
                    precondition(field.indexingStrategy == sharedField.indexingStrategy, "field \(field.name)'s indexing differs when shared")
                }
            }
            switch outcome {
            case .needMore:
                continue
            case .malformed(let message):
                precondition(!message.isEmpty, "a malformed outcome without a message")
                return
            case .head(let response):
                let code = response.status.code
                precondition((100...999).contains(code), "status \(code) is not three digits")
                precondition(!(100..<200).contains(code) || code == 101, "informational status \(code) returned as the final head")
                precondition(response.headerFields.count <= lines, "\(response.headerFields.count) fields from \(lines) lines")
                for field in response.headerFields {
                    precondition(!field.value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 },
                                 "field \(field.name) carries CR, LF or NUL")
                }
                // Compared byte by byte: `String.hasPrefix` compares characters, and a combining mark after the
                // slash would make a different last character from bytes that do begin with `HTTP/`.
                let version = Array((parser.version ?? "").utf8)
                let digits: ClosedRange<UInt8> = 0x30...0x39
                let wellFormed = version.starts(with: "HTTP/".utf8) && digits.contains(version[safe: 5])
                    && (version.count == 6 || (version.count == 8 && version[6] == 0x2E && digits.contains(version[7])))
                precondition(wellFormed, "a head whose version is not HTTP/<digit>[.<digit>]: \(version)")
                // The transport checks a head's Content-Length, or takes a head that repeats a template without a check:
                // a template must pass it, and announce the same length.
                let reading = ContentLengthCheck.read(response.headerFields)
                // How the body ends, against a plain reading of the fields; and a transfer asks about close_notify only
                // for heads without a count, so a body that ends with its connection must have none.
                let framing = BodyFraming.of(response, method: .get, reading: reading)
                precondition(framing == referenceFraming(response, reading: reading), "the body's framing is read otherwise")
                let endsWithConnection = BodyFraming.endsWithConnection(response, version: parser.version ?? "", method: .get, reading: reading)
                precondition(!endsWithConnection || reading.count == nil, "a body with a length ends with its connection")
                if let template = sharing.repeatedTemplate {
                    precondition(ContentLengthCheck.problem(in: response, method: .get, reading: reading) == nil, "a template that fails the check")
                    precondition(!reading.forbidsReuse(version: parser.version ?? ""), "a template of a head whose connection is retired")
                    precondition(template.contentLength == reading.count, "the template announces another length")
                    precondition(template.endsWithConnection == endsWithConnection, "the template frames its body otherwise")
                }
                return
            }
        }
    }
}

/// `BodyFraming.of` written the plain way: every `Transfer-Encoding` value cut at commas, the last coding that is not
/// blank compared with `chunked`, ASCII letters in any case.
private func referenceFraming(_ head: HTTPResponse, reading: ContentLengthCheck.Reading) -> BodyFraming {
    let code = head.status.code
    if (100..<200).contains(code) || code == 204 || code == 304 { return .none }
    let values = head.headerFields.filter { $0.name == .transferEncoding }.map { Array($0.value.utf8) }
    guard !values.isEmpty else { return reading.count == nil ? .connectionEnd : .length }
    let blank: Set<UInt8> = [0x20, 0x09]
    let codings = values.flatMap { $0.split(separator: 0x2C, omittingEmptySubsequences: false) }
        .map { Array($0.drop { blank.contains($0) }.reversed().drop { blank.contains($0) }.reversed()) }
        .filter { !$0.isEmpty }
    let lowered = codings.last.map { $0.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 } }
    return lowered == Array("chunked".utf8) ? .chunked : .connectionEnd
}

private extension Array where Element == UInt8 {
    /// The byte at `index`, or one no range of digits holds when the array is shorter.
    subscript(safe index: Int) -> UInt8 { index < count ? self[index] : 0xFF }
}
