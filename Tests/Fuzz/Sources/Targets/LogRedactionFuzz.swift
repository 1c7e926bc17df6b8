@testable import CourierLogging
import HTTPTypes

/// What CourierLogging writes of a server's bytes: response head lines from libcurl's trace
/// (`Redaction.redactingHeadLines`), header values (`Redaction.fields`), a body sample (`BodySample.render`) and a
/// request target (`Redaction.target`). For every input: no line a server sends can become two lines of a log or
/// carry a control character to a terminal; a credential field's value never appears; query values never
/// appear unless asked; a head keeps its number of lines.
enum LogRedactionFuzz: FuzzTarget {
    static let name = "log-redaction"
    private static let redaction = Redaction(fieldNames: RequestLogging.defaultRedactedFieldNames, logsQueryValues: false)

    static func run(_ input: FuzzInput) {
        switch input.byte() % 4 {
        case 0: headLines(String(decoding: input.rest(), as: UTF8.self))
        case 1: body(Array(input.rest()))
        case 2: fieldValue(String(decoding: input.rest(), as: UTF8.self))
        default: target(String(decoding: input.rest(), as: UTF8.self))
        }
    }

    /// Nothing `LogText` escapes is left in `text`.
    private static func checkOneSafeLine(_ text: String, _ what: String) {
        precondition(!text.unicodeScalars.contains(where: LogText.isUnsafe), "\(what) kept a control character: \(text.debugDescription)")
    }

    private static func headLines(_ text: String) {
        let output = redaction.redactingHeadLines(text)
        let inputLines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
        let outputLines = output.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { String(String.UnicodeScalarView($0)) }
        precondition(inputLines.count == outputLines.count, "\(inputLines.count) lines became \(outputLines.count)")
        for (line, written) in zip(inputLines, outputLines) {
            checkOneSafeLine(written, "a head line")
            let original = String(String.UnicodeScalarView(line))
            guard let colon = original.utf8.firstIndex(of: UInt8(ascii: ":")),
                  let name = HTTPField.Name(String(original[..<colon])),
                  RequestLogging.defaultRedactedFieldNames.contains(name) else { continue }
            precondition(written == "\(original[..<colon]): REDACTED", "a \(name) line written as \(written.debugDescription)")
        }
    }

    private static func body(_ bytes: [UInt8]) {
        let shown = BodySample.render(bytes)
        checkOneSafeLine(shown, "a body sample")
        precondition(!shown.contains("\n"), "a body sample on two lines")
        if let text = String(validating: bytes, as: UTF8.self), !text.unicodeScalars.contains(where: LogText.isUnsafe) {
            precondition(shown == "\"\(text)\"", "plain text \(text.debugDescription) shown as \(shown.debugDescription)")
        }
    }

    private static func fieldValue(_ value: String) {
        // As swift-http-types keeps a value (it makes CR, LF and NUL legal; a server's head goes through the same type).
        var fields = HTTPFields()
        fields.append(HTTPField(name: HTTPField.Name("X-Server")!, value: value))
        fields[.authorization] = value
        let written = redaction.fields(fields)
        precondition(written.count == 2, "\(written.count) fields written of 2")
        for line in written { checkOneSafeLine(line, "a header field") }
        precondition(written[1] == "Authorization: REDACTED", "Authorization written as \(written[1].debugDescription)")
    }

    private static func target(_ path: String) {
        let written = redaction.target(path)
        precondition(!written.utf8.contains(UInt8(ascii: "#")), "a fragment kept: \(written.debugDescription)")
        guard let question = written.utf8.firstIndex(of: UInt8(ascii: "?")) else { return }
        for pair in written[written.utf8.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false) {
            guard let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")) else { continue }
            precondition(pair[pair.utf8.index(after: equals)...] == "REDACTED", "a query value kept: \(pair.debugDescription)")
        }
    }
}
