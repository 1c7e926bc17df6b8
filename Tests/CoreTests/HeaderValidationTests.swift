import CourierCore
import HTTPTypes
import Testing

@Suite("Header validation")
struct HeaderValidationTests {
    @Test(arguments: ["a\r\nX-Injected: 1", "a\nb", "a\rb", "nul\u{0}"])
    func valuesWithLineBreaksAreRefused(value: String) {
        #expect {
            _ = try HTTPField.validated(name: "X-Test", value: value)
        } throws: { ($0 as? InvalidRequestError)?.reason == .invalidHeaderValue }
    }

    @Test(arguments: ["", "Bad Name", "Bad:Name", "é"])
    func invalidNamesAreRefused(name: String) {
        #expect {
            _ = try HTTPField.validated(name: name, value: "v")
        } throws: { ($0 as? InvalidRequestError)?.reason == .invalidHeaderName }
    }

    @Test func validPairsBuildFieldsInOrder() throws {
        let fields = try HTTPFields(validating: [("X-A", "1"), ("X-B", "two words"), ("X-A", "3")])
        #expect(fields[values: HTTPField.Name("X-A")!] == ["1", "3"])
        #expect(fields[HTTPField.Name("X-B")!] == "two words")
    }
}
