@testable import CourierCore
import HTTPTypes
import Testing

@Suite("One field's value")
struct SoleValueTests {
    @Test func aNameWithOneFieldHasItsValue() {
        let fields: HTTPFields = [.contentType: "text/plain", .contentLength: "42"]
        #expect(fields.soleValue(.contentType) == "text/plain")
        #expect(fields.contentLength == 42)
    }

    @Test func noneOrTwoFieldsHaveNoSoleValue() {
        var fields: HTTPFields = [.contentType: "text/plain"]
        #expect(fields.soleValue(.contentLength) == nil)
        #expect(fields.contentLength == nil)
        fields.append(HTTPField(name: .contentLength, value: "5"))
        fields.append(HTTPField(name: .contentLength, value: "5"))
        // The subscript would answer "5, 5", which is no length either.
        #expect(fields.soleValue(.contentLength) == nil)
        #expect(fields.contentLength == nil)
    }

    @Test(arguments: ["", "-1x", "1 2", "1e3", "99999999999999999999"])
    func aLengthThatIsNoNumberIsNone(value: String) {
        let fields: HTTPFields = [.contentLength: value]
        #expect(fields.contentLength == nil)
    }
}
