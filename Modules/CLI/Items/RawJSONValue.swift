import CourierCore
import CourierResponseSerialization
import Foundation

/// The value of a `name:=json` item: one JSON text (RFC 8259, any value at the top level), read by
/// the parser that reads responses, so the command line accepts exactly the JSON Courier accepts
/// from a server.
///
/// ```swift
/// try RawJSONValue.parse(#"{"tags":["a","b"],"n":1.5}"#)   // ["tags": ["a", "b"], "n": 1.5]
/// ```
enum RawJSONValue {
    /// Nesting beyond this is refused, so a hostile argument cannot exhaust the stack.
    static let maximumDepth = JSONParser.maximumDepth

    /// The parameters `text` holds; the error names the line, the column and what was wrong there.
    static func parse(_ text: String) throws(JSONParser.Failure) -> Parameters {
        Parameters(try JSONParser.parse(Data(text.utf8), options: JSONParser.Options(allowsFragments: true)))
    }

    /// True when `bytes` hold exactly one JSON value (white space around it allowed).
    static func isValid(_ bytes: [UInt8]) -> Bool {
        (try? JSONParser.parse(Data(bytes), options: JSONParser.Options(allowsFragments: true))) != nil
    }
}
