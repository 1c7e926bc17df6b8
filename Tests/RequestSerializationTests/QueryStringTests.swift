import CourierCore
import CourierRequestSerialization
import FoundationEssentials
import Testing

@Suite("Query strings")
struct QueryStringTests {
    @Test func reservedCharactersInAValue() throws {
        // Checklist 10.
        #expect(try QueryString.encode(["key": " :#[]@!$&'()*+,;=/?"]) == "key=%20%3A%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D/?")
    }

    @Test func alreadyEscapedTextIsEscapedAgain() throws {
        // Checklist 12.
        #expect(
            try QueryString.encode(["key": "%20%21%22%23%24%25%26%27%28%29%2A%2B%2C%2F"])
                == "key=%2520%2521%2522%2523%2524%2525%2526%2527%2528%2529%252A%252B%252C%252F"
        )
    }

    @Test func pairsAreJoinedWithAmpersands() throws {
        // Checklist 16.
        #expect(try QueryString.encode(["key": "value", "key1": "value&"]) == "key=value&key1=value%26")
    }

    @Test func keysSortCaseSensitivelyAscending() throws {
        // Checklist 17; digits sort as text.
        #expect(try QueryString.encode(["b": "1", "a": "2", "B": "3"]) == "B=3&a=2&b=1")
        #expect(try QueryString.encode(["9": "x", "10": "y"]) == "10=y&9=x")
    }

    @Test func nestedDictionariesUseBracketedNames() throws {
        // Checklist 18.
        #expect(try QueryString.encode(["user": ["name": "a b", "age": "3"]]) == "user%5Bage%5D=3&user%5Bname%5D=a%20b")
    }

    @Test func arraysKeepTheirOrder() throws {
        // Checklist 19.
        #expect(try QueryString.encode(["ids": ["b", "a"]]) == "ids%5B%5D=b&ids%5B%5D=a")
    }

    @Test func setsRepeatTheKeySortedWithoutBrackets() throws {
        // Checklist 20.
        #expect(try QueryString.encode(["s": .set(["b", "a"])]) == "s=a&s=b")
        // Sorted by rendered text: 10 < 9 < a.
        #expect(try QueryString.encode(["s": .set([.int(9), .int(10), "a"])]) == "s=10&s=9&s=a")
    }

    @Test func setsOfCollectionsAreDeterministic() throws {
        let parameters: Parameters = ["s": .set([["x": "2"], ["x": "1"], .null])]
        // Sort keys: `<null>` for null, `[x]=1` and `[x]=2` for the dictionaries.
        #expect(try QueryString.encode(parameters) == "s&s%5Bx%5D=1&s%5Bx%5D=2")
    }

    @Test func setElementsWithTheSameTextSortByKind() throws {
        // Found by the query-string fuzz target: `.null` sorts as "<null>", and `.int(1)` and `.bool(true)` both
        // render "1"; a tie left the order to the set's iteration, which differs between sets and processes.
        let elements: [Parameters] = [.string("<null>"), .null, .bool(true), .int(1), .string("1")]
        var queries: Set<String> = []
        for rotation in 0..<elements.count {
            let rotated = Array(elements[rotation...] + elements[..<rotation])
            queries.insert(try QueryString.encode(["s": .set(Set(rotated))]))
            queries.insert(try QueryString.encode(["s": .set(Set(rotated.reversed()))]))
        }
        #expect(queries == ["s=1&s=1&s=1&s&s=%3Cnull%3E"])
    }

    @Test func arraysOfDictionaries() throws {
        // Checklist 21.
        #expect(try QueryString.encode(["a": [["x": "1"], ["x": "2"]]]) == "a%5B%5D%5Bx%5D=1&a%5B%5D%5Bx%5D=2")
    }

    @Test func nullIsTheKeyAloneAndEmptyCollectionsVanish() throws {
        // Checklist 22.
        #expect(try QueryString.encode(["k": nil]) == "k")
        #expect(try QueryString.encode(["e": [], "f": "1"]) == "f=1")
        #expect(try QueryString.encode(["d": [:], "s": .set([]), "z": [[], [:]]]) == "")
        #expect(try QueryString.encode([:]) == "")
    }

    @Test func scalarsRenderAsNSNumberDescriptions() throws {
        // Checklist 23.
        #expect(try QueryString.encode(["n": 1.5, "t": true, "f": false]) == "f=0&n=1.5&t=1")
        #expect(try QueryString.encode(["i": -42, "d": 2.0]) == "d=2&i=-42")
    }

    @Test(arguments: [
        (2.0, "2"), (1.5, "1.5"), (-0.25, "-0.25"), (0.1 + 0.2, "0.3"), (1.0 / 3.0, "0.3333333333333333"),
        (1e15, "1000000000000000"), (1e16, "1e+16"), (123456789012345678.0, "1.234567890123457e+17"),
        (0.0001, "0.0001"), (0.00001, "1e-05"), (-0.0, "-0"), (0.0, "0"),
        (Double.nan, "nan"), (Double.infinity, "inf"), (-Double.infinity, "-inf"),
    ])
    func doublesFollowPercentPointSixteenG(value: Double, expected: String) throws {
        #expect(try QueryString.pairs(from: ["v": .double(value)]) == [QueryPair(name: "v", value: expected)])
    }

    @Test func theExponentSignIsEscaped() throws {
        #expect(try QueryString.encode(["v": 1e300]) == "v=1e%2B300")
    }

    @Test func dataRendersAsItsUTF8Text() throws {
        #expect(try QueryString.encode(["d": .data(Data("hé".utf8))]) == "d=h%C3%A9")
        // Invalid UTF-8 becomes U+FFFD.
        #expect(try QueryString.encode(["d": .data(Data([0x61, 0xFF]))]) == "d=a%EF%BF%BD")
    }

    @Test func keysNeedingEscapingAreEscapedWithTheirBrackets() throws {
        let parameters: Parameters = ["a b": ["c&d": "=", "é": "x"]]
        #expect(try QueryString.encode(parameters) == "a%20b%5Bc%26d%5D=%3D&a%20b%5B%C3%A9%5D=x")
    }

    @Test func deepNestingBuildsLongNames() throws {
        var value: Parameters = "leaf"
        for level in (0..<20).reversed() {
            value = ["k\(level)": value]
        }
        let expectedName = (1..<20).map { "%5Bk\($0)%5D" }.joined()
        #expect(try QueryString.encode(value) == "k0" + expectedName + "=leaf")

        let mixed: Parameters = ["a": [["b": [["c": .set([1, 2])]]]]]
        #expect(try QueryString.encode(mixed) == "a%5B%5D%5Bb%5D%5B%5D%5Bc%5D=1&a%5B%5D%5Bb%5D%5B%5D%5Bc%5D=2")
    }

    @Test func emojiValues() throws {
        let pairs = try QueryString.pairs(from: ["🔑": "👮🏽"])
        #expect(pairs == [QueryPair(name: "🔑", value: "👮🏽")])
        #expect(try QueryString.encode(["🔑": "👮🏽"]) == "%F0%9F%94%91=%F0%9F%91%AE%F0%9F%8F%BD")
    }

    @Test func pairsAreUnescapedAndOrdered() throws {
        let pairs = try QueryString.pairs(from: ["user": ["name": "a b", "tags": ["x"]], "flag": nil])
        #expect(pairs == [
            QueryPair(name: "flag", value: nil),
            QueryPair(name: "user[name]", value: "a b"),
            QueryPair(name: "user[tags][]", value: "x"),
        ])
        #expect(pairs.map(\.description) == ["flag", "user[name]=a b", "user[tags][]=x"])
        #expect(pairs.map(\.percentEscaped) == ["flag", "user%5Bname%5D=a%20b", "user%5Btags%5D%5B%5D=x"])
    }

    @Test(arguments: [Parameters.string("s"), .array(["a"]), .int(1), .null, .set(["a"])])
    func aTopLevelOtherThanADictionaryIsRefused(parameters: Parameters) {
        #expect {
            _ = try QueryString.encode(parameters)
        } throws: { error in
            guard let error = error as? RequestSerializationError else { return false }
            return error.reason == .parametersNotDictionary && error.location == "parameters"
                && error.description.hasPrefix("parameters not a dictionary at parameters: a query string or form body names every value")
        }
    }
}
