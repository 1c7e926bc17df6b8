/// AFNetworking's percent escaping of query keys and values (`AFPercentEscapedStringFromString`).
///
/// Exactly `A–Z a–z 0–9 - . _ ~ / ?` stay as they are; every other byte of the string's UTF-8
/// form becomes `%XX` with uppercase hex. So a space is `%20` (never `+`), `%` is `%25`, the
/// sub-delimiters `!$&'()*+,;=` and `:#[]@` are escaped, and non-ASCII text always is:
///
/// ```swift
/// PercentEscaping.escape("a b&c=d")   // "a%20b%26c%3Dd"
/// PercentEscaping.escape("é/?")       // "%C3%A9/?"
/// ```
///
/// `/` and `?` stay readable, as RFC 3986 §3.4 allows in a query. Encoding works per Unicode
/// scalar, so a surrogate pair or an emoji with a skin-tone modifier is never split; AFNetworking's
/// 50-character batching was a crash workaround with the same output.
public enum PercentEscaping {
    /// `string` with every character outside `A–Z a–z 0–9 - . _ ~ / ?` percent-escaped as UTF-8
    /// with uppercase hex digits.
    public static func escape(_ string: String) -> String {
        escape(string, spaces: .percentEscaped)
    }

    /// `string` escaped as ``escape(_:)`` does, except that with ``QueryString/Options/SpaceStyle/plus``
    /// a space becomes `+` (a literal `+` stays `%2B`).
    ///
    /// ```swift
    /// PercentEscaping.escape("a b+c", spaces: .plus)   // "a+b%2Bc"
    /// ```
    public static func escape(_ string: String, spaces: QueryString.Options.SpaceStyle) -> String {
        let plus = spaces == .plus
        var source = string
        let escaped: String? = source.withUTF8 { bytes in
            let changes = scan(bytes, spacesAsPlus: plus)
            guard changes.escaped > 0 || changes.plusSpaces > 0 else { return nil }
            return String(unsafeUninitializedCapacity: bytes.count + 2 * changes.escaped) { output in
                var written = 0
                for byte in bytes {
                    written = write(byte, into: output, at: written, spacesAsPlus: plus)
                }
                return written
            }
        }
        return escaped ?? string
    }

    /// True when `byte` (one byte of UTF-8) stays as it is: `A–Z a–z 0–9 - . _ ~ / ?`.
    public static func leavesUnescaped(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
             UInt8(ascii: "/"), UInt8(ascii: "?"):
            return true
        default:
            return false
        }
    }

    /// Appends the escaped form of `string` to `output`, growing it at most once; with
    /// `spacesAsPlus` a space is written as `+`.
    static func append(escaping string: String, to output: inout [UInt8], spacesAsPlus: Bool = false) {
        var string = string
        string.withUTF8 { bytes in
            append(escaping: bytes, to: &output, spacesAsPlus: spacesAsPlus)
        }
    }

    /// Appends the escaped form of the UTF-8 `bytes` to `output`, growing it at most once.
    static func append(escaping bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8], spacesAsPlus: Bool) {
        let changes = scan(bytes, spacesAsPlus: spacesAsPlus)
        guard changes.escaped > 0 || changes.plusSpaces > 0 else {
            output.append(contentsOf: bytes)
            return
        }
        let start = output.count
        let added = bytes.count + 2 * changes.escaped
        output.append(contentsOf: repeatElement(0, count: added))
        output.withUnsafeMutableBufferPointer { buffer in
            var written = start
            for byte in bytes {
                written = write(byte, into: buffer, at: written, spacesAsPlus: spacesAsPlus)
            }
        }
    }

    /// How many bytes of `bytes` grow to `%XX`, and how many are spaces written as `+` (which
    /// change but do not grow).
    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>, spacesAsPlus: Bool) -> (escaped: Int, plusSpaces: Int) {
        var escaped = 0
        var plusSpaces = 0
        for byte in bytes where !leavesUnescaped(byte) {
            if spacesAsPlus, byte == UInt8(ascii: " ") {
                plusSpaces += 1
            } else {
                escaped += 1
            }
        }
        return (escaped, plusSpaces)
    }

    /// Writes `byte` (escaped when needed) at `index`; returns the index after it.
    @inline(__always)
    private static func write(
        _ byte: UInt8, into buffer: UnsafeMutableBufferPointer<UInt8>, at index: Int, spacesAsPlus: Bool
    ) -> Int {
        if leavesUnescaped(byte) {
            buffer[index] = byte
            return index + 1
        }
        if spacesAsPlus, byte == UInt8(ascii: " ") {
            buffer[index] = UInt8(ascii: "+")
            return index + 1
        }
        buffer[index] = UInt8(ascii: "%")
        buffer[index + 1] = hexDigit(byte >> 4)
        buffer[index + 2] = hexDigit(byte & 0x0F)
        return index + 3
    }

    /// The uppercase hex digit for a value in `0...15`.
    @inline(__always)
    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }
}
