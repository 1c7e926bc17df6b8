/// Re-indents a JSON document (two spaces) without parsing it into a tree, so keys stay in the
/// order the server sent them and strings and numbers keep their exact bytes.
///
/// ```swift
/// JSONPrettyPrinter.format(Array(#"{"b":1,"a":[true,{}]}"#.utf8))
/// // {
/// //   "b": 1,
/// //   "a": [
/// //     true,
/// //     {}
/// //   ]
/// // }
/// ```
/// Returns `nil` for a body that is not one valid JSON value; the caller prints it as it is.
enum JSONPrettyPrinter {
    /// The indented document followed by a newline, or `nil` when `bytes` are not JSON.
    static func format(_ bytes: [UInt8], indent: Int = 2) -> [UInt8]? {
        guard RawJSONValue.isValid(bytes) else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + bytes.count / 2)
        var level = 0
        var index = 0
        let space = UInt8(ascii: " ")

        func newline(_ output: inout [UInt8], _ level: Int) {
            output.append(UInt8(ascii: "\n"))
            output.append(contentsOf: repeatElement(space, count: level * indent))
        }
        /// The index of the next byte that is not white space, from `start`.
        func nextSignificant(_ start: Int) -> Int {
            var position = start
            while position < bytes.count, isWhitespace(bytes[position]) { position += 1 }
            return position
        }

        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let end = endOfString(bytes, from: index)
                output.append(contentsOf: bytes[index..<end])
                index = end
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let closing = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                let next = nextSignificant(index + 1)
                if next < bytes.count, bytes[next] == closing {
                    output.append(byte)
                    output.append(closing)
                    index = next + 1
                    continue
                }
                output.append(byte)
                level += 1
                newline(&output, level)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                level -= 1
                newline(&output, level)
                output.append(byte)
            case UInt8(ascii: ","):
                output.append(byte)
                newline(&output, level)
            case UInt8(ascii: ":"):
                output.append(byte)
                output.append(space)
            default:
                if !isWhitespace(byte) { output.append(byte) }
            }
            index += 1
        }
        output.append(UInt8(ascii: "\n"))
        return output
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The index just past the string starting at `start` (a `"`), escapes included.
    private static func endOfString(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return bytes.count
    }
}
