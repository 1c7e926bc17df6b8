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

    /// `matches` compares lengths first and then names: it must agree with `==` for names of equal and
    /// unequal lengths, in any case, small strings and large.
    @Test func matchingAgreesWithEquality() throws {
        let spellings = ["Content-Encoding", "content-encoding", "CONTENT-ENCODING", "Content-Length", "content-lengtH",
                         "Date", "date", "X-A", "X-B", "A-Name-Longer-Than-Sixteen-Bytes", "a-name-longer-than-sixteen-bytes",
                         "a-name-longer-than-sixteen-bytez"]
        let names = try spellings.map { try #require(HTTPField.Name($0)) }
        for left in names {
            for right in names {
                #expect(left.matches(right) == (left == right), "\(left.rawName) and \(right.rawName)")
            }
        }
    }
}
