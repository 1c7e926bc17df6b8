import CourierCore
import FoundationEssentials

/// Compact JSON (RFC 8259) for a ``CourierCore/Parameters`` tree, as `JSONSerialization` writes
/// it with no options, which FoundationEssentials lacks.
///
/// - No white space. Dictionary keys sorted by Swift's `<`, so equal parameters give equal bytes.
/// - Strings: `"` and `\` escaped, control characters as `\b \f \n \r \t` or `\u00XX`; everything
///   else, non-ASCII included, written as UTF-8. `/` is not escaped (`JSONSerialization` writes
///   `\/`; both read the same). A Swift string always holds valid Unicode, so the lone surrogates
///   `JSONSerialization` must refuse cannot occur (building such a string yields U+FFFD).
/// - Numbers: `.int` in decimal; a finite `.double` integral below 10¹⁶ in magnitude without a
///   fraction (`2.0` → `2`), otherwise in the shortest form that reads back as the same double
///   (`0.1`, `1e+16`). NaN and infinities have no JSON form and throw.
/// - `.bool` → `true`/`false`, `.null` → `null`, `.data` → a base64 string.
/// - A `.set` has no JSON form (JSON has no unordered collection) and throws.
/// - The top level must be an array or a dictionary, as `JSONSerialization.isValidJSONObject`
///   demands; anything else throws.
struct JSONWriter {
    /// The bytes written so far.
    private(set) var output: [UInt8] = []
    /// Where the writer is in the tree, for error messages.
    private var path = ParameterPath()

    /// The compact JSON bytes of `parameters`.
    ///
    /// - Throws: ``RequestSerializationError/Reason/invalidJSON`` naming the offending value.
    static func encode(_ parameters: Parameters) throws(RequestSerializationError) -> [UInt8] {
        var writer = JSONWriter()
        switch parameters {
        case .array, .dictionary:
            try writer.write(parameters)
        default:
            throw writer.invalid("the top level must be an array or a dictionary, not \(parameters.kindDescription)")
        }
        return writer.output
    }

    private mutating func write(_ value: Parameters) throws(RequestSerializationError) {
        switch value {
        case .null:
            output.append(contentsOf: "null".utf8)
        case .bool(let flag):
            output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .int(let number):
            output.append(contentsOf: String(number).utf8)
        case .double(let number):
            try writeNumber(number)
        case .string(let text):
            writeString(text)
        case .data(let bytes):
            writeString(bytes.base64EncodedString())
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                path.push(index: index)
                try write(element)
                path.pop()
            }
            output.append(UInt8(ascii: "]"))
        case .dictionary(let values):
            output.append(UInt8(ascii: "{"))
            for (index, entry) in values.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                writeString(entry.key)
                output.append(UInt8(ascii: ":"))
                path.push(key: entry.key)
                try write(entry.value)
                path.pop()
            }
            output.append(UInt8(ascii: "}"))
        case .set:
            throw invalid("a set has no JSON form (JSON has no unordered collection); pass an array")
        }
    }

    private mutating func writeNumber(_ number: Double) throws(RequestSerializationError) {
        guard number.isFinite else {
            throw invalid("\(number) is not a JSON number; JSON has no NaN or infinity")
        }
        // The shortest round-trip form (`0.1`, `1.5e+300`, `5e-324`) is valid JSON.
        output.append(contentsOf: NumberDescription.roundTrip(number).utf8)
    }

    private mutating func writeString(_ text: String) {
        output.append(UInt8(ascii: "\""))
        var source = text
        source.withUTF8 { bytes in
            var runStart = 0
            for (index, byte) in bytes.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                appendEscape(for: byte)
                runStart = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscape(for byte: UInt8) {
        output.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
        case 0x08: output.append(UInt8(ascii: "b"))
        case 0x0C: output.append(UInt8(ascii: "f"))
        case 0x0A: output.append(UInt8(ascii: "n"))
        case 0x0D: output.append(UInt8(ascii: "r"))
        case 0x09: output.append(UInt8(ascii: "t"))
        default:
            // A control character below 0x20: `\u00` then two lowercase hex digits.
            let low = byte & 0x0F
            output.append(contentsOf: "u00".utf8)
            output.append(UInt8(ascii: "0") + (byte >> 4))
            output.append(low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + low - 10)
        }
    }

    /// An invalid-JSON error at the current place in the tree.
    private func invalid(_ detail: String) -> RequestSerializationError {
        RequestSerializationError(.invalidJSON, location: path.description, detail: detail)
    }
}
