import CourierCore
import FoundationEssentials
import HTTPTypes

/// A `multipart/form-data` body, built part by part (AFNetworking's `AFMultipartFormData`).
///
/// ```swift
/// var form = MultipartFormData()
/// form.append("Ada", name: "name")
/// try form.appendFile(at: "/tmp/avatar.png", name: "avatar")   // image/png, read lazily
/// let task = try session.upload(form, to: "profile")
/// ```
///
/// The body is laid out as AFNetworking lays it out — `--B\r\n`, each part's header lines,
/// a blank line, its bytes, `\r\n--B\r\n` between parts and `\r\n--B--\r\n` at the end — with
/// the headers of a part in a fixed order (`Content-Disposition`, then `Content-Type`). Its
/// length is exact before a byte is read, so the request carries `Content-Length`, and it can
/// be read again from the start for a 307 redirect or a retry (unless a part is a single-pass
/// stream). Files are read in chunks while the body is sent: memory stays flat for any size.
///
/// Field and file names are escaped as browsers escape them (`"` → `%22`, CR → `%0D`,
/// LF → `%0A`), so no name can end its quoted parameter or inject a header line.
public struct MultipartFormData: Sendable {
    /// The boundary between parts; ``randomBoundary()`` by default.
    public let boundary: String
    /// Slows the body down to `packetSize` bytes per read with a pause after each, for links
    /// that choke on large writes (AFNetworking's `throttleBandwidthWithPacketSize:delay:`);
    /// `nil`, the default, sends at full speed.
    public var throttle: Throttle?
    /// Where file parts without a MIME type get theirs.
    public var mimeTypes: MIMETypes

    private(set) var parts: [Part] = []

    /// An empty form with a fresh ``randomBoundary()``.
    ///
    /// - Parameter mimeTypes: The extension table for file parts; the system's by default.
    public init(mimeTypes: MIMETypes = .system) {
        self.boundary = Self.randomBoundary()
        self.mimeTypes = mimeTypes
    }

    /// An empty form with a boundary of your choosing, for tests that need fixed bytes.
    ///
    /// - Parameters:
    ///   - boundary: 1 to 70 of the characters RFC 2046 allows (letters, digits, `'()+_,-./:=?`
    ///     and spaces), not ending in a space; anything else is an
    ///     ``MultipartError/Reason/invalidBoundary`` error, since no parser could find the parts.
    ///   - mimeTypes: The extension table for file parts; the system's by default.
    public init(boundary: String, mimeTypes: MIMETypes = .system) throws(MultipartError) {
        guard Self.isValidBoundary(boundary) else {
            throw MultipartError(.invalidBoundary, detail: "\(boundary.debugDescription) is not 1 to 70 of RFC 2046's boundary characters, ending in one that is not a space")
        }
        self.boundary = boundary
        self.mimeTypes = mimeTypes
    }

    /// `multipart/form-data; boundary=…`, the request's `Content-Type`.
    ///
    /// A boundary that is not an RFC 2045 token is quoted (`boundary="a:b c"`): RFC 2046 allows
    /// `'()+_,-./:=?` and spaces in boundaries, and a parser reading `boundary=a:b c` unquoted
    /// stops at the `:` and looks for the wrong delimiter. The default boundary is a token.
    public var contentType: String {
        let isToken = !boundary.isEmpty && boundary.utf8.allSatisfy { byte in
            byte > 0x20 && byte < 0x7F && !Self.separators.contains(byte)
        }
        // A valid boundary holds no quote or backslash, so quoting needs no escapes.
        return isToken ? "multipart/form-data; boundary=" + boundary : "multipart/form-data; boundary=\"" + boundary + "\""
    }

    /// RFC 2045's `tspecials`: the characters a parameter value must be quoted to hold.
    private static let separators = Set("()<>@,;:\\\"/[]?=".utf8)

    /// True when the form has no part.
    public var isEmpty: Bool { parts.isEmpty }

    /// The number of parts.
    public var partCount: Int { parts.count }

