import CourierRequestSerialization
import Foundation

/// Percent escaping (`PercentEscaping.escape`): the output holds only the characters it promises to leave
/// and `%XX` escapes with uppercase hex (and `+` for spaces when asked), and decoding it with an independent
/// decoder (this file's, and Foundation's `removingPercentEncoding`) gives back the input exactly.
enum PercentEscapingFuzz: FuzzTarget {
    static let name = "percent-escaping"

    static func run(_ input: FuzzInput) {
        let plus = input.bool()
        let text = String(decoding: input.rest(), as: UTF8.self)
        let escaped = PercentEscaping.escape(text, spaces: plus ? .plus : .percentEscaped)
        let bytes = Array(escaped.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                precondition(index + 2 < bytes.count, "a % without two digits in \(escaped)")
                precondition(isUppercaseHex(bytes[index + 1]) && isUppercaseHex(bytes[index + 2]), "bad escape in \(escaped)")
                index += 3
                continue
            }
            precondition(PercentEscaping.leavesUnescaped(byte) || (plus && byte == UInt8(ascii: "+")),
                         "byte \(byte) left unescaped in \(escaped)")
            index += 1
        }
        precondition(QueryDecoding.decode(escaped, plusIsSpace: plus) == text, "escaping \(text) does not decode back")
        if !plus {
            precondition(escaped.removingPercentEncoding == text, "Foundation decodes \(escaped) differently")
        }
    }

    static func isUppercaseHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}

/// An independent percent decoder for the round trips: `%XX` to its byte, `+` to a space when asked; nil for
/// a malformed escape or bytes that are not UTF-8.
enum QueryDecoding {
    static func decode(_ text: String, plusIsSpace: Bool) -> String? {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "%"):
                guard index + 2 < bytes.count, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) else { return nil }
                output.append(high << 4 | low)
                index += 3
            case UInt8(ascii: "+") where plusIsSpace:
                output.append(UInt8(ascii: " "))
                index += 1
            default:
                output.append(bytes[index])
                index += 1
            }
        }
        return String(validating: output, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
