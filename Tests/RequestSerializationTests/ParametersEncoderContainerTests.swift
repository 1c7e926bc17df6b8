import CourierCore
import CourierRequestSerialization
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

@Suite("Parameters encoder: containers, errors and entry points")
struct ParametersEncoderContainerTests {
    let encoder = ParametersEncoder()

    // MARK: Containers by hand

    struct Manual: Encodable {
        func encode(to encoder: any Encoder) throws {
            var root = encoder.container(keyedBy: PathKeyed.self)
            var nested = root.nestedContainer(keyedBy: PathKeyed.self, forKey: .init("meta"))
            try nested.encode("v1", forKey: .init("version"))
            var list = root.nestedUnkeyedContainer(forKey: .init("list"))
            try list.encode(1)
            var inner = list.nestedContainer(keyedBy: PathKeyed.self)
            try inner.encodeNil(forKey: .init("gone"))
            var deeper = list.nestedUnkeyedContainer()
            try deeper.encode("x")
            try list.encode(UInt8(3))
            #expect(list.count == 4)
        }
    }

    struct PathKeyed: CodingKey {
        let stringValue: String
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    @Test func nestedContainersFilledAfterTheyAreLinked() throws {
        #expect(try encoder.encode(Manual()) == ["meta": ["version": "v1"], "list": [1, ["gone": nil], ["x"], 3]])
    }

    class Animal: Encodable {
        let legs: Int
        init(legs: Int) { self.legs = legs }
        enum CodingKeys: String, CodingKey { case legs }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(legs, forKey: .legs)
        }
    }

