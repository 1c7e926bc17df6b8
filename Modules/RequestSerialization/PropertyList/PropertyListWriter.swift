import CourierCore
import FoundationEssentials

/// An XML property list (format v1.0) for a ``CourierCore/Parameters`` tree, laid out as Apple's
/// writer lays it out (`NSPropertyListXMLFormat_v1_0`), which FoundationEssentials lacks.
///
/// ```xml
/// <?xml version="1.0" encoding="UTF-8"?>
/// <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
/// <plist version="1.0">
/// <dict>
/// 	<key>key</key>
/// 	<string>value</string>
/// </dict>
/// </plist>
/// ```
///
/// - One element per line, indented with a tab per level; an empty dictionary or array is
///   `<dict/>` or `<array/>`. Dictionary keys are sorted by Swift's `<`, so equal parameters give
///   equal bytes.
/// - `.string` → `<string>`, with `&`, `<` and `>` escaped as `&amp;` `&lt;` `&gt;`, and a carriage
///   return as `&#13;` (an XML reader would otherwise turn CR LF into LF). Other control
///   characters but tab and line feed cannot appear in XML 1.0, escaped or not, and throw.
/// - `.int` → `<integer>`; `.bool` → `<true/>`/`<false/>`; `.data` → `<data>` with base64 in
///   lines of 76 characters.
/// - `.double` → `<real>` in the shortest text that reads back exactly (`1.5`, `2`, `1e+16`).
///   NaN and infinities are written as Apple's writer writes them, `nan`, `+infinity` and
///   `-infinity`, which Apple's reader accepts; so AFNetworking sends them too.
/// - `.null` and `.set` have no property-list form and throw
///   ``RequestSerializationError/Reason/invalidPropertyList`` naming the place in the tree.
/// - Any value may be the top level (a property list can be a lone string).
struct PropertyListWriter {
    /// The bytes written so far.
    private(set) var output: [UInt8] = []
    /// Where the writer is in the tree, for error messages.
    private var path = ParameterPath()

    /// What precedes the root element.
    static let prologue = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    /// The XML property-list bytes of `parameters`.
    ///
    /// - Throws: ``RequestSerializationError/Reason/invalidPropertyList`` naming the offending value.
    static func encode(_ parameters: Parameters) throws(RequestSerializationError) -> [UInt8] {
        var writer = PropertyListWriter()
        writer.output.append(contentsOf: prologue.utf8)
        try writer.write(parameters, depth: 0)
        writer.output.append(contentsOf: "</plist>\n".utf8)
        return writer.output
    }

    private mutating func write(_ value: Parameters, depth: Int) throws(RequestSerializationError) {
        switch value {
        case .null:
            throw invalid("null has no property-list form (property lists have no null); leave the key out instead")
        case .set:
            throw invalid("a set has no property-list form (property lists have no unordered collection); pass an array")
        case .bool(let flag):
            line(flag ? "<true/>" : "<false/>", depth: depth)
        case .int(let number):
            line("<integer>" + String(number) + "</integer>", depth: depth)
        case .double(let number):
            line("<real>" + Self.realText(number) + "</real>", depth: depth)
        case .string(let text):
            indent(depth)
            output.append(contentsOf: "<string>".utf8)
            try appendEscaped(text)
            output.append(contentsOf: "</string>\n".utf8)
        case .data(let bytes):
            writeData(bytes, depth: depth)
        case .array(let elements):
            guard !elements.isEmpty else { return line("<array/>", depth: depth) }
            line("<array>", depth: depth)
            for (index, element) in elements.enumerated() {
                path.push(index: index)
                try write(element, depth: depth + 1)
                path.pop()
            }
            line("</array>", depth: depth)
        case .dictionary(let values):
            guard !values.isEmpty else { return line("<dict/>", depth: depth) }
            line("<dict>", depth: depth)
            for (key, nested) in values.sorted(by: { $0.key < $1.key }) {
                path.push(key: key)
                indent(depth + 1)
                output.append(contentsOf: "<key>".utf8)
                try appendEscaped(key)
                output.append(contentsOf: "</key>\n".utf8)
                try write(nested, depth: depth + 1)
                path.pop()
            }
            line("</dict>", depth: depth)
        }
    }

    /// A `<real>`'s text: exact for finite numbers, Apple's words for the others.
    static func realText(_ number: Double) -> String {
        if number.isNaN { return "nan" }
        if number.isInfinite { return number < 0 ? "-infinity" : "+infinity" }
        return NumberDescription.roundTrip(number)
    }

    /// `<data>`, the base64 text in lines of 76 characters, `</data>`, as Apple's writer wraps it.
    private mutating func writeData(_ bytes: Data, depth: Int) {
        line("<data>", depth: depth)
        let base64 = Array(bytes.base64EncodedString().utf8)
        var start = 0
        while start < base64.count {
            let end = min(start + 76, base64.count)
            indent(depth)
            output.append(contentsOf: base64[start..<end])
            output.append(UInt8(ascii: "\n"))
            start = end
        }
        line("</data>", depth: depth)
    }

    private mutating func line(_ element: String, depth: Int) {
        indent(depth)
        output.append(contentsOf: element.utf8)
        output.append(UInt8(ascii: "\n"))
    }

    private mutating func indent(_ depth: Int) {
        output.append(contentsOf: repeatElement(UInt8(ascii: "\t"), count: depth))
    }

    /// Appends `text` with `&`, `<`, `>` and CR escaped, copying runs that need nothing as they are.
    ///
    /// - Throws: for a character XML 1.0 cannot carry: a C0 control other than tab, line feed
    ///   and carriage return, or the non-characters U+FFFE and U+FFFF.
    private mutating func appendEscaped(_ text: String) throws(RequestSerializationError) {
        var source = text
        let refused: UInt32? = source.withUTF8 { bytes in
            var runStart = 0
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                let entity: String
                switch byte {
                case UInt8(ascii: "&"): entity = "&amp;"
                case UInt8(ascii: "<"): entity = "&lt;"
                case UInt8(ascii: ">"): entity = "&gt;"
                case 0x0D: entity = "&#13;"
                case 0x09, 0x0A:
                    index += 1
                    continue
                case 0x00..<0x20:
                    return UInt32(byte)
                case 0xEF where index + 2 < bytes.count && bytes[index + 1] == 0xBF && bytes[index + 2] >= 0xBE:
                    // EF BF BE and EF BF BF are U+FFFE and U+FFFF.
                    return 0xFFFE + UInt32(bytes[index + 2] - 0xBE)
                default:
                    index += 1
                    continue
                }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                output.append(contentsOf: entity.utf8)
                index += 1
                runStart = index
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
            return nil
        }
        if let refused {
            let hex = String(refused, radix: 16, uppercase: true)
            let padded = String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            throw invalid("U+\(padded) cannot appear in an XML property list (XML 1.0 allows no control character but tab, line feed and carriage return, and no U+FFFE or U+FFFF)")
        }
    }

    /// An invalid-property-list error at the current place in the tree.
    private func invalid(_ detail: String) -> RequestSerializationError {
        RequestSerializationError(.invalidPropertyList, location: path.description, detail: detail)
    }
}
