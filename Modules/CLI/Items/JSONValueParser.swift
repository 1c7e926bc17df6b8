import CourierCore

/// Reads one JSON text (RFC 8259) into ``CourierCore/Parameters``: the value of a `name:=json`
/// item.
///
/// Strings must be UTF-8. Integers that fit an `Int` become `.int`, every other number `.double`; a repeated object key
/// keeps its last value. Errors name the byte offset and what was expected there.
///
/// ```swift
/// try JSONValueParser.parse(#"{"tags":["a","b"],"n":1.5}"#)   // ["tags": ["a", "b"], "n": 1.5]
/// ```
struct JSONValueParser {
    /// Why a text is not JSON.
    struct SyntaxError: Error, Equatable, CustomStringConvertible {
        /// Offset of the offending byte in the UTF-8 text.
        var offset: Int
        /// What was expected.
        var expected: String

        var description: String { "invalid JSON at offset \(offset): expected \(expected)" }
    }

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    /// Nesting beyond this is refused, so a hostile document cannot exhaust the stack.
    static let maximumDepth = 512

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The value of `text`, which must hold exactly one JSON value (white space around it allowed).
    static func parse(_ text: String) throws(SyntaxError) -> Parameters {
        try parse(Array(text.utf8))
    }

    /// The value of the UTF-8 `bytes`.
    static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> Parameters {
        var parser = JSONValueParser(bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("end of text after the value") }
        return value
    }

    /// True when `bytes` hold exactly one JSON value.
    static func isValid(_ bytes: [UInt8]) -> Bool {
        (try? parse(bytes)) != nil
    }

    private func error(_ expected: String) -> SyntaxError {
        SyntaxError(offset: index, expected: expected)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func parseValue() throws(SyntaxError) -> Parameters {
        guard let byte = current else { throw error("a value") }
        switch byte {
        case UInt8(ascii: "{"): return try nested { (parser: inout JSONValueParser) throws(SyntaxError) in try parser.parseObject() }
        case UInt8(ascii: "["): return try nested { (parser: inout JSONValueParser) throws(SyntaxError) in try parser.parseArray() }
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("a value (object, array, string, number, true, false or null)")
        }
    }

    private mutating func nested(_ body: (inout JSONValueParser) throws(SyntaxError) -> Parameters) throws(SyntaxError) -> Parameters {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw error("at most \(Self.maximumDepth) levels of nesting") }
        return try body(&self)
    }

    private mutating func parseObject() throws(SyntaxError) -> Parameters {
        index += 1
        var dictionary: [String: Parameters] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") { index += 1; return .dictionary(dictionary) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("a string key") }
            let key = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("':' after the key") }
            index += 1
            skipWhitespace()
            dictionary[key] = try parseValue()
            skipWhitespace()
            switch current {
            case UInt8(ascii: ",")?: index += 1
            case UInt8(ascii: "}")?: index += 1; return .dictionary(dictionary)
            default: throw error("',' or '}'")
            }
        }
    }

    private mutating func parseArray() throws(SyntaxError) -> Parameters {
        index += 1
        var elements: [Parameters] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { index += 1; return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ",")?: index += 1
            case UInt8(ascii: "]")?: index += 1; return .array(elements)
            default: throw error("',' or ']'")
            }
        }
    }

    private mutating func expectWord(_ word: StaticString) throws(SyntaxError) {
        let count = word.utf8CodeUnitCount
        let matches = word.withUTF8Buffer { expected in
            index + count <= bytes.count && bytes[index..<(index + count)].elementsEqual(expected)
        }
        guard matches else { throw error("\(word)") }
        index += count
    }

    private mutating func parseNumber() throws(SyntaxError) -> Parameters {
        let start = index
        var isInteger = true
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, isDigit(first) else { throw error("a digit") }
        if first == UInt8(ascii: "0") {
            index += 1
        } else {
            while let byte = current, isDigit(byte) { index += 1 }
        }
        if current == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard let byte = current, isDigit(byte) else { throw error("a digit after '.'") }
            while let byte = current, isDigit(byte) { index += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let byte = current, isDigit(byte) else { throw error("a digit in the exponent") }
            while let byte = current, isDigit(byte) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let integer = Int(text) { return .int(integer) }
        guard let double = Double(text), double.isFinite else {
            index = start
            throw error("a number that fits a double")
        }
        return .double(double)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func parseString() throws(SyntaxError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        // A run of unescaped bytes must be UTF-8 (RFC 8259 §8.1): decoding it leniently would put U+FFFD where a
        // body had other bytes, and the response parser (JSONParser) refuses such a text (found by the cli-json
        // fuzz target, which checks that the two parsers agree).
        func flushRun(_ parser: JSONValueParser, upTo end: Int) -> Bool {
            guard let text = String(validating: parser.bytes[runStart..<end], as: UTF8.self) else { return false }
            scalars.append(contentsOf: text.unicodeScalars)
            return true
        }
        while true {
            guard let byte = current else { throw error("'\"' to close the string") }
            switch byte {
            case UInt8(ascii: "\""):
                guard flushRun(self, upTo: index) else { throw error("UTF-8 text in the string") }
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                guard flushRun(self, upTo: index) else { throw error("UTF-8 text in the string") }
                index += 1
                scalars.append(try parseEscape())
                runStart = index
            case 0x00..<0x20:
                throw error("an escaped control character (\\n, \\u0001…), not a raw one")
            default:
                index += 1
            }
        }
    }

    private mutating func parseEscape() throws(SyntaxError) -> Unicode.Scalar {
        guard let byte = current else { throw error("an escape after '\\'") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try parseHex4()
            if (0xD800..<0xDC00).contains(high) {
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error("a low surrogate after \\u\(String(high, radix: 16))")
                }
                index += 2
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("a low surrogate (DC00–DFFF)") }
                let value = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                return Unicode.Scalar(value) ?? "\u{FFFD}"
            }
            guard let scalar = Unicode.Scalar(high) else { throw error("a scalar value, not a lone low surrogate") }
            return scalar
        default:
            index -= 1
            throw error("one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u")
        }
    }

    private mutating func parseHex4() throws(SyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = hexValue(byte) else { throw error("four hex digits after \\u") }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }
}
