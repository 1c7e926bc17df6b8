import CourierCore
import CourierRequestSerialization
import Foundation

/// Query strings (`QueryString.encode`), round trip: a parameter tree built from the input is encoded, then
/// parsed back by an independent reader (split at `&` and the first `=`, percent-decoded by
/// `QueryDecoding`) and compared with the pairs an independent model of the documented rules expects
/// (sorted keys, `key[sub]`, the array and boolean styles, `%.16g` doubles, a null as a name alone, empty
/// collections as nothing). `QueryString.pairs` must list the same pairs.
enum QueryStringFuzz: FuzzTarget {
    static let name = "query-string"

    static func run(_ input: FuzzInput) {
        let options = QueryString.Options(
            arrays: [.brackets, .noBrackets, .indexed][input.int(in: 0...2)],
            booleans: input.bool() ? .numeric : .literal,
            spaces: input.bool() ? .percentEscaped : .plus
        )
        var top: [String: Parameters] = [:]
        for _ in 0..<input.int(in: 0...6) {
            top[input.string(upTo: 8)] = value(from: input, depth: 0)
        }
        let parameters = Parameters.dictionary(top)
        let encoded: String
        do {
            encoded = try QueryString.encode(parameters, options: options)
        } catch {
            fatalError("a dictionary was refused: \(error)")
        }
        var expected: [QueryPair] = []
        for key in top.keys.sorted() { flatten(top[key]!, name: key, options: options, into: &expected) }

        let listed = try! QueryString.pairs(from: parameters, options: options)
        precondition(listed == expected, "pairs(from:) lists \(listed), the rules give \(expected)")

        // A lone null named "" is the one tree whose query is empty: the format cannot tell it from no pairs.
        if encoded.isEmpty {
            precondition(expected.isEmpty || expected == [QueryPair(name: "", value: nil)], "nothing encoded for \(expected)")
            return
        }
        let read = parse(encoded, plusIsSpace: options.spaces == .plus)
        precondition(read == expected, "\(encoded) reads back as \(String(describing: read)), expected \(expected)")
    }

    /// A value from the input, nested at most three levels.
    static func value(from input: FuzzInput, depth: Int) -> Parameters {
        let kind = input.int(in: 0...(depth < 3 ? 9 : 5))
        switch kind {
        case 0: return .null
        case 1: return .bool(input.bool())
        case 2: return .int(Int(Int16(truncatingIfNeeded: input.int(in: 0...65535))) * Int(input.byte()))
        case 3: return .double(Double(bitPattern: UInt64(input.int(in: 0...65535)) << 48 | UInt64(input.int(in: 0...65535))))
        case 4: return .string(input.string(upTo: 12))
        case 5: return .data(Data(input.bytes(upTo: 8)))
        case 6, 7: return .array((0..<input.int(in: 0...3)).map { _ in value(from: input, depth: depth + 1) })
        case 8:
            var members: [String: Parameters] = [:]
            for _ in 0..<input.int(in: 0...3) { members[input.string(upTo: 6)] = value(from: input, depth: depth + 1) }
            return .dictionary(members)
        default:
            // A set of scalars only: the model sorts them by their text, as the rules say.
            return .set(Set((0..<input.int(in: 0...3)).map { _ in value(from: input, depth: 3) }.filter(isScalar)))
        }
    }

    static func isScalar(_ value: Parameters) -> Bool {
        switch value {
        case .array, .dictionary, .set: return false
        default: return true
        }
    }

    /// The model: the pairs the documented rules give for `value` named `name`.
    static func flatten(_ value: Parameters, name: String, options: QueryString.Options, into pairs: inout [QueryPair]) {
        switch value {
        case .null: pairs.append(QueryPair(name: name, value: nil))
        case .dictionary(let members):
            for key in members.keys.sorted() { flatten(members[key]!, name: "\(name)[\(key)]", options: options, into: &pairs) }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                let elementName: String
                switch options.arrays {
                case .brackets: elementName = name + "[]"
                case .noBrackets: elementName = name
                case .indexed: elementName = "\(name)[\(index)]"
                }
                flatten(element, name: elementName, options: options, into: &pairs)
            }
        case .set(let elements):
            // Sorted by text, a null as "<null>" (NSNull's description), ties by kind: null, bool, int, double, string, data.
            let sorted = elements.map { (key: text(of: $0, options: options) ?? "<null>", rank: rank(of: $0), text: text(of: $0, options: options)) }
                .sorted { ($0.key, $0.rank) < ($1.key, $1.rank) }
            for element in sorted { pairs.append(QueryPair(name: name, value: element.text)) }
        default:
            pairs.append(QueryPair(name: name, value: text(of: value, options: options)))
        }
    }

    /// The model's order of scalar kinds with the same text.
    static func rank(of value: Parameters) -> Int {
        switch value {
        case .null: return 0
        case .bool: return 1
        case .int: return 2
        case .double: return 3
        case .string: return 4
        default: return 5
        }
    }

    /// A scalar's text (nil for null).
    static func text(of value: Parameters, options: QueryString.Options) -> String? {
        switch value {
        case .null: return nil
        case .bool(let flag): return options.booleans == .numeric ? (flag ? "1" : "0") : (flag ? "true" : "false")
        case .int(let number): return String(number)
        case .double(let number): return number.isNaN ? "nan" : String(format: "%.16g", number)
        case .string(let text): return text
        case .data(let bytes): return String(decoding: bytes, as: UTF8.self)
        default: return nil
        }
    }

    /// The independent reader: pairs split at `&`, name and value at the first `=`, each percent-decoded.
    static func parse(_ query: String, plusIsSpace: Bool) -> [QueryPair]? {
        var pairs: [QueryPair] = []
        for piece in query.split(separator: "&", omittingEmptySubsequences: false) {
            let parts = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = QueryDecoding.decode(String(parts[0]), plusIsSpace: plusIsSpace) else { return nil }
            if parts.count == 1 {
                pairs.append(QueryPair(name: name, value: nil))
            } else {
                guard let value = QueryDecoding.decode(String(parts[1]), plusIsSpace: plusIsSpace) else { return nil }
                pairs.append(QueryPair(name: name, value: value))
            }
        }
        return pairs
    }
}