    final class Dog: Animal {
        let name: String
        init(name: String) {
            self.name = name
            super.init(legs: 4)
        }
        enum DogKeys: String, CodingKey { case name, parent }
        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: DogKeys.self)
            try container.encode(name, forKey: .name)
            try super.encode(to: container.superEncoder())
            try super.encode(to: container.superEncoder(forKey: .parent))
            var list = container.nestedUnkeyedContainer(forKey: .name)   // replaces `name`
            try super.encode(to: list.superEncoder())
        }
    }

    @Test func superEncodersNestTheSuperclass() throws {
        #expect(try encoder.encode(Dog(name: "Rex")) == ["super": ["legs": 4], "parent": ["legs": 4], "name": [["legs": 4]]])
    }

    final class Flat: Animal {
        override func encode(to encoder: any Encoder) throws {
            try super.encode(to: encoder)   // the same encoder: one keyed container, shared
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(legs * 2, forKey: .legs)
        }
    }

    @Test func askingTwiceForTheSameKeyedContainerShares() throws {
        #expect(try encoder.encode(Flat(legs: 2)) == ["legs": 4])
    }

    // MARK: Misuse and errors

    struct KeyedThenUnkeyed: Encodable {
        func encode(to encoder: any Encoder) throws {
            var keyed = encoder.container(keyedBy: PathKeyed.self)
            try keyed.encode(1, forKey: .init("a"))
            var unkeyed = encoder.unkeyedContainer()
            try unkeyed.encode(2)
        }
    }

    struct UnkeyedThenKeyed: Encodable {
        func encode(to encoder: any Encoder) throws {
            var unkeyed = encoder.unkeyedContainer()
            try unkeyed.encode(2)
            _ = encoder.container(keyedBy: PathKeyed.self)
        }
    }

    struct TwoSingles: Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(1)
            try container.encode("again")
        }
    }

    struct SingleThenGeneric: Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(1)
            try container.encode(ParametersEncoderTests.Address(city: "x", zip: nil))
        }
    }

    struct SingleAfterKeyed: Encodable {
        func encode(to encoder: any Encoder) throws {
            var keyed = encoder.container(keyedBy: PathKeyed.self)
            try keyed.encode(1, forKey: .init("a"))
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        }
    }

    @Test func misusedContainersThrowInsteadOfCrashing() {
        #expect(throws: EncodingError.self) { _ = try encoder.encode(KeyedThenUnkeyed()) }
        #expect(throws: EncodingError.self) { _ = try encoder.encode(UnkeyedThenKeyed()) }
        #expect(throws: EncodingError.self) { _ = try encoder.encode(TwoSingles()) }
        #expect(throws: EncodingError.self) { _ = try encoder.encode(SingleThenGeneric()) }
        #expect(throws: EncodingError.self) { _ = try encoder.encode(["nested": [SingleAfterKeyed()]]) }
    }

    struct Refusing: Encodable {
        func encode(to encoder: any Encoder) throws { throw MarkerError(id: 22) }
    }

    @Test func aValuesOwnErrorReachesTheCaller() {
        #expect(throws: MarkerError(id: 22)) { _ = try encoder.encode(["a": [Refusing()]]) }
    }

    struct UserInfoReader: Encodable {
        static let key = CodingUserInfoKey(rawValue: "tenant")!
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(encoder.userInfo[Self.key] as? String ?? "none")
        }
    }

    @Test func userInfoReachesEveryEncodeCall() throws {
        let withInfo = ParametersEncoder(userInfo: [UserInfoReader.key: "acme"])
        #expect(try withInfo.encode(["t": UserInfoReader()]) == ["t": "acme"])
        #expect(try encoder.encode(["t": UserInfoReader()]) == ["t": "none"])
    }

    // MARK: Entry points

    struct Search: Encodable { let query: String; let page: Int; let exact: Bool }

    @Test func parametersInitializerAndFormEncoder() throws {
        let search = Search(query: "a b", page: 2, exact: false)
        #expect(try Parameters(encoding: search) == ["query": "a b", "page": 2, "exact": false])
        #expect(try FormEncoder().encode(search) == "exact=0&page=2&query=a%20b")
        let plus = FormEncoder(queryOptions: .init(booleans: .literal, spaces: .plus))
        #expect(try plus.encode(search) == "exact=false&page=2&query=a+b")
        #expect(throws: RequestSerializationError.self) { _ = try FormEncoder().encode([1, 2]) }
    }

    @Test func everySerializerTakesAnEncodable() async throws {
        let search = Search(query: "a b", page: 2, exact: true)
        let get = try HTTPRequestSerializer().serialize(try makeRequest(.get, "http://example.com/s"), encodable: search)
        #expect(get.request.path == "/s?exact=1&page=2&query=a%20b")
        let form = try HTTPRequestSerializer().serialize(try makeRequest(.post, "http://example.com/s"), encodable: search)
        #expect(try await text(of: form.body) == "exact=1&page=2&query=a%20b")
        let json = try JSONRequestSerializer().serialize(try makeRequest(.post, "http://example.com/s"), encodable: search)
        #expect(try await text(of: json.body) == #"{"exact":true,"page":2,"query":"a b"}"#)
        let plist = try PropertyListRequestSerializer().serialize(try makeRequest(.post, "http://example.com/s"), encodable: search)
        #expect(try await text(of: plist.body)?.contains("<key>query</key>\n\t<string>a b</string>") == true)
        let snake = ParametersEncoder(keyEncodingStrategy: .convertToSnakeCase)
        struct Named: Encodable { let firstName: String }
        let named = try HTTPRequestSerializer().serialize(try makeRequest(.get, "http://example.com/"), encodable: Named(firstName: "A"), encoder: snake)
        #expect(named.request.path == "/?first_name=A")
    }

    @Test func anEncodableReachesASessionCallAsParameters() async throws {
        // Session calls take `Parameters?`: encode at the call site.
        let transport = MockTransport(always: .status(.ok))
        let session = Session(configuration: SessionConfiguration(requestSerializer: JSONRequestSerializer()), transport: transport)
        let search = Search(query: "q", page: 1, exact: false)
        _ = try await session.post("http://example.com/search", parameters: ParametersEncoder().encode(search)).response
        let sent = try #require(transport.requests.first)
        #expect(sent.body.map { String(decoding: $0, as: UTF8.self) } == #"{"exact":false,"page":1,"query":"q"}"#)
    }
}
