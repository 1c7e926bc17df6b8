import CourierCore
@testable import CourierMultipart
import FoundationEssentials
import HTTPTypes

/// `multipart/form-data` bodies (`MultipartFormData`), round trip: a form of fuzzed parts — text and data
/// fields, in-memory files with or without a MIME type, stream parts, parts with custom headers — whose names,
/// file names, types and bytes may hold quotes, CR, LF, NUL, `%22` and lines that look like boundaries, is
/// read as a transport reads it (`makeBody()`, throttled or not), then parsed back by an independent RFC 2046 /
/// RFC 7578 reader written here, which knows only the wire format and the documented escaping.
///
/// Properties, for every form: the body has exactly `contentLength` bytes, as `makeBody()` and the request's
/// `Content-Length` announce; the request's `Content-Type` names the boundary, readable by an RFC 2045
/// parameter parser; a stream part that delivers other than the length it announced fails the read with
/// `MultipartError.lengthMismatch`. When no part's bytes hold the delimiter (CRLF `--` boundary, which RFC 2046
/// makes the sender's duty to avoid; the target's boundaries have the module's shape, `Boundary+` and 16 hex
/// digits, or are any valid RFC 2046 boundary), the reader finds exactly the parts appended, in order: the
/// `Content-Disposition` of a form-data part holds the escaped name and file name (browsers' escaping: `"` →
/// `%22`, CR → `%0D`, LF → `%0A`, and NUL → `%00`), which unescape to the names given when the escaping is
/// reversible (the name held no `%22`, `%0D`, `%0A` or `%00` of its own); the
/// `Content-Type` is the one given, or the one the file name's extension implies; custom headers come in
/// their order; and every body is byte for byte the one given. A throttled read hands out no packet larger
/// than the packet size.
enum MultipartFuzz: FuzzTarget {
    static let name = "multipart"

    /// What the target appended, to compare with what the reader finds.
    struct Expected {
        /// The header lines the part must carry, in order.
        var headers: [(String, String)]
        var body: [UInt8]
        /// For form-data parts: the names as given, to check the escaping both ways.
        var name: String?
        var fileName: String?
        /// A stream part announcing another length than it delivers.
        var mismatched = false
    }

