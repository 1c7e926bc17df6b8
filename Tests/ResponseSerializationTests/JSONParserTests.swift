import CourierCore
import CourierResponseSerialization
import FoundationEssentials
import Testing

/// The parser behind ``JSONResponseSerializer``: RFC 8259, strictly, with positions.
@Suite struct JSONParserTests {
    private func parse(_ text: String) throws -> JSONValue? {
        var serializer = JSONResponseSerializer()
        serializer.allowsFragments = true
        return try serializer.serialize(response(contentType: "application/json", body: text))
    }

    private func failure(_ text: String) -> ResponseSerializationError? {
        #expect(throws: ResponseSerializationError.self) { try parse(text) }
    }

    @Test func scalarsAndNesting() throws {
        #expect(try parse(#"[true,false,null,0,-1,1.5,-0.25e2,1E3,"s",{},[]]"#) == .array([
            .bool(true), .bool(false), .null, .int(0), .int(-1), .double(1.5), .double(-25), .double(1000), .string("s"), .object([:]), .array([]),
        ]))
        #expect(try parse("9223372036854775807") == .int(Int.max))
        #expect(try parse("-9223372036854775808") == .int(Int.min))
        #expect(try parse("9223372036854775808") == .double(9223372036854775808))
        #expect(try parse("\u{FEFF}[1]".replacing("\u{FEFF}", with: "\u{FEFF}")) == .array([.int(1)]))
    }

    @Test func stringEscapesAndUnicode() throws {
        #expect(try parse(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{8}\u{C}\n\r\t"))
        #expect(try parse(#""\u00e9\uD83D\uDE00 é😀""#) == .string("é😀 é😀"))
    }

    @Test(arguments: [
        ("[1,]", "unexpected character ']'"), ("{\"a\" 1}", "expected ':'"), ("[01]", "leading zero"),
        ("[1.]", "a fraction needs digits"), ("[-]", "a number needs digits"), ("[1e]", "an exponent needs digits"),
        ("\"\\x\"", "invalid escape"), ("\"\\uD800\"", "lone high surrogate"), ("\"\\uDC00\"", "lone low surrogate"),
        ("\"a\nb\"", "control character"), ("[1] [2]", "after the document"), ("[tru]", "unexpected character"),
        ("{\"a\":1", "ended inside an object"), ("\"abc", "ended inside a string"), ("[1e400]", "out of range"),
    ])
    func malformedDocumentsFailWithAReason(text: String, reason: String) {
        let error = failure(text)
        #expect(error?.detail.contains(reason) == true, "\(error.map(String.init(describing:)) ?? "no error")")
    }

    @Test func positionsCountLinesAndColumns() {
        let error = failure("{\n  \"a\": 1,\n  \"b\": x\n}")
        #expect(error?.line == 3)
        #expect(error?.column == 8)
        #expect(error?.description.contains("at line 3, column 8") == true)
    }

    @Test func invalidUTF8IsAnErrorNotAReplacement() {
        var data = Data(#"{"a":""#.utf8)
        data.append(contentsOf: [0xC3, 0x28])
        data.append(contentsOf: Data(#""}"#.utf8))
        let error = #expect(throws: ResponseSerializationError.self) {
            try JSONResponseSerializer().serialize(response(contentType: "application/json", data: data))
        }
        #expect(error?.detail.contains("UTF-8") == true)
        #expect(error?.offset == 6)
    }

    @Test func deepNestingIsRefusedNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(failure(deep)?.detail.contains("deeper than") == true)
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect((try? parse(fine)) != nil)
    }
}
