import CourierCore
import Testing

@Suite("Parameters")
struct ParametersTests {
    @Test func literalsBuildTheTree() {
        let parameters: Parameters = ["a": [1, 2.5, "x", nil, true], "b": ["c": "d"]]
        #expect(parameters == .dictionary([
            "a": .array([.int(1), .double(2.5), .string("x"), .null, .bool(true)]),
            "b": .dictionary(["c": .string("d")]),
        ]))
    }

    @Test func nanEqualsItselfSoSetsStayDistinct() {
        let nan = Parameters.double(.nan)
        #expect(nan == nan)
        #expect(Set([nan, nan, .double(0), .double(-0.0)]).count == 2)
    }

    @Test func emptyCollectionsAreRecognised() {
        #expect(Parameters.array([]).isEmptyCollection)
        #expect(Parameters.dictionary([:]).isEmptyCollection)
        #expect(!Parameters.string("").isEmptyCollection)
    }
}