    static func run(_ input: FuzzInput) {
        let flags = input.byte()
        if flags & 0x80 != 0 {
            checkBoundaryValidation(input)
            return
        }
        let boundary = flags & 1 == 0 ? moduleShapedBoundary(input) : rfcBoundary(input)
        var form = try! MultipartFormData(boundary: boundary, mimeTypes: .builtIn)
        let throttle = flags & 2 != 0 ? Throttle(packetSize: 1 + Int(input.byte()), delay: .zero) : nil
        form.throttle = throttle

        var expected: [Expected] = []
        for _ in 0..<input.int(in: 0...5) {
            guard let part = append(to: &form, from: input, boundary: boundary) else { continue }
            expected.append(part)
        }
        precondition(form.partCount == expected.count, "\(form.partCount) parts for \(expected.count) appended")

        let body = form.makeBody()
        precondition(body.length == .known(form.contentLength), "the body announces \(body.length), the form \(form.contentLength)")
        if let throttle { precondition(body.maximumReadSize == throttle.packetSize, "a throttled body without its packet size") }
        let read = runBlocking { () -> Result<[ArraySlice<UInt8>], MultipartError> in
            var chunks: [ArraySlice<UInt8>] = []
            do {
                for try await chunk in body { chunks.append(chunk) }
                return .success(chunks)
            } catch let error as MultipartError {
                return .failure(error)
            } catch {
                fatalError("reading the form threw \(error)")
            }
        }
        let mismatched = expected.filter(\.mismatched)
        let chunks: [ArraySlice<UInt8>]
        switch read {
        case .failure(let error):
            precondition(error.reason == .lengthMismatch && !mismatched.isEmpty, "reading the form failed: \(error)")
            return
        case .success(let read):
            precondition(mismatched.isEmpty, "a stream part delivered other than it announced, and the read succeeded")
            chunks = read
        }
        if let throttle {
            precondition(chunks.allSatisfy { $0.count <= throttle.packetSize }, "a packet over \(throttle.packetSize) bytes")
        }
        let bytes = Array(chunks.joined())
        precondition(Int64(bytes.count) == form.contentLength, "\(bytes.count) bytes, \(form.contentLength) announced")
        if let segments = body.segments {
            let laidOut = segments.flatMap { segment -> [UInt8] in
                guard case .bytes(let data) = segment else { fatalError("a file segment without a file part") }
                return Array(data)
            }
            precondition(laidOut == bytes, "the segments hold other bytes than the body reads")
        }

        checkRequest(form, length: bytes.count)
        guard !expected.isEmpty else {
            precondition(bytes.isEmpty, "an empty form has \(bytes.count) bytes")
            return
        }
        let delimiter = Array("\r\n--\(boundary)".utf8)
        if expected.contains(where: { holds(Array("\r\n".utf8) + headerBlock($0.headers) + $0.body, delimiter) }) {
            return   // RFC 2046 leaves a boundary found inside a part to the sender: no reader can tell.
        }
        guard let parts = Reader.parse(bytes, boundary: Array(boundary.utf8)) else {
            fatalError("the reader cannot parse the body of \(expected.count) parts")
        }
        precondition(parts.count == expected.count, "the reader finds \(parts.count) parts, \(expected.count) were appended")
        for (index, (part, want)) in zip(parts, expected).enumerated() {
            precondition(part.headers.map(\.0) == want.headers.map(\.0) && part.headers.map(\.1) == want.headers.map { trimmed($0.1) },
                         "part \(index): headers \(part.headers), expected \(want.headers)")
            precondition(part.body == want.body, "part \(index): \(part.body.count) bytes, expected \(want.body.count)")
            guard let name = want.name else { continue }
            guard let disposition = Reader.disposition(part.headers[0].1) else {
                fatalError("part \(index): the reader cannot parse \(part.headers[0].1.debugDescription)")
            }
            precondition(disposition["name"] == escape(name), "part \(index): name \(String(describing: disposition["name"]))")
            precondition(disposition["filename"] == want.fileName.map(escape), "part \(index): file name \(String(describing: disposition["filename"]))")
            for (given, sent) in [(name, disposition["name"]), (want.fileName, disposition["filename"])] {
                guard let given, let sent, isReversible(given) else { continue }
                precondition(unescape(sent) == given, "part \(index): \(sent.debugDescription) does not unescape to \(given.debugDescription)")
            }
        }
    }

    // MARK: Building the form

    /// Appends one part chosen by the input; nil when the module refused it (a stream of negative length).
    static func append(to form: inout MultipartFormData, from input: FuzzInput, boundary: String) -> Expected? {
        let kind = input.int(in: 0...4)
        let name = text(input)
        let content = payload(input, boundary: boundary)
        switch kind {
        case 0:
            let value = String(decoding: content, as: UTF8.self)
            form.append(value, name: name)
            return Expected(headers: [disposition(name, nil)], body: Array(value.utf8), name: name)
        case 1:
            form.append(Data(content), name: name)
            return Expected(headers: [disposition(name, nil)], body: content, name: name)
        case 2:
            let fileName = text(input)
            let mimeType = input.bool() ? text(input) : nil
            form.append(Data(content), name: name, fileName: fileName, mimeType: mimeType)
            let type = mimeType ?? MIMETypes.builtIn.type(forPath: fileName)
            return Expected(headers: [disposition(name, fileName), ("Content-Type", clean(type))], body: content, name: name, fileName: fileName)
        case 3:
            let fileName = text(input)
            let mimeType = text(input)
            let delta = [0, 0, 0, -1, 1, 7][input.int(in: 0...5)]
            let announced = Int64(content.count + delta)
            let stream = Body(
                Pieces(bytes: content, size: 1 + Int(input.byte())), length: .known(announced),
                iterationBehavior: input.bool() ? .multiple : .single
            )
            do {
                try form.append(stream, name: name, fileName: fileName, mimeType: mimeType)
            } catch {
                precondition(error.reason == .unknownLength && announced < 0, "a stream of \(announced) bytes refused: \(error)")
                return nil
            }
            precondition(announced >= 0, "a stream of negative length accepted")
            return Expected(headers: [disposition(name, fileName), ("Content-Type", clean(mimeType))], body: content,
                            name: name, fileName: fileName, mismatched: delta != 0)
        default:
            var fields = HTTPFields()
            for _ in 0..<input.int(in: 0...3) {
                guard let fieldName = HTTPField.Name(text(input)) else { continue }
                let value = input.bytes(upTo: 16)
                fields.append(input.bool() ? HTTPField(name: fieldName, value: String(decoding: value, as: UTF8.self))
                                           : HTTPField(name: fieldName, lenientValue: value))
            }
            form.append(headers: fields, body: Data(content))
            return Expected(headers: fields.map { ($0.name.rawName, clean($0.value)) }, body: content)
        }
    }

