import CourierCore
@testable import CourierResponseSerialization
import FoundationEssentials
import HTTPTypes

/// The property-list serializer (`PropertyListDepthCheck`, then Foundation's `PropertyListDecoder`): any body ends in a
/// value or a typed `ResponseSerializationError`, never a crash, a runaway recursion or a runaway allocation, and a
/// value that decodes nests no deeper than the check allows. The decoder recurses once per level, so what reaches it
/// unchecked can run off the stack: that is what this target looks for.
///
/// Four kinds of body, chosen by the first byte, because random bytes almost never make a plist at all:
/// - the bytes as they are;
/// - a binary plist built from the fuzzer's choices: up to 12 objects (arrays, dictionaries, sets, strings,
///   integers, booleans) whose references point anywhere, themselves and past the last object included, with
///   lengths written short or long, and sometimes one byte changed (the header's too: the decoder takes any
///   `bplist0?` for binary, which this target found);
/// - an XML plist made of tokens (containers opened with spaces, tabs, line feeds or attributes in their tags,
///   closes, leaves, comments, CDATA sections and processing instructions holding tags), each repeated up to 2,000
///   times so deep nesting is one choice away;
/// - an OpenStep plist (`(a, (b))`, `{k = v;}`), which the decoder also reads, made the same way.
enum PropertyListFuzz: FuzzTarget {
    static let name = "property-list"

    static func run(_ input: FuzzInput) {
        let body: Data
        switch input.int(in: 0...3) {
        case 0: body = Data(input.rest())
        case 1: body = binary(input)
        case 2: body = xml(input)
        default: body = openStep(input)
        }
        let response = DataResponse(
            request: HTTPRequest(method: .get, scheme: "http", authority: "fuzz.test", path: "/"),
            head: HTTPResponse(status: .ok, headerFields: [.contentType: "application/x-plist"]),
            data: body
        )
        let value: PropertyListValue?
        do {
            value = try PropertyListResponseSerializer().serialize(response)
        } catch {
            return   // a typed refusal is a success
        }
        guard let value else { return }
        let depth = depth(of: value)
        precondition(depth <= PropertyListDepthCheck.maximumDepth + 2, "a value \(depth) levels deep passed the check")
    }

    /// How deep `value` nests (a leaf is 1), without recursion.
    static func depth(of value: PropertyListValue) -> Int {
        var deepest = 0
        var stack = [(value, 1)]
        while let (current, level) = stack.popLast() {
            deepest = max(deepest, level)
            switch current {
            case .array(let values): stack.append(contentsOf: values.map { ($0, level + 1) })
            case .dictionary(let values): stack.append(contentsOf: values.values.map { ($0, level + 1) })
            default: break
            }
        }
        return deepest
    }

    // MARK: Binary plists

    static func binary(_ input: FuzzInput) -> Data {
        let count = input.int(in: 1...12)
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for _ in 0..<count {
            offsets.append(bytes.count)
            switch input.int(in: 0...5) {
            case 0, 1, 2:
                let marker: UInt8 = [0xA0, 0xD0, 0xC0][input.int(in: 0...2)]
                let length = input.int(in: 0...40)
                appendLength(length, marker: marker, long: input.bool(), to: &bytes)
                let references = marker == 0xD0 ? length * 2 : length
                // Each reference: an object of the file, or (rarely) one past the end.
                for _ in 0..<references { bytes.append(UInt8(input.int(in: 0...count))) }
            case 3:
                let text = Array(input.string(upTo: 20).utf8.prefix(14).map { $0 & 0x7F })
                bytes.append(0x50 | UInt8(text.count))
                bytes.append(contentsOf: text)
            case 4:
                bytes.append(0x10)
                bytes.append(input.byte())
            default:
                bytes.append(input.bool() ? 0x09 : 0x08)
            }
        }
        let table = bytes.count
        for offset in offsets { bytes.append(contentsOf: [UInt8(offset >> 8 & 0xFF), UInt8(offset & 0xFF)]) }
        bytes.append(contentsOf: [0, 0, 0, 0, 0, 0, 2, 1])   // offsets of 2 bytes, references of 1
        appendInteger(count, to: &bytes)
        appendInteger(input.int(in: 0...(count - 1)), to: &bytes)
        appendInteger(table, to: &bytes)
        if input.int(in: 0...3) == 0 {   // one byte changed anywhere
            let position = input.int(in: 0...(bytes.count - 1))
            bytes[position] = input.byte()
        }
        return Data(bytes)
    }

    /// A container's marker with its length: in the marker's low bits, or (when asked, or over 14) as an integer
    /// object after a marker of 0xF.
    static func appendLength(_ length: Int, marker: UInt8, long: Bool, to bytes: inout [UInt8]) {
        if length < 15, !long {
            bytes.append(marker | UInt8(length))
        } else {
            bytes.append(contentsOf: [marker | 0x0F, 0x11, UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)])
        }
    }

    static func appendInteger(_ value: Int, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) })
    }

    // MARK: XML plists

    static let tokens = [
        "<array>", "<array\n>", "<array\t>", "<array foo=\"a>b\">", "<dict>", "<dict\r\n>", "<array/>", "<dict/>",
        "</array>", "</array\n>", "</dict>", "<key>k</key>", "<string>s</string>", "<integer>7</integer>", "<true/>",
        "<!-- <array> -->", "<![CDATA[<array>]]>", "<?pi <array> ?>", "<data>AAAA</data>", "<real>1.5</real>",
    ]

    static let openStepTokens = ["(", ")", "{", "}", "a", "\"b\"", ",", ";", "=", "<0a>", "/* ( */", " "]

    static func openStep(_ input: FuzzInput) -> Data {
        var text = ""
        for _ in 0..<input.int(in: 0...12) {
            let token = openStepTokens[input.int(in: 0...(openStepTokens.count - 1))]
            text += String(repeating: token, count: input.int(in: 1...2000))
        }
        return Data(text.utf8)
    }

    static func xml(_ input: FuzzInput) -> Data {
        var text = input.bool() ? "<?xml version=\"1.0\" encoding=\"UTF-8\"?>" : ""
        text += "<plist version=\"1.0\">"
        for _ in 0..<input.int(in: 0...12) {
            let token = tokens[input.int(in: 0...(tokens.count - 1))]
            text += String(repeating: token, count: input.int(in: 1...2000))
        }
        if input.bool() { text += "</plist>" }
        return Data(text.utf8)
    }
}
