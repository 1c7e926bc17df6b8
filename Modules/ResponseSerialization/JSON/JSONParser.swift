import FoundationEssentials

/// A strict RFC 8259 parser from UTF-8 bytes straight to ``JSONValue``: one pass over the
/// response's own buffer, no copy of the body, errors with line and column.
///
/// Why our own: FoundationEssentials has no `JSONSerialization`, and decoding an untyped tree
/// through `JSONDecoder` tries each type in turn and throws on every miss. Nesting is bounded
/// (``maximumDepth``) so a hostile `[[[[…` cannot exhaust the stack.
///
/// Package-wide so the `courier` command line reads `name:=json` items and decides what to
/// pretty-print with the same parser that reads responses: one set of JSON rules, not two.
package struct JSONParser {
    /// Deeper documents fail instead of recursing further.
    package static let maximumDepth = 512

    package struct Options {
        /// Any value at the top level, not only an object or an array.
        package var allowsFragments = false
        /// Null object members and array elements are left out.
        package var removesNulls = false

        package init(allowsFragments: Bool = false, removesNulls: Bool = false) {
            self.allowsFragments = allowsFragments
            self.removesNulls = removesNulls
        }
    }

    /// Where and why parsing failed.
    package struct Failure: Error, CustomStringConvertible {
        package var message: String
        /// Offset of the offending byte in the UTF-8 text.
        package var offset: Int
        package var line: Int
        package var column: Int

        package var description: String { "invalid JSON at line \(line), column \(column): \(message)" }
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let options: Options
    private var index = 0
    private var depth = 0

    private init(bytes: UnsafeBufferPointer<UInt8>, options: Options) {
        self.bytes = bytes
        self.options = options
    }

    /// Parses a whole document.
    package static func parse(_ data: Data, options: Options) throws(Failure) -> JSONValue {
        let result: Result<JSONValue, Failure> = data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self), options: options)
            do throws(Failure) {
                return .success(try parser.document())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    // MARK: Grammar

    private mutating func document() throws(Failure) -> JSONValue {
        // A UTF-8 byte order mark may be ignored (RFC 8259 §8.1).
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        skipWhitespace()
        guard index < bytes.count else { throw failure("the document is empty") }
        if !options.allowsFragments, bytes[index] != UInt8(ascii: "{"), bytes[index] != UInt8(ascii: "[") {
            throw failure("the top level must be an object or an array (fragments are not allowed)")
        }
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw failure("unexpected data after the document") }
        return value
    }

    private mutating func parseValue() throws(Failure) -> JSONValue {
        guard index < bytes.count else { throw failure("the document ended where a value was expected") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw failure("unexpected character \(describe(bytes[index]))")
        }
    }

    private mutating func parseObject() throws(Failure) -> JSONValue {
        try enter()
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if peek(UInt8(ascii: "}")) {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek(UInt8(ascii: "\"")) else { throw failure("an object key must be a string") }
            let key = try parseString()
            skipWhitespace()
            guard peek(UInt8(ascii: ":")) else { throw failure("expected ':' after an object key") }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            if options.removesNulls && value == .null {
                // The last occurrence of a key wins, then nulls go: `{"a":1,"a":null}` loses `a`.
                members.removeValue(forKey: key)
            } else {
                members[key] = value
            }
            skipWhitespace()
            guard index < bytes.count else { throw failure("the document ended inside an object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; break }
            throw failure("expected ',' or '}' in an object, found \(describe(bytes[index]))")
        }
        depth -= 1
        return .object(members)
    }

    private mutating func parseArray() throws(Failure) -> JSONValue {
        try enter()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek(UInt8(ascii: "]")) {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            let value = try parseValue()
            if !(options.removesNulls && value == .null) { elements.append(value) }
            skipWhitespace()
            guard index < bytes.count else { throw failure("the document ended inside an array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; break }
            throw failure("expected ',' or ']' in an array, found \(describe(bytes[index]))")
        }
        depth -= 1
        return .array(elements)
    }

    // MARK: Strings

    private mutating func parseString() throws(Failure) -> String {
        index += 1
        let start = index
        // Fast path: no escapes, valid UTF-8, no control characters.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                guard let string = String(validating: slice, as: UTF8.self) else {
                    index = start
                    throw invalidUTF8(in: slice, from: start)
                }
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw failure("an unescaped control character in a string") }
            index += 1
        }
        guard index < bytes.count else { throw failure("the document ended inside a string") }
        return try parseEscapedString(from: start)
    }

    private mutating func parseEscapedString(from start: Int) throws(Failure) -> String {
        var utf8 = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let string = String(validating: utf8, as: UTF8.self) else {
                    throw failure("a string is not valid UTF-8", at: start)
                }
                return string
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"): try appendUnicodeEscape(to: &utf8)
                default:
                    index -= 1
                    throw failure("invalid escape: a backslash followed by \(describe(escape))")
                }
            default:
                if byte < 0x20 { throw failure("an unescaped control character in a string") }
                utf8.append(byte)
                index += 1
            }
        }
        throw failure("the document ended inside a string")
    }

    private mutating func appendUnicodeEscape(to utf8: inout [UInt8]) throws(Failure) {
        let high = try hex4()
        var scalarValue = UInt32(high)
        if (0xD800..<0xDC00).contains(high) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw failure("a lone high surrogate \\u\(String(high, radix: 16, uppercase: true))")
            }
            index += 2
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw failure("a high surrogate not followed by a low one") }
            scalarValue = 0x10000 + ((UInt32(high) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
        } else if (0xDC00..<0xE000).contains(high) {
            throw failure("a lone low surrogate \\u\(String(high, radix: 16, uppercase: true))")
        }
        guard let scalar = Unicode.Scalar(scalarValue) else { throw failure("an invalid \\u escape") }
        utf8.append(contentsOf: UTF8.encode(scalar).map { Array($0) } ?? [])
    }

    private mutating func hex4() throws(Failure) -> UInt16 {
        guard index + 4 <= bytes.count else { throw failure("the document ended inside a \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("\\u must be followed by four hexadecimal digits")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    // MARK: Numbers

    private mutating func parseNumber() throws(Failure) -> JSONValue {
        let start = index
        var isInteger = true
        if peek(UInt8(ascii: "-")) { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number needs digits") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw failure("a number cannot have a leading zero") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if peek(UInt8(ascii: ".")) {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a fraction needs digits") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("an exponent needs digits") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
        if isInteger, let value = Self.integer(text) { return .int(value) }
        // The grammar above guarantees an ASCII decimal literal, which Double reads exactly.
        guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else {
            throw failure("the number is out of range", at: start)
        }
        return .double(value)
    }

    /// An integer literal's value, or `nil` when it overflows `Int`.
    private static func integer(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        var negative = false
        var value = 0
        for byte in text {
            if byte == UInt8(ascii: "-") { negative = true; continue }
            let digit = Int(byte - UInt8(ascii: "0"))
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = next
        }
        return value
    }

    // MARK: Helpers

    private mutating func expectLiteral(_ literal: StaticString) throws(Failure) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure("the document ended inside a literal") }
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        for offset in 0..<count where bytes[index + offset] != expected[offset] {
            throw failure("unexpected character \(describe(bytes[index + offset]))", at: index + offset)
        }
        index += count
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        if depth > Self.maximumDepth { throw failure("the document nests deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private func describe(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    private func invalidUTF8(in slice: UnsafeBufferPointer<UInt8>, from start: Int) -> Failure {
        // Find the first byte where decoding fails, for the position.
        var offset = 0
        var iterator = slice.makeIterator()
        var decoder = UTF8()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: break loop
            case .error: break loop
            }
        }
        return failure("a string is not valid UTF-8", at: start + offset)
    }

    private func failure(_ message: String, at position: Int? = nil) -> Failure {
        let offset = min(position ?? index, bytes.count)
        var line = 1
        var lineStart = 0
        for position in 0..<offset where bytes[position] == 0x0A {
            line += 1
            lineStart = position + 1
        }
        return Failure(message: message, offset: offset, line: line, column: offset - lineStart + 1)
    }
}
