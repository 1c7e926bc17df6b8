@testable import CourierCLI
import CourierCore
@testable import CourierResponseSerialization
import Foundation

/// The CLI's `name:=json` parser (`JSONValueParser`) against the response parser (`JSONParser`): two
/// independent implementations of RFC 8259 must accept the same texts and read the same values. Either one
/// accepting what the other refuses is a bug in one of them.
enum CLIJSONFuzz: FuzzTarget {
    static let name = "cli-json"

    static func run(_ input: FuzzInput) {
        let bytes = input.bytes
        // JSONParser skips a UTF-8 byte order mark (RFC 8259 §8.1 allows it); a command-line argument never has one.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return }
        let cli: Parameters?
        do {
            cli = try JSONValueParser.parse(bytes)
        } catch {
            precondition(error.offset >= 0 && error.offset <= bytes.count, "error offset \(error.offset) outside the input")
            cli = nil
        }
        let response = try? JSONParser.parse(Data(bytes), options: JSONParser.Options(allowsFragments: true, removesNulls: false))
        switch (cli, response) {
        case (nil, nil): return
        case (let cli?, nil): fatalError("JSONValueParser accepted what JSONParser refuses: \(cli)")
        case (nil, let response?): fatalError("JSONParser accepted what JSONValueParser refuses: \(response)")
        case (let cli?, let response?):
            precondition(cli == JSONFuzz.parameters(response), "the parsers disagree: \(cli) against \(response)")
        }
    }
}