    /// The exact length of the whole body in bytes, boundaries included.
    public var contentLength: Int64 {
        guard !parts.isEmpty else { return 0 }
        let delimiters = Int64(parts.count) * Int64(delimiter(first: false).count) - 2 + Int64(closing.count)
        return parts.reduce(delimiters) { $0 + Int64($1.header.count) + $1.content.length }
    }

    // MARK: Fields

    /// A text field: `Content-Disposition: form-data; name="…"` and the UTF-8 bytes of `value`.
    public mutating func append(_ value: String, name: String) {
        append(Data(value.utf8), name: name)
    }

    /// A field of raw bytes with only a `Content-Disposition` header (AFNetworking's
    /// `appendPartWithFormData:name:`).
    public mutating func append(_ data: Data, name: String) {
        parts.append(Part(name: name, header: header(name: name, fileName: nil, mimeType: nil), content: .bytes(data)))
    }

    // MARK: Files

    /// A file part from bytes in memory (AFNetworking's `appendPartWithFileData:name:fileName:mimeType:`).
    ///
    /// - Parameter mimeType: The part's `Content-Type`; `nil` takes it from `fileName`'s extension.
    public mutating func append(_ data: Data, name: String, fileName: String, mimeType: String? = nil) {
        let type = mimeType ?? mimeTypes.type(forPath: fileName)
        parts.append(Part(name: name, header: header(name: name, fileName: fileName, mimeType: type), content: .bytes(data)))
    }

    /// A file part read lazily from `path` while the body is sent (AFNetworking's
    /// `appendPartWithFileURL:name:fileName:mimeType:error:`).
    ///
    /// The file is opened and measured now: a missing, unreadable or non-regular file throws
    /// here, before anything is sent.
    ///
    /// - Parameters:
    ///   - fileName: The `filename` parameter; the path's last component by default.
    ///   - mimeType: The part's `Content-Type`; from the file name's extension by default.
    /// - Throws: ``MultipartError/Reason/fileNotReachable``.
    public mutating func appendFile(
        at path: String, name: String, fileName: String? = nil, mimeType: String? = nil
    ) throws(MultipartError) {
        let length: Int64
        do {
            length = try FileDescriptor.openRegularFileForReading(path).size()
        } catch {
            throw MultipartError(.fileNotReachable, partName: name, path: path, detail: error.systemReason)
        }
        let fileName = fileName ?? Self.lastComponent(of: path)
        let type = mimeType ?? mimeTypes.type(forPath: fileName)
        let header = header(name: name, fileName: fileName, mimeType: type)
        parts.append(Part(name: name, header: header, content: .file(path: path, length: length)))
    }

    /// A file part read lazily from a `file:` URL; see ``appendFile(at:name:fileName:mimeType:)-(String,_,_,_)``.
    ///
    /// - Throws: ``MultipartError/Reason/notAFileURL`` for any other scheme, and
    ///   ``MultipartError/Reason/fileNotReachable``.
    public mutating func appendFile(
        at url: URL, name: String, fileName: String? = nil, mimeType: String? = nil
    ) throws(MultipartError) {
        guard url.isFileURL else {
            throw MultipartError(.notAFileURL, partName: name, path: url.absoluteString, detail: "only file: URLs can be read as parts")
        }
        try appendFile(at: url.path(percentEncoded: false), name: name, fileName: fileName, mimeType: mimeType)
    }

    // MARK: Streams and custom parts

    /// A part whose bytes come from `body`, which must know its length (AFNetworking's
    /// `appendPartWithInputStream:name:fileName:length:mimeType:`).
    ///
    /// A `.single` body makes the whole form single-pass: it cannot follow a 307 redirect or be
    /// retried.
    ///
    /// - Throws: ``MultipartError/Reason/unknownLength`` for a body of unknown length.
    public mutating func append(_ body: Body, name: String, fileName: String, mimeType: String) throws(MultipartError) {
        let length = try Self.knownLength(of: body, partName: name)
        parts.append(Part(name: name, header: header(name: name, fileName: fileName, mimeType: mimeType), content: .stream(body, length: length)))
    }

