import CourierCore
@testable import CourierRequestSerialization
@testable import CourierResponseSerialization
import Foundation

/// The response JSON parser (`JSONParser`): any bytes end in a value or a `Failure` whose position lies
/// inside the input, never a crash or runaway recursion. A parsed document survives a round trip through
/// `Parameters(_:)` and the request side's `JSONWriter` unchanged (the writer and the parser agree on every
/// value the parser can produce). The parser is also what `courier` reads `name:=json` items and decides what
/// to pretty-print with, so this target covers the command line's JSON too.
enum JSONFuzz: FuzzTarget {
    static let name = "json"

    static func run(_ input: FuzzInput) {
        let data = Data(input.bytes)
        for options in [JSONParser.Options(), JSONParser.Options(allowsFragments: true, removesNulls: false)] {
            let value: JSONValue
            do {
                value = try JSONParser.parse(data, options: options)
            } catch {
                precondition(error.offset >= 0 && error.offset <= input.bytes.count, "failure offset \(error.offset) outside the input")
                precondition(error.line >= 1 && error.column >= 1, "failure at line \(error.line), column \(error.column)")
                continue
            }
            // The writer takes only an array or an object at the top (a request body), so a fragment goes inside
            // an array for the trip.
            let written: [UInt8]
            do {
                written = try JSONWriter.encode(.array([Parameters(value)]))
            } catch {
                fatalError("JSONWriter refused a value JSONParser produced: \(error)")
            }
            let again: JSONValue
            do {
                again = try JSONParser.parse(Data(written), options: JSONParser.Options())
            } catch {
                fatalError("JSONParser refused JSONWriter's output \(String(decoding: written, as: UTF8.self)): \(error)")
            }
            precondition(JSONFuzz.same(.array([value]), again), "round trip changed \(value) into \(again)")
        }
    }

    /// Equal values, where an integral double may come back as an int (the writer prints `2.0` as `2`).
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case let (.double(x), .int(y)), let (.int(y), .double(x)): return x == Double(y) && Double(y).isFinite
        case let (.double(x), .double(y)): return x == y
        case let (.array(x), .array(y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case let (.object(x), .object(y)):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { same(value, $0) } ?? false }
        default: return a == b
        }
    }
}
