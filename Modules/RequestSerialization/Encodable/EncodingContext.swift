import CourierCore
import FoundationEssentials

/// What one ``ParametersEncoder/encode(_:)`` call shares across its containers: the options,
/// the first misuse error, and the converted key names.
///
/// Container requests cannot throw (`Encoder.container(keyedBy:)` is not `throws`), so a misuse
/// there (a keyed container asked of a node that is already an array) is recorded here and
/// thrown when the top-level call returns, instead of stopping the program.
final class EncodingContext {
    let options: ParametersEncoder
    let userInfo: [CodingUserInfoKey: Any]
    private(set) var firstError: EncodingError?
    /// Converted names by original key, so an array of a thousand structs converts each name once.
    private var convertedKeys: [String: String] = [:]

    init(options: ParametersEncoder) {
        self.options = options
        self.userInfo = options.userInfo.mapValues { $0 as Any }
    }

    /// Remembers `error` when it is the first.
    func record(_ error: EncodingError) {
        if firstError == nil { firstError = error }
    }

    /// An `EncodingError.invalidValue` for `value` at `path`.
    func invalid(_ value: Any, at path: [any CodingKey], _ description: String) -> EncodingError {
        EncodingError.invalidValue(value, EncodingError.Context(codingPath: path, debugDescription: description))
    }

    /// The parameter name for a property's coding key, as the key strategy says.
    func name(for key: some CodingKey) -> String {
        let original = key.stringValue
        switch options.keyEncodingStrategy {
        case .useDefaultKeys:
            return original
        case .convertToSnakeCase:
            return converted(original) { SnakeCase.convert($0) }
        case .custom(let transform):
            return converted(original, transform)
        }
    }

    private func converted(_ key: String, _ transform: (String) -> String) -> String {
        if let known = convertedKeys[key] { return known }
        let name = transform(key)
        convertedKeys[key] = name
        return name
    }

    // MARK: Values

    /// The tree of any encodable `value` at `path`: scalars and the types with a strategy
    /// directly, everything else through its own `encode(to:)`.
    func box<Value: Encodable>(_ value: Value, at path: [any CodingKey]) throws -> Parameters {
        // The common scalars first: generic containers (arrays, dictionaries) send every
        // element through here.
        switch value {
        case let text as String: return .string(text)
        case let number as Int: return .int(number)
        case let flag as Bool: return .bool(flag)
        case let number as Double: return .double(number)
        case let date as Date: return try box(date, at: path)
        case let data as Data: return try box(data, at: path)
        case let url as URL: return .string(url.absoluteString)
        case let decimal as Decimal: return try box(decimal, at: path)
        case let dictionary as any StringKeyedEncodableDictionary:
            return try dictionary.parameters(in: self, at: path)
        default:
            return try encodeThroughNode(value, at: path)
        }
    }

    /// `value` encoded by its own `encode(to:)` into a fresh node.
    private func encodeThroughNode(_ value: some Encodable, at path: [any CodingKey]) throws -> Parameters {
        let node = EncodingNode()
        try value.encode(to: NodeEncoder(node: node, context: self, codingPath: path))
        return node.parameters
    }

    private func box(_ date: Date, at path: [any CodingKey]) throws -> Parameters {
        switch options.dateEncodingStrategy {
        case .iso8601: return .string(Date.ISO8601FormatStyle().format(date))
        case .secondsSince1970: return .double(date.timeIntervalSince1970)
        case .millisecondsSince1970: return .double(date.timeIntervalSince1970 * 1000)
        case .deferredToDate: return try encodeThroughNode(date, at: path)
        case .custom(let closure): return try closure(date)
        }
    }

    private func box(_ data: Data, at path: [any CodingKey]) throws -> Parameters {
        switch options.dataEncodingStrategy {
        case .base64: return .string(data.base64EncodedString())
        case .raw: return .data(data)
        case .custom(let closure): return try closure(data)
        }
    }

    private func box(_ decimal: Decimal, at path: [any CodingKey]) throws -> Parameters {
        let text = decimal.description
        switch options.decimalEncodingStrategy {
        case .string:
            return .string(text)
        case .double:
            guard let number = Double(text) else {
                throw invalid(decimal, at: path, "the Decimal \(text) has no Double form; use DecimalEncodingStrategy.string")
            }
            return .double(number)
        }
    }

    /// An integer of any width as `.int`, or an error when `Int` cannot hold it.
    func integer<Number: BinaryInteger>(_ value: Number, at path: [any CodingKey]) throws -> Parameters {
        guard let number = Int(exactly: value) else {
            throw invalid(value, at: path, "\(Number.self) \(value) is outside Int's range (\(Int.min)...\(Int.max)), the integers Parameters holds; encode it as a String if the server expects it")
        }
        return .int(number)
    }

    /// A `Float` as the double its shortest text reads as, so `0.1` stays `0.1`.
    func float(_ value: Float) -> Parameters {
        guard value.isFinite, let number = Double(value.description) else { return .double(Double(value)) }
        return .double(number)
    }
}

/// A `[String: Value]` dictionary, whose keys are data and so skip the key strategy.
protocol StringKeyedEncodableDictionary {
    /// The dictionary's tree, each value boxed at its key.
    func parameters(in context: EncodingContext, at path: [any CodingKey]) throws -> Parameters
}

extension Dictionary: StringKeyedEncodableDictionary where Key == String, Value: Encodable {
    func parameters(in context: EncodingContext, at path: [any CodingKey]) throws -> Parameters {
        var values: [String: Parameters] = [:]
        values.reserveCapacity(count)
        for (key, value) in self {
            values[key] = try context.box(value, at: path + [PathKey(stringValue: key)])
        }
        return .dictionary(values)
    }
}