    /// A part with exactly these header fields, in this order, and these bytes (AFNetworking's
    /// `appendPartWithHeaders:body:`); use it for a `Content-Transfer-Encoding` or a part that
    /// is not form data.
    public mutating func append(headers: HTTPFields, body: Data) {
        parts.append(Part(name: nil, header: Self.headerBlock(headers.map { ($0.name.rawName, $0.value) }), content: .bytes(body)))
    }

    /// A part with exactly these header fields and the bytes of `body`, which must know its length.
    ///
    /// - Throws: ``MultipartError/Reason/unknownLength`` for a body of unknown length.
    public mutating func append(headers: HTTPFields, body: Body) throws(MultipartError) {
        let length = try Self.knownLength(of: body, partName: nil)
        parts.append(Part(name: nil, header: Self.headerBlock(headers.map { ($0.name.rawName, $0.value) }), content: .stream(body, length: length)))
    }

    // MARK: Layout

    /// `--B\r\n` before the first part, `\r\n--B\r\n` before the others.
    func delimiter(first: Bool) -> Data {
        Data(((first ? "--" : "\r\n--") + boundary + "\r\n").utf8)
    }

    /// `\r\n--B--\r\n` after the last part.
    var closing: Data { Data(("\r\n--" + boundary + "--\r\n").utf8) }

    /// The header block of a form-data part: disposition, then the type when there is one.
    private func header(name: String, fileName: String?, mimeType: String?) -> Data {
        var disposition = "form-data; name=\"" + DispositionEscaping.escape(name) + "\""
        if let fileName { disposition += "; filename=\"" + DispositionEscaping.escape(fileName) + "\"" }
        var fields = [("Content-Disposition", disposition)]
        if let mimeType { fields.append(("Content-Type", mimeType)) }
        return Self.headerBlock(fields)
    }

    /// `Name: value\r\n` lines and the blank line that ends them. Names are escaped above and
    /// `HTTPFields` cannot hold line breaks; a MIME type given as a string could, so CR, LF and
    /// NUL are dropped from every value (per scalar: `"\r\n"` is one `Character`), and no value
    /// can start a header line or end the block.
    private static func headerBlock(_ fields: [(String, String)]) -> Data {
        var text = ""
        for (name, value) in fields {
            var clean = String.UnicodeScalarView()
            clean.append(contentsOf: value.unicodeScalars.lazy.filter { $0 != "\r" && $0 != "\n" && $0 != "\0" })
            text += name + ": " + String(clean) + "\r\n"
        }
        return Data((text + "\r\n").utf8)
    }

    private static func knownLength(of body: Body, partName: String?) throws(MultipartError) -> Int64 {
        if case .known(let length) = body.length, length < 0 {
            throw MultipartError(.unknownLength, partName: partName, detail: "the stream announces a negative length (\(length))")
        }
        guard case .known(let length) = body.length else {
            throw MultipartError(
                .unknownLength, partName: partName,
                detail: "a form's Content-Length must be exact, so a stream part needs a known length; collect it first or give Body(…, length: .known(n), …)"
            )
        }
        return length
    }

    private static func lastComponent(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}

/// One part as laid out: its header block (ending in the blank line) and its bytes.
struct Part: Sendable {
    /// The field name, for messages; `nil` for a part with custom headers.
    let name: String?
    let header: Data
    let content: Content

    enum Content: Sendable {
        case bytes(Data)
        case file(path: String, length: Int64)
        case stream(Body, length: Int64)

        var length: Int64 {
            switch self {
            case .bytes(let data): return Int64(data.count)
            case .file(_, let length), .stream(_, let length): return length
            }
        }
    }
}

extension FileError {
    /// What the system said, e.g. `cannot open: No such file or directory` (the multipart error
    /// names the path already).
    var systemReason: String {
        description.replacing(" \(path):", with: ":")
    }
}
