import CourierCore
import FoundationEssentials

/// Writes a query string straight into one UTF-8 buffer, by ``QueryString``'s rules.
///
/// Escaping works byte by byte, so the escaped name `a[b][]` is the escaped `a`, then `%5B`, the
/// escaped `b`, `%5D%5B%5D`. The writer keeps the escaped name of the current value in a second
/// buffer, appends a level on the way down and cuts it back on the way up: each key is escaped
/// once, however many values sit below it, and no intermediate string is built per pair. The
/// output is byte for byte what joining ``QueryString/pairs(from:options:)``' escaped pairs gives.
struct QueryWriter {
    private let options: QueryString.Options
    private let spacesAsPlus: Bool
    /// The query so far.
    private var output: [UInt8] = []
    /// The escaped name of the value being written.
    private var name: [UInt8] = []
    /// True once a pair is written, so the next one is preceded by `&` (a pair can be empty).
    private var wrotePair = false

    init(options: QueryString.Options) {
        self.options = options
        self.spacesAsPlus = options.spaces == .plus
        output.reserveCapacity(256)
        name.reserveCapacity(64)
    }

    /// The query written so far.
    var result: String { String(decoding: output, as: UTF8.self) }

    /// Writes the pairs of a top-level dictionary, whose keys are bare names.
    mutating func writeTopLevel(_ values: [String: Parameters]) {
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            name.removeAll(keepingCapacity: true)
            Self.appendEscaped(key, to: &name, spacesAsPlus: spacesAsPlus)
            write(value)
        }
    }

    /// Writes the pairs of `value` under the current name.
    private mutating func write(_ value: Parameters) {
        switch value {
        case .dictionary(let values):
            let mark = name.count
            for (key, nested) in values.sorted(by: { $0.key < $1.key }) {
                Self.appendBracket(UInt8(ascii: "B"), to: &name)
                Self.appendEscaped(key, to: &name, spacesAsPlus: spacesAsPlus)
                Self.appendBracket(UInt8(ascii: "D"), to: &name)
                write(nested)
                name.removeSubrange(mark...)
            }
        case .array(let elements):
            writeElements(of: elements)
        case .set(let elements):
            for element in Parameters.setElementsInQueryOrder(elements, arrays: options.arrays, booleans: options.booleans) {
                write(element)
            }
        case .null:
            startPair()
        case .bool(let flag):
            startPair()
            output.append(UInt8(ascii: "="))
            switch options.booleans {
            case .numeric: output.append(flag ? UInt8(ascii: "1") : UInt8(ascii: "0"))
            case .literal: output.append(contentsOf: (flag ? "true" : "false").utf8)
            }
        case .int(let number):
            // Digits and `-` never need escaping.
            startPair()
            output.append(UInt8(ascii: "="))
            output.append(contentsOf: String(number).utf8)
        case .double(let number):
            writeValue(NumberDescription.of(number))
        case .string(let text):
            writeValue(text)
        case .data(let bytes):
            writeValue(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// Writes each element of an array under its name: `[]`, nothing, or `[index]` added.
    private mutating func writeElements(of elements: [Parameters]) {
        let mark = name.count
        switch options.arrays {
        case .brackets:
            Self.appendBracket(UInt8(ascii: "B"), to: &name)
            Self.appendBracket(UInt8(ascii: "D"), to: &name)
            for element in elements { write(element) }
        case .noBrackets:
            for element in elements { write(element) }
        case .indexed:
            for (index, element) in elements.enumerated() {
                Self.appendBracket(UInt8(ascii: "B"), to: &name)
                name.append(contentsOf: String(index).utf8)
                Self.appendBracket(UInt8(ascii: "D"), to: &name)
                write(element)
                name.removeSubrange(mark...)
            }
        }
        name.removeSubrange(mark...)
    }

    /// Writes `&` when needed and the current name.
    private mutating func startPair() {
        if wrotePair { output.append(UInt8(ascii: "&")) }
        wrotePair = true
        output.append(contentsOf: name)
    }

    /// Writes a pair whose value is `text`, escaped.
    private mutating func writeValue(_ text: String) {
        startPair()
        output.append(UInt8(ascii: "="))
        Self.appendEscaped(text, to: &output, spacesAsPlus: spacesAsPlus)
    }

    /// Appends `text` escaped, spaces as `spacesAsPlus` says.
    ///
    /// Static on purpose: an instance method called with `&self.output` would make Swift copy
    /// `self` for the call, and the copy's reference to the buffer would force a full copy of
    /// it on every append.
    private static func appendEscaped(_ text: String, to buffer: inout [UInt8], spacesAsPlus: Bool) {
        PercentEscaping.append(escaping: text, to: &buffer, spacesAsPlus: spacesAsPlus)
    }

    /// Appends an escaped bracket: `%5B` for `[` (`last` is `B`), `%5D` for `]` (`last` is `D`).
    @inline(__always)
    private static func appendBracket(_ last: UInt8, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "%"))
        buffer.append(UInt8(ascii: "5"))
        buffer.append(last)
    }
}
