import CourierCore
import CourierMultipart
import CourierRequestSerialization
import FoundationEssentials
import Testing

@Suite struct ParameterPartTests {
    private func partsText(_ parameters: Parameters) async throws -> String {
        var form = try MultipartFormData(boundary: fixedBoundary)
        try form.appendParameters(parameters)
        return String(decoding: try await bytes(of: form.makeBody()), as: UTF8.self)
    }

    private func part(_ name: String, _ value: String) -> String {
        "--\(fixedBoundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
    }

    /// Checklist item 42: nested names unescaped, null as an empty part, sorted.
    @Test func parametersBecomeSortedUnescapedParts() async throws {
        let text = try await partsText(["user": ["name": "x"], "n": nil])
        #expect(text == part("n", "") + part("user[name]", "x") + "--\(fixedBoundary)--\r\n")
    }

    @Test func arraysSetsAndScalarsFollowTheQueryRules() async throws {
        let text = try await partsText(["ids": ["b", "a"], "s": .set(["z", "y"]), "t": true, "f": false, "d": 1.5, "i": 7, "e": [], "k B": "v&"])
        let names = text.split(separator: "form-data; name=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        #expect(names == ["d", "f", "i", "ids[]", "ids[]", "k B", "s", "s", "t"])
        #expect(text.contains(part("ids[]", "b") + part("ids[]", "a")))
        #expect(text.contains(part("s", "y") + part("s", "z")))
        #expect(text.contains(part("t", "1")) && text.contains(part("f", "0")))
        #expect(text.contains(part("d", "1.5")) && text.contains(part("i", "7")))
        #expect(text.contains(part("k B", "v&")))
    }

    @Test func dataParametersAreSentRaw() async throws {
        var form = try MultipartFormData(boundary: fixedBoundary)
        try form.appendParameters(["blob": .data(Data([0xFF, 0x00, 0xFE]))])
        let body = try await bytes(of: form.makeBody())
        #expect(Array(body).firstRange(of: [0x0A, 0xFF, 0x00, 0xFE, 0x0D] as [UInt8]) != nil)
    }

    @Test func nonDictionaryParametersAreATypedError() {
        var form = MultipartFormData()
        let error = #expect(throws: MultipartError.self) { try form.appendParameters(["a", "b"]) }
        #expect(error?.reason == .parametersNotDictionary)
        #expect(error?.description.contains("not an array") == true)
    }

    @Test func partsAreNamedAndOrderedAsTheQueryStringNamesItsPairs() async throws {
        // One set of naming rules (Core's) for queries, form bodies and multipart forms.
        let parameters: Parameters = [
            "user": ["name": "Ada", "tags": ["x", "y"]], "ids": .set([2, 10, 1]), "on": true, "pi": 3.25, "none": nil,
        ]
        let text = try await partsText(parameters)
        let names = text.split(separator: "\r\n").compactMap { line -> String? in
            guard line.hasPrefix("Content-Disposition: form-data; name=\"") else { return nil }
            return String(line.dropFirst("Content-Disposition: form-data; name=\"".count).dropLast())
        }
        let queryPairs = try QueryString.pairs(from: parameters)
        #expect(names == queryPairs.map(\.name))
        #expect(names == ["ids", "ids", "ids", "none", "on", "pi", "user[name]", "user[tags][]", "user[tags][]"])
    }
}
