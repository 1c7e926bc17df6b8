/// Text that came from the wire or the caller, made safe for one log line: a server's header value, a
/// redirect target or a body must not start a new line in a log, or send a terminal escape sequence to whoever
/// reads it with `tail -f`.
///
/// Escaped as `\n`, `\r`, `\t` and `\u{…}`: C0 controls, DEL, C1 controls (U+0080–U+009F, which some terminals
/// obey as escapes) and the Unicode line and paragraph separators (U+2028, U+2029), which some log viewers break
/// lines at. Everything else stays as it is. Text without any of them is returned without a copy of its scalars.
enum LogText {
    static func escaped(_ text: some StringProtocol) -> String {
        guard needsEscaping(text.utf8) else { return String(text) }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where isUnsafe(scalar): out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
    }

    /// Whether any byte starts a scalar that ``escaped(_:)`` rewrites: a byte scan, since almost every line
    /// needs nothing (C1 controls are `C2 80`–`C2 9F` in UTF-8, the separators `E2 80 A8` and `E2 80 A9`).
    private static func needsEscaping(_ bytes: some Collection<UInt8>) -> Bool {
        var previous: UInt8 = 0
        var beforePrevious: UInt8 = 0
        for byte in bytes {
            if byte < 0x20 || byte == 0x7F { return true }
            if previous == 0xC2, (0x80...0x9F).contains(byte) { return true }
            if beforePrevious == 0xE2, previous == 0x80, byte == 0xA8 || byte == 0xA9 { return true }
            beforePrevious = previous
            previous = byte
        }
        return false
    }
}
