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
}
