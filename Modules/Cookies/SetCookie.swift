import CourierCore
import FoundationEssentials

/// A `Set-Cookie` field read by RFC 6265bis §5.6, before the storage model decides whether and how it is
/// stored (that needs the request and the jar: ``CookieStore``). Pure; fuzzed.
struct SetCookie: Equatable {
    var name: String
    var value: String
    /// When it expires: `Max-Age` when given (it wins), else `Expires`; `nil` for neither.
    var expires: Date?
    /// The `Domain` attribute, lower case, a leading dot dropped; `nil` when absent or empty.
    var domain: String?
    /// The `Path` attribute when it starts with `/`; `nil` otherwise (the default path applies).
    var path: String?
    var secure = false
    var httpOnly = false
    var sameSite: Cookie.SameSite = .unspecified

    /// The longest name plus value, and the longest attribute value, RFC 6265bis allows.
    static let maximumPairLength = 4096
    static let maximumAttributeLength = 1024
    /// User agents must cap an expiry at 400 days from now (RFC 6265bis §5.6.1, §5.6.2).
    static let maximumLifetime: TimeInterval = 400 * 86_400

    /// The cookie `field` sets, read at `now`; `nil` when the field must be ignored (a control character,
    /// no name and no value, a pair over 4096 bytes).
    static func parse(_ field: String, now: Date) -> SetCookie? {
        let bytes = Array(field.utf8)
        // A control character other than TAB anywhere: the whole field is ignored.
        guard !bytes.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else { return nil }
        let sections = bytes.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)
        let pair = sections[0]
        let name: ArraySlice<UInt8>
        let value: ArraySlice<UInt8>
        if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
            name = trimmed(pair[..<equals])
            value = trimmed(pair[(equals + 1)...])
        } else {
            name = []
            value = trimmed(pair)
        }
        guard !(name.isEmpty && value.isEmpty), name.count + value.count <= maximumPairLength else { return nil }
        var cookie = SetCookie(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
        var maxAge: Date?
        var expires: Date?
        for section in sections.dropFirst() {
            let attributeName: ArraySlice<UInt8>
            let attributeValue: ArraySlice<UInt8>
            if let equals = section.firstIndex(of: UInt8(ascii: "=")) {
                attributeName = trimmed(section[..<equals])
                attributeValue = trimmed(section[(equals + 1)...])
            } else {
                attributeName = trimmed(section)
                attributeValue = []
            }
            guard attributeValue.count <= maximumAttributeLength else { continue }
            let text = String(decoding: attributeValue, as: UTF8.self)
            switch String(decoding: attributeName, as: UTF8.self).lowercased() {
            case "expires":
                if let date = HTTPDate.parse(text) { expires = min(date, now + maximumLifetime) }
            case "max-age":
                if let seconds = maxAgeSeconds(attributeValue) {
                    maxAge = seconds <= 0 ? Date.distantPast : now + min(TimeInterval(seconds), maximumLifetime)
                }
            case "domain":
                guard !attributeValue.isEmpty else { continue }
                let domain = attributeValue.first == UInt8(ascii: ".") ? attributeValue.dropFirst() : attributeValue
                cookie.domain = String(decoding: domain, as: UTF8.self).lowercased()
            case "path":
                cookie.path = attributeValue.first == UInt8(ascii: "/") ? text : nil
            case "secure":
                cookie.secure = true
            case "httponly":
                cookie.httpOnly = true
            case "samesite":
                switch text.lowercased() {
                case "strict": cookie.sameSite = .strict
                case "lax": cookie.sameSite = .lax
                case "none": cookie.sameSite = .none
                default: cookie.sameSite = .unspecified
                }
            default:
                break
            }
        }
        cookie.expires = maxAge ?? expires
        return cookie
    }

    /// `Max-Age`'s value: an optional `-` then digits only; very long values saturate.
    private static func maxAgeSeconds(_ value: ArraySlice<UInt8>) -> Int? {
        var digits = value[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        if negative { return -1 }
        if digits.count > 12 { return Int.max }
        return Int(String(decoding: digits, as: UTF8.self))
    }

    /// Without leading and trailing spaces and tabs.
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return slice
    }
}