    /// A name or a type: a short string, or one of the troublesome ones.
    static func text(_ input: FuzzInput) -> String {
        let choice = input.byte()
        switch choice {
        case 0..<200: return input.string(upTo: 12)
        case 200..<210: return "a\"b\r\nX-Injected: 1"
        case 210..<220: return "%22quoted%22\\"
        case 220..<230: return "photo.PNG"
        case 230..<240: return "--" + input.string(upTo: 8)
        default: return "é\u{0}\r\"\n.json"
        }
    }

    /// A part's bytes: fuzzed, sometimes around something that looks like (or is) the delimiter.
    static func payload(_ input: FuzzInput, boundary: String) -> [UInt8] {
        let bytes = input.bytes(upTo: 48)
        switch input.byte() % 8 {
        case 0: return bytes + Array("\r\n--\(boundary.dropLast())".utf8) + bytes
        case 1: return Array("--\(boundary)".utf8) + bytes
        case 2: return bytes + Array("\r\n--\(boundary)--\r\n".utf8)
        case 3: return bytes + [0x0D]
        default: return bytes
        }
    }

    /// `Boundary+` and 16 uppercase hexadecimal digits, as `randomBoundary()` makes them, from the input.
    static func moduleShapedBoundary(_ input: FuzzInput) -> String {
        let digits = Array("0123456789ABCDEF")
        return "Boundary+" + String((0..<16).map { _ in digits[Int(input.byte() & 0x0F)] })
    }

    /// Any boundary RFC 2046 allows: 1 to 70 of its characters, not ending in a space.
    static func rfcBoundary(_ input: FuzzInput) -> String {
        let characters = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ")
        var boundary = String((0..<input.int(in: 1...70)).map { _ in characters[Int(input.byte()) % characters.count] })
        while boundary.last == " " { boundary.removeLast() }
        return boundary.isEmpty ? "B" : boundary
    }

    /// Any string as a boundary: the form refuses exactly what RFC 2046 §5.1.1 does not allow, by this
    /// independent reading of its grammar (`0*69<bchars> bcharsnospace`).
    static func checkBoundaryValidation(_ input: FuzzInput) {
        let candidate = String(decoding: (0..<input.int(in: 0...80)).map { _ in input.byte() }, as: UTF8.self)
        let bcharsnospace = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=?".unicodeScalars)
        let scalars = Array(candidate.unicodeScalars)
        let allowed = !scalars.isEmpty && scalars.count <= 70 && bcharsnospace.contains(scalars.last!)
            && scalars.allSatisfy { bcharsnospace.contains($0) || $0 == " " }
        do {
            let form = try MultipartFormData(boundary: candidate)
            precondition(allowed, "the boundary \(candidate.debugDescription) was accepted")
            precondition(form.boundary == candidate)
        } catch {
            precondition(!allowed && error.reason == .invalidBoundary, "the boundary \(candidate.debugDescription) was refused: \(error)")
        }
    }

    /// A stream part's bytes, in pieces of `size`.
    struct Pieces: AsyncSequence, Sendable {
        typealias Element = ArraySlice<UInt8>
        let bytes: [UInt8]
        let size: Int

        func makeAsyncIterator() -> Iterator { Iterator(pieces: self) }

        struct Iterator: AsyncIteratorProtocol {
            typealias Failure = Never
            let pieces: Pieces
            var offset = 0

            mutating func next() async -> ArraySlice<UInt8>? {
                guard offset < pieces.bytes.count else { return nil }
                let end = Swift.min(pieces.bytes.count, offset + pieces.size)
                defer { offset = end }
                return pieces.bytes[offset..<end]
            }
        }
    }

    // MARK: The model of the documented layout

    /// The `Content-Disposition` line the module documents for a form-data part.
    static func disposition(_ name: String, _ fileName: String?) -> (String, String) {
        var value = "form-data; name=\"" + escape(name) + "\""
        if let fileName { value += "; filename=\"" + escape(fileName) + "\"" }
        return ("Content-Disposition", clean(value))
    }

