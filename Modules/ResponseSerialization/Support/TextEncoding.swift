import FoundationEssentials

/// The text encodings a response's `charset` can name, decoded strictly: a byte sequence that
/// is not valid in the encoding is an error at its offset, never a silent replacement.
///
/// ```swift
/// TextEncoding(charset: "ISO-8859-1")        // .isoLatin1
/// try TextEncoding.utf8.decode(data)         // throws at the first invalid byte
/// ```
public enum TextEncoding: String, Sendable, Hashable, Codable {
    /// UTF-8 (a leading byte order mark is dropped).
    case utf8
    /// UTF-16 with a byte order mark, big-endian without one (RFC 2781).
    case utf16
    /// UTF-16, big-endian.
    case utf16BigEndian
    /// UTF-16, little-endian.
    case utf16LittleEndian
    /// UTF-32 with a byte order mark, big-endian without one.
    case utf32
    /// US-ASCII: bytes above 0x7F are errors.
    case ascii
    /// ISO-8859-1: every byte is the code point of the same value.
    case isoLatin1
    /// Windows-1252: ISO-8859-1 with printable characters in 0x80–0x9F.
    case windows1252

    /// The encoding a `charset` parameter names (IANA names and common aliases, any case);
    /// `nil` for one Courier cannot decode.
    public init?(charset: String) {
        switch charset.lowercased() {
        case "utf-8", "utf8": self = .utf8
        case "utf-16", "utf16": self = .utf16
        case "utf-16be": self = .utf16BigEndian
        case "utf-16le": self = .utf16LittleEndian
        case "utf-32", "utf32", "utf-32be": self = .utf32
        case "us-ascii", "ascii", "iso646-us", "ansi_x3.4-1968": self = .ascii
        case "iso-8859-1", "iso8859-1", "latin1", "l1", "iso_8859-1": self = .isoLatin1
        case "windows-1252", "cp1252": self = .windows1252
        default: return nil
        }
    }

    /// `data` as text.
    ///
    /// - Throws: ``ResponseSerializationError/Reason/invalidEncoding`` at the first byte that
    ///   does not decode.
    public func decode(_ data: Data) throws(ResponseSerializationError) -> String {
        switch self {
        case .utf8:
            let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
            if let text = String(validating: body, as: UTF8.self) { return text }
            throw invalid(at: Self.firstInvalidOffset(of: body, as: UTF8.self), "UTF-8")
        case .utf16, .utf16BigEndian, .utf16LittleEndian:
            return try decodeUTF16(data)
        case .utf32:
            return try decodeUTF32(data)
        case .ascii:
            if let offset = data.firstIndex(where: { $0 > 0x7F }) {
                throw invalid(at: offset - data.startIndex, "US-ASCII")
            }
            return String(decoding: data, as: UTF8.self)
        case .isoLatin1:
            var scalars = String.UnicodeScalarView()
            for byte in data { scalars.append(Unicode.Scalar(byte)) }
            return String(scalars)
        case .windows1252:
            var scalars = String.UnicodeScalarView()
            for (offset, byte) in data.enumerated() {
                guard let scalar = Self.windows1252Scalar(byte) else { throw invalid(at: offset, "Windows-1252") }
                scalars.append(scalar)
            }
            return String(scalars)
        }
    }

    /// `data` as UTF-8 bytes: unchanged for UTF-8, no charset or a charset Courier does not know
    /// (JSON is UTF-8 by RFC 8259, and AFNetworking 3 and later ignore the parameter), transcoded
    /// from UTF-16, UTF-32, Latin-1 or Windows-1252 otherwise.
    static func utf8Bytes(of data: Data, charset: String?) throws(ResponseSerializationError) -> Data {
        guard let charset, let encoding = TextEncoding(charset: charset) else { return data }
        if encoding == .utf8 || encoding == .ascii { return data }
        return Data(try encoding.decode(data).utf8)
    }

    private func decodeUTF16(_ data: Data) throws(ResponseSerializationError) -> String {
        guard data.count % 2 == 0 else { throw invalid(at: data.count - 1, "UTF-16 (an odd number of bytes)") }
        var bytes = data[...]
        var bigEndian = self != .utf16LittleEndian
        if self == .utf16, bytes.count >= 2 {
            if bytes.starts(with: [0xFF, 0xFE]) { bigEndian = false; bytes = bytes.dropFirst(2) }
            else if bytes.starts(with: [0xFE, 0xFF]) { bytes = bytes.dropFirst(2) }
        }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let first = UInt16(bytes[index]), second = UInt16(bytes[index + 1])
            units.append(bigEndian ? first << 8 | second : second << 8 | first)
            index += 2
        }
        if let text = String(validating: units, as: UTF16.self) { return text }
        throw invalid(at: Self.firstInvalidOffset(of: units, as: UTF16.self) * 2, "UTF-16")
    }

    private func decodeUTF32(_ data: Data) throws(ResponseSerializationError) -> String {
        guard data.count % 4 == 0 else { throw invalid(at: data.count - data.count % 4, "UTF-32 (a length not a multiple of 4)") }
        var bytes = data[...]
        var bigEndian = true
        if bytes.starts(with: [0xFF, 0xFE, 0, 0]) { bigEndian = false; bytes = bytes.dropFirst(4) }
        else if bytes.starts(with: [0, 0, 0xFE, 0xFF]) { bytes = bytes.dropFirst(4) }
        var scalars = String.UnicodeScalarView()
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let b0 = UInt32(bytes[index]), b1 = UInt32(bytes[index + 1]), b2 = UInt32(bytes[index + 2]), b3 = UInt32(bytes[index + 3])
            let value = bigEndian ? b0 << 24 | b1 << 16 | b2 << 8 | b3 : b3 << 24 | b2 << 16 | b1 << 8 | b0
            guard let scalar = Unicode.Scalar(value) else { throw invalid(at: index - data.startIndex, "UTF-32") }
            scalars.append(scalar)
            index += 4
        }
        return String(scalars)
    }

    private func invalid(at offset: Int, _ name: String) -> ResponseSerializationError {
        ResponseSerializationError(.invalidEncoding, detail: "the body is not valid \(name)", offset: offset)
    }

    /// The index (in code units) of the first code unit that does not decode.
    private static func firstInvalidOffset<Codec: UnicodeCodec>(of units: some Collection<Codec.CodeUnit>, as codec: Codec.Type) -> Int {
        var decoder = Codec()
        var iterator = units.makeIterator()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                offset += Codec.self == UTF8.self ? UTF8.width(scalar) : UTF16.width(scalar)
            case .emptyInput, .error:
                return offset
            }
        }
    }

    /// Windows-1252's characters for 0x80–0x9F; `nil` for its five undefined bytes.
    private static func windows1252Scalar(_ byte: UInt8) -> Unicode.Scalar? {
        guard (0x80...0x9F).contains(byte) else { return Unicode.Scalar(byte) }
        return windows1252Table[Int(byte - 0x80)].flatMap(Unicode.Scalar.init)
    }

    private static let windows1252Table: [UInt32?] = [
            0x20AC, nil, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, nil, 0x017D, nil,
            nil, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, nil, 0x017E, 0x0178,
        ]
}
