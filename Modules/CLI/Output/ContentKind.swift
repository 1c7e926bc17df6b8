import Foundation

/// Whether a body is text a terminal can show.
enum BinaryDetection {
    /// True when the first kilobyte of `bytes` holds a NUL or is not UTF-8. A chunk may end in
    /// the middle of a character, so an error in the last three bytes does not count.
    static func looksBinary(_ bytes: ArraySlice<UInt8>) -> Bool {
        let sample = bytes.prefix(1024)
        if sample.contains(0) { return true }
        var decoder = UTF8()
        var iterator = sample.makeIterator()
        var consumed = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                consumed += scalar.value < 0x80 ? 1 : scalar.value < 0x800 ? 2 : scalar.value < 0x10000 ? 3 : 4
            case .emptyInput:
                return false
            case .error:
                return consumed < sample.count - 3
            }
        }
    }
}

/// Media types, for the choices that depend on them.
enum ContentType {
    /// True for `application/json`, `text/json` and any `…+json`.
    static func isJSON(_ value: String?) -> Bool {
        guard let value else { return false }
        let mime = value.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return mime == "application/json" || mime == "text/json" || mime.hasSuffix("+json")
    }

    /// True for `application/xml`, `text/xml` and any `…+xml` (Atom, RSS, SVG, SOAP…).
    static func isXML(_ value: String?) -> Bool {
        let mime = mimeType(value)
        return mime == "application/xml" || mime == "text/xml" || mime.hasSuffix("+xml")
    }

    /// The `charset` parameter, lower-cased and unquoted, if there is one.
    static func charset(_ value: String?) -> String? {
        guard let value else { return nil }
        for parameter in value.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else { continue }
            let charset = pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            return charset.isEmpty ? nil : charset.lowercased()
        }
        return nil
    }

    static func mimeType(_ value: String?) -> String {
        guard let value else { return "" }
        return value.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
    }
}
