import CourierCore
import CourierRequestSerialization
import FoundationEssentials
import HTTPTypes
import CourierTesting
import Testing

@Suite("Query-string options")
struct QueryOptionsTests {
    @Test func theDefaultsAreAFNetworkingsRules() {
        let options = QueryString.Options()
        #expect(options == .default)
        #expect(options.arrays == .brackets)
        #expect(options.booleans == .numeric)
        #expect(options.spaces == .percentEscaped)
    }

    @Test func defaultOptionsGiveTheSameBytesAsNoOptions() throws {
        let parameters: Parameters = ["a b": ["x": [1, true, 2.5, nil]], "s": .set(["b", "a"]), "q": "1+1 = 2"]
        #expect(try QueryString.encode(parameters, options: .default) == QueryString.encode(parameters))
        #expect(try QueryString.encode(parameters) == "a%20b%5Bx%5D%5B%5D=1&a%20b%5Bx%5D%5B%5D=1&a%20b%5Bx%5D%5B%5D=2.5&a%20b%5Bx%5D%5B%5D&q=1%2B1%20%3D%202&s=a&s=b")
    }

    // MARK: Arrays

    @Test func arraysWithoutBracketsRepeatTheKey() throws {
        let options = QueryString.Options(arrays: .noBrackets)
        #expect(try QueryString.encode(["key": ["a", "b"]], options: options) == "key=a&key=b")
        #expect(try QueryString.encode(["u": ["ids": [1, 2]]], options: options) == "u%5Bids%5D=1&u%5Bids%5D=2")
    }

    @Test func indexedArraysNumberTheirElements() throws {
        let options = QueryString.Options(arrays: .indexed)
        #expect(try QueryString.encode(["key": ["a", "b"]], options: options) == "key%5B0%5D=a&key%5B1%5D=b")
        let nested: Parameters = ["m": [["x", "y"], ["z"]], "o": [["k": "v"]]]
        #expect(
            try QueryString.encode(nested, options: options)
                == "m%5B0%5D%5B0%5D=x&m%5B0%5D%5B1%5D=y&m%5B1%5D%5B0%5D=z&o%5B0%5D%5Bk%5D=v"
        )
        // Indices count past 9 as decimal numbers, in array order.
        let many = Parameters.array((0..<12).map { .int($0) })
        let query = try QueryString.encode(["n": many], options: options)
        #expect(query.hasSuffix("n%5B10%5D=10&n%5B11%5D=11"))
    }

    @Test func setsKeepTheirBareKeyWhateverTheArrayStyle() throws {
        for style in [QueryString.Options.ArrayStyle.brackets, .noBrackets, .indexed] {
            #expect(try QueryString.encode(["s": .set(["b", "a"])], options: .init(arrays: style)) == "s=a&s=b")
        }
    }

    // MARK: Booleans

    @Test func literalBooleans() throws {
        let options = QueryString.Options(booleans: .literal)
        #expect(try QueryString.encode(["t": true, "f": false], options: options) == "f=false&t=true")
        #expect(try QueryString.encode(["t": true, "f": false]) == "f=0&t=1")
        // A set of booleans sorts by the text it renders.
        #expect(try QueryString.encode(["s": .set([true, false])], options: options) == "s=false&s=true")
    }

    // MARK: Spaces

    @Test func plusSpacesAndEscapedPluses() throws {
        let options = QueryString.Options(spaces: .plus)
        #expect(try QueryString.encode(["q": "a b+c"], options: options) == "q=a+b%2Bc")
        #expect(try QueryString.encode(["a key": "x"], options: options) == "a+key=x")
        #expect(try QueryString.encode(["q": "a b+c"]) == "q=a%20b%2Bc")
        #expect(PercentEscaping.escape("a b+c", spaces: .plus) == "a+b%2Bc")
        #expect(PercentEscaping.escape("nospace", spaces: .plus) == "nospace")
        #expect(PercentEscaping.escape("   ", spaces: .plus) == "+++")
        #expect(QueryPair(name: "a b", value: "c d").percentEscaped(spaces: .plus) == "a+b=c+d")
    }

    @Test func everyOptionTogether() throws {
        let options = QueryString.Options(arrays: .indexed, booleans: .literal, spaces: .plus)
        #expect(try QueryString.encode(["ids": [7, 8], "on": true, "q": "a b+c"], options: options) == "ids%5B0%5D=7&ids%5B1%5D=8&on=true&q=a+b%2Bc")
    }

    // MARK: Equivalence of the writer and the pairs

    @Test func theWriterMatchesTheEscapedPairsForEveryOption() throws {
        var generator = SplitMix64(seed: 42)
        for round in 0..<300 {
            let tree = Parameters.dictionary(randomDictionary(depth: 3, using: &generator))
            for arrays in [QueryString.Options.ArrayStyle.brackets, .noBrackets, .indexed] {
                for booleans in [QueryString.Options.BoolStyle.numeric, .literal] {
                    for spaces in [QueryString.Options.SpaceStyle.percentEscaped, .plus] {
                        let options = QueryString.Options(arrays: arrays, booleans: booleans, spaces: spaces)
                        let joined = try QueryString.pairs(from: tree, options: options)
                            .map { $0.percentEscaped(spaces: spaces) }
                            .joined(separator: "&")
                        #expect(try QueryString.encode(tree, options: options) == joined, "round \(round), \(options)")
                    }
                }
            }
        }
    }

    @Test func anEmptyNameStillSeparatesPairs() throws {
        // Two pairs with empty text must still be joined by `&`, as the pairs are.
        #expect(try QueryString.encode(["": [nil, nil]], options: .init(arrays: .noBrackets)) == "&")
        #expect(try QueryString.encode(["": "x"]) == "=x")
    }

    // MARK: Serializers

    @Test func serializersApplyTheirQueryOptions() async throws {
        var serializer = HTTPRequestSerializer(defaultHeaderFields: [:])
        #expect(serializer.queryOptions == .default)
        serializer.queryOptions = QueryString.Options(arrays: .noBrackets, booleans: .literal, spaces: .plus)
        let get = try serializer.serialize(try makeRequest(.get, "http://example.com/s"), parameters: ["q": "a b", "t": ["x", "y"], "on": true])
        #expect(get.request.path == "/s?on=true&q=a+b&t=x&t=y")
        let post = try serializer.serialize(try makeRequest(.post, "http://example.com/s"), parameters: ["q": "a b"])
        #expect(try await text(of: post.body) == "q=a+b")

        let json = JSONRequestSerializer(defaultHeaderFields: [:], queryOptions: .init(arrays: .indexed))
        #expect(try json.serialize(try makeRequest(.get, "http://example.com/"), parameters: ["a": [1]]).request.path == "/?a%5B0%5D=1")
        // A body is JSON whatever the query options.
        #expect(try await text(of: json.serialize(try makeRequest(.post, "http://example.com/"), parameters: ["a": [true]]).body) == #"{"a":[true]}"#)
    }

    @Test func aCustomBuilderIgnoresTheOptions() throws {
        let serializer = HTTPRequestSerializer(queryStringBuilder: { _ in "fixed" }, queryOptions: .init(spaces: .plus))
        #expect(try serializer.serialize(try makeRequest(.get, "http://example.com/"), parameters: ["a": "b c"]).request.path == "/?fixed")
    }
}

