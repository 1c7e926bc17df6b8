import FoundationEssentials

/// The file name a response suggests, made safe to create in a directory of the caller's choosing:
/// never a path, never hidden, never `.` or `..`, with no control or bidi characters and at most
/// 255 bytes, whatever the server sent.
///
/// A download to ``DownloadDestination/suggested(in:options:)`` is named by it; use it directly when
/// you write a response's body to a file yourself.
///
/// ```swift
/// SuggestedFileName.from(contentDisposition: #"attachment; filename="../../.bashrc""#, url: nil)  // "bashrc"
/// SuggestedFileName.from(contentDisposition: "attachment; filename*=UTF-8''na%C3%AFve.txt", url: nil)  // "naïve.txt"
/// SuggestedFileName.from(contentDisposition: nil, url: URL(string: "https://example.com/files/a%20b.csv"))  // "a b.csv"
/// ```
public enum SuggestedFileName {
    /// The name `Content-Disposition` suggests, else the URL's last path segment, made safe by
    /// ``sanitized(_:)``; nil when neither leaves anything.
    ///
    /// `filename*` (RFC 6266 and RFC 8187: UTF-8 or US-ASCII, percent-encoded) wins over `filename`;
    /// parameter names are matched without regard to case.
    public static func from(contentDisposition: String?, url: URL?) -> String? {
        if let name = contentDisposition.flatMap(filename(fromDisposition:)).map(sanitized), !name.isEmpty {
            return name
        }
        guard let url else { return nil }
        let segment = url.path(percentEncoded: false).split(separator: "/").last.map(String.init) ?? ""
        let name = sanitized(segment)
        return name.isEmpty ? nil : name
    }

    /// The last segment of `name` (`/` and `\` both separate) without control characters (C0, DEL,
    /// C1), bidi controls, surrounding white space or leading dots, cut to 255 bytes of UTF-8; empty
    /// when nothing is left.
    ///
    /// A server's `..\..\boot.ini` gives `boot.ini`, `.htaccess` gives `htaccess`, and
    /// `invoice\u{202E}fdp.exe` (which a terminal would show as `invoiceexe.pdf`) gives `invoicefdp.exe`.
    public static func sanitized(_ name: String) -> String {
        // Cut at scalars, not characters: a "/" that a prepended mark (U+0600) or a combining mark joins into one
        // character is still a separator to the file system, and a "." so joined still hides a file (found by the
        // content-disposition fuzz target's long run: "\u{600}/c" kept its "/").
        let segments = name.unicodeScalars.split(whereSeparator: { $0 == "/" || $0 == "\\" })
        let visible = (segments.last.map(Array.init) ?? []).filter { !$0.isControlCharacter && !$0.isBidiControl }
        var cleaned = visible[...]
        while let first = cleaned.first, first == "." || first.properties.isWhitespace { cleaned.removeFirst() }
        while cleaned.last?.properties.isWhitespace == true { cleaned.removeLast() }
        return truncated(String(String.UnicodeScalarView(cleaned)), toUTF8Count: maximumLength)
    }

    /// Most file systems cap a name at 255 bytes.
    package static let maximumLength = 255

    /// `name` without its last characters until its UTF-8 form fits `limit` bytes.
    package static func truncated(_ name: String, toUTF8Count limit: Int) -> String {
        var name = name
        while name.utf8.count > limit { name.removeLast() }
        return name
    }

    /// The `filename*` or `filename` parameter of a `Content-Disposition` value, as sent.
    package static func filename(fromDisposition value: String) -> String? {
        var plain: String?
        var extended: String?
        for parameter in parameters(of: value) {
            switch parameter.name.lowercased() {
            case "filename*": extended = decodeExtended(parameter.value)
            case "filename": plain = parameter.value
            default: break
            }
        }
        return extended ?? plain
    }

    /// `name=value` parameters after the first `;`, quotes removed and `\"` unescaped.
    private static func parameters(of value: String) -> [(name: String, value: String)] {
        var result: [(String, String)] = []
        var characters = Substring(value)
        guard let firstSemicolon = characters.firstIndex(of: ";") else { return [] }
        characters = characters[characters.index(after: firstSemicolon)...]
        while !characters.isEmpty {
            characters = characters.drop { $0 == " " || $0 == "\t" || $0 == ";" }
            guard let equals = characters.firstIndex(of: "=") else { break }
            let name = String(characters[..<equals].trimmingOptionalWhitespace())
            characters = characters[characters.index(after: equals)...].drop { $0 == " " }
            var parsed = ""
            if characters.first == "\"" {
                characters = characters.dropFirst()
                var escaping = false
                while let character = characters.first {
                    characters = characters.dropFirst()
                    if escaping { parsed.append(character); escaping = false }
                    else if character == "\\" { escaping = true }
                    else if character == "\"" { break }
                    else { parsed.append(character) }
                }
                characters = characters.drop { $0 != ";" }
            } else {
                let end = characters.firstIndex(of: ";") ?? characters.endIndex
                parsed = String(characters[..<end].trimmingOptionalWhitespace())
                characters = characters[end...]
            }
            result.append((name, parsed))
        }
        return result
    }

    /// `UTF-8''na%C3%AFve.txt` → `naïve.txt`; nil for another charset or bad escapes.
    private static func decodeExtended(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let charset = parts[0].lowercased()
        guard charset == "utf-8" || charset == "us-ascii" else { return nil }
        return percentDecoded(parts[2])
    }

    /// `%XX` escapes undone; nil for a `%` without two hex digits or bytes that are not UTF-8.
    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var input = text.utf8.makeIterator()
        while let byte = input.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = input.next().flatMap(hexValue), let low = input.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension Unicode.Scalar {
    /// C0 (U+0000–U+001F, tab and newline included), DEL and C1 (U+0080–U+009F, where CSI U+009B
    /// and OSC U+009D start terminal sequences on their own).
    package var isControlCharacter: Bool {
        value < 0x20 || (0x7F...0x9F).contains(value)
    }

    /// The bidi embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069) and marks
    /// (U+200E, U+200F, U+061C): invisible, they reorder what follows them on screen.
    package var isBidiControl: Bool {
        switch value {
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: return true
        default: return false
        }
    }
}