    /// Browsers' escaping of a quoted parameter (`"`, CR, LF), and NUL as `%00`.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "%22"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            case "\0": escaped += "%00"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// Byte-wise, not by `Character`: a combining mark after `%22` or `"` must not hide it.
    static func unescape(_ text: String) -> String {
        var bytes = Array(text.utf8)
        for (escaped, byte) in [("%22", UInt8(ascii: "\"")), ("%0D", 0x0D), ("%0A", 0x0A), ("%00", 0)] {
            let pattern = Array(escaped.utf8)
            var output: [UInt8] = []
            var index = 0
            while index < bytes.count {
                if bytes[index...].starts(with: pattern) {
                    output.append(byte)
                    index += pattern.count
                } else {
                    output.append(bytes[index])
                    index += 1
                }
            }
            bytes = output
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether unescaping gives the name back: it held no escape sequence of its own.
    static func isReversible(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return !["%22", "%0D", "%0A", "%00"].contains { holds(bytes, Array($0.utf8)) }
    }

    /// A header value with CR, LF and NUL dropped, per scalar.
    static func clean(_ value: String) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: value.unicodeScalars.filter { $0 != "\r" && $0 != "\n" && $0 != "\0" })
        return String(view)
    }

    /// A header value as a reader sees it: white space around it is not part of it (RFC 9110 §5.5).
    static func trimmed(_ value: String) -> String {
        var scalars = Substring(value).unicodeScalars
        while scalars.first == " " || scalars.first == "\t" { scalars.removeFirst() }
        while scalars.last == " " || scalars.last == "\t" { scalars.removeLast() }
        return String(scalars)
    }

