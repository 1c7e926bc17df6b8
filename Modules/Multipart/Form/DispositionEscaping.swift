/// Escapes a field name or file name for a quoted `Content-Disposition` parameter the way
/// browsers do (WHATWG's multipart/form-data encoding, the practice RFC 7578 §2 defers to):
/// `"` → `%22`, CR → `%0D`, LF → `%0A`; and NUL → `%00`, which a header cannot carry (dropping it
/// made `a\0b` and `ab` the same field). Nothing else changes, so UTF-8 names stay readable.
///
/// A backslash is left as browsers leave it: a server that reads the parameter as an RFC 2045
/// quoted-string (Go's `mime`, Python's `email`) takes `\"` for an escaped quote, as it does for a
/// browser's upload.
///
/// AFNetworking wrote names raw, so a name holding `"` or a line break could end the parameter
/// or inject a header; here it cannot.
enum DispositionEscaping {
    static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x22 || $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else { return text }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 8)
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
}