// MARK: Random trees

/// Keys and strings with spaces, pluses, brackets, non-ASCII and empty text.
private let samples = ["a", "b c", "x+y", "[k]", "é", "👮🏽", "", "A", "%20", "a&b=c"]

func randomScalar(using generator: inout SplitMix64) -> Parameters {
    switch Int.random(in: 0..<7, using: &generator) {
    case 0: return .null
    case 1: return .bool(Bool.random(using: &generator))
    case 2: return .int(Int.random(in: -1000...1000, using: &generator))
    case 3: return .double([1.5, 0.1 + 0.2, 1e300, -0.0, 2][Int.random(in: 0..<5, using: &generator)])
    case 4: return .data(Data((samples.randomElement(using: &generator) ?? "").utf8))
    default: return .string(samples.randomElement(using: &generator) ?? "")
    }
}

func randomValue(depth: Int, using generator: inout SplitMix64) -> Parameters {
    guard depth > 0 else { return randomScalar(using: &generator) }
    switch Int.random(in: 0..<5, using: &generator) {
    case 0: return .dictionary(randomDictionary(depth: depth - 1, using: &generator))
    case 1: return .array((0..<Int.random(in: 0..<4, using: &generator)).map { _ in randomValue(depth: depth - 1, using: &generator) })
    case 2: return .set(Set((0..<Int.random(in: 0..<4, using: &generator)).map { _ in randomValue(depth: depth - 1, using: &generator) }))
    default: return randomScalar(using: &generator)
    }
}

func randomDictionary(depth: Int, using generator: inout SplitMix64) -> [String: Parameters] {
    var values: [String: Parameters] = [:]
    for _ in 0..<Int.random(in: 0..<4, using: &generator) {
        values[samples.randomElement(using: &generator) ?? ""] = randomValue(depth: depth, using: &generator)
    }
    return values
}