    static func headerBlock(_ headers: [(String, String)]) -> [UInt8] {
        Array((headers.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n").utf8)
    }

    static func holds(_ bytes: [UInt8], _ pattern: [UInt8]) -> Bool {
        Reader.find(pattern, in: bytes[...]) != nil
    }

    /// The request a form serializes to: its `Content-Type` names the boundary, its `Content-Length` the size.
    static func checkRequest(_ form: MultipartFormData, length: Int) {
        let request = HTTPRequest(method: .post, scheme: "https", authority: "example.com", path: "/upload")
        let serialized: SerializedRequest
        do { serialized = try form.serialize(request) } catch { fatalError("a POST form refused: \(error)") }
        guard !form.isEmpty else {
            precondition(serialized.request.headerFields[.contentType] == nil, "an empty form sets a Content-Type")
            return
        }
        precondition(serialized.request.headerFields[.contentLength] == String(length), "Content-Length \(String(describing: serialized.request.headerFields[.contentLength])) for \(length) bytes")
        guard let type = serialized.request.headerFields[.contentType], let announced = Reader.boundary(ofContentType: type) else {
            fatalError("no boundary in the Content-Type \(String(describing: serialized.request.headerFields[.contentType]))")
        }
        precondition(announced == form.boundary, "the Content-Type \(type) names \(announced.debugDescription), the body uses \(form.boundary.debugDescription)")
    }

    // MARK: The independent reader

    /// An RFC 2046 / RFC 7578 reader: delimiters, header lines, `Content-Disposition` parameters.
    enum Reader {
        struct Part {
            var headers: [(String, String)]
            var body: [UInt8]
        }

        /// The parts of `body`, or nil when it is not a multipart body for `boundary` with an empty preamble
        /// and an epilogue of one CRLF (the module's layout).
        static func parse(_ body: [UInt8], boundary: [UInt8]) -> [Part]? {
            let dashBoundary = Array("--".utf8) + boundary
            let delimiter = Array("\r\n".utf8) + dashBoundary
            guard body.starts(with: dashBoundary) else { return nil }
            var position = dashBoundary.count
            var parts: [Part] = []
            while true {
                // After a boundary: `--` closes the body; otherwise transport padding and CRLF open a part.
                if body[position...].starts(with: Array("--".utf8)) {
                    return body[(position + 2)...].elementsEqual(Array("\r\n".utf8)) ? parts : nil
                }
                while position < body.count, body[position] == 0x20 || body[position] == 0x09 { position += 1 }
                guard body[position...].starts(with: [0x0D, 0x0A]) else { return nil }
                position += 2
                guard let end = find(delimiter, in: body[position...]) else { return nil }
                guard let part = part(body[position..<end]) else { return nil }
                parts.append(part)
                position = end + delimiter.count
            }
        }

        /// Header lines up to the blank line, then the body.
        static func part(_ bytes: ArraySlice<UInt8>) -> Part? {
            var headers: [(String, String)] = []
            var position = bytes.startIndex
            while true {
                guard let lineEnd = find([0x0D, 0x0A], in: bytes[position...]) else { return nil }
                if lineEnd == position { return Part(headers: headers, body: Array(bytes[(lineEnd + 2)...])) }
                let line = bytes[position..<lineEnd]
                guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
                var value = line[(colon + 1)...]
                while value.first == 0x20 || value.first == 0x09 { value = value.dropFirst() }
                while value.last == 0x20 || value.last == 0x09 { value = value.dropLast() }
                headers.append((String(decoding: line[..<colon], as: UTF8.self), String(decoding: value, as: UTF8.self)))
                position = lineEnd + 2
            }
        }

        /// `form-data; name="…"; filename="…"` as browsers write it: a quoted value ends at the next quote
        /// (no backslash escapes; quotes and line breaks arrive percent-escaped). Read byte by byte, since
        /// a combining mark after a quote would join it in one `Character`.
        static func disposition(_ value: String) -> [String: String]? {
            var rest = Array(value.utf8)[...]
            guard rest.starts(with: "form-data".utf8) else { return nil }
            rest = rest.dropFirst("form-data".utf8.count)
            var parameters: [String: String] = [:]
            while !rest.isEmpty {
                guard rest.starts(with: "; ".utf8) else { return nil }
                rest = rest.dropFirst(2)
                guard let equals = rest.firstIndex(of: UInt8(ascii: "=")) else { return nil }
                let name = String(decoding: rest[..<equals], as: UTF8.self)
                rest = rest[(equals + 1)...]
                guard rest.first == UInt8(ascii: "\"") else { return nil }
                rest = rest.dropFirst()
                guard let close = rest.firstIndex(of: UInt8(ascii: "\"")), parameters[name] == nil else { return nil }
                parameters[name] = String(decoding: rest[..<close], as: UTF8.self)
                rest = rest[(close + 1)...]
            }
            return parameters
        }

        /// The `boundary` parameter of a `multipart/form-data` type, by RFC 2045: a token or a quoted string.
        static func boundary(ofContentType value: String) -> String? {
            let tokenCharacters = Set("!#$%&'*+-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ^_`abcdefghijklmnopqrstuvwxyz|~".utf8)
            var rest = Array(value.utf8)[...]
            func skipSpaces() { while rest.first == 0x20 { rest = rest.dropFirst() } }
            func take(_ prefix: String) -> Bool {
                let expected = Array(prefix.utf8)
                guard rest.count >= expected.count,
                      zip(rest.prefix(expected.count), expected).allSatisfy({ $0 | 0x20 == $1 | 0x20 }) else { return false }
                rest = rest.dropFirst(expected.count)
                return true
            }
            guard take("multipart/form-data") else { return nil }
            skipSpaces()
            guard rest.first == UInt8(ascii: ";") else { return nil }
            rest = rest.dropFirst()
            skipSpaces()
            guard take("boundary=") else { return nil }
            if rest.first == UInt8(ascii: "\"") {
                var boundary: [UInt8] = []
                rest = rest.dropFirst()
                while let byte = rest.first, byte != UInt8(ascii: "\"") {
                    rest = rest.dropFirst()
                    if byte == UInt8(ascii: "\\") {
                        guard let escaped = rest.first else { return nil }
                        boundary.append(escaped)
                        rest = rest.dropFirst()
                    } else {
                        boundary.append(byte)
                    }
                }
                guard rest.elementsEqual([UInt8(ascii: "\"")]) else { return nil }
                return String(decoding: boundary, as: UTF8.self)
            }
            guard !rest.isEmpty, rest.allSatisfy(tokenCharacters.contains) else { return nil }
            return String(decoding: rest, as: UTF8.self)
        }

        /// The index where `pattern` first starts in `bytes`.
        static func find(_ pattern: [UInt8], in bytes: ArraySlice<UInt8>) -> Int? {
            guard !pattern.isEmpty, bytes.count >= pattern.count else { return nil }
            var index = bytes.startIndex
            while index + pattern.count <= bytes.endIndex {
                if bytes[index] == pattern[0], bytes[index..<(index + pattern.count)].elementsEqual(pattern) { return index }
                index += 1
            }
            return nil
        }
    }
}
