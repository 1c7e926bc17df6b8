import CourierCore
import CourierRequestSerialization
import FoundationEssentials
import Testing

@Suite("Parameters encoder")
struct ParametersEncoderTests {
    let encoder = ParametersEncoder()

    // MARK: Shapes

    struct Address: Encodable {
        let city: String
        let zip: String?
    }

    struct User: Encodable {
        let name: String
        let age: Int
        let admin: Bool
        let score: Double
        let nickname: String?
        let address: Address
        let tags: [String]
        let previous: [Address]
    }

    @Test func structsBecomeDictionariesAndNilOptionalsAreLeftOut() throws {
        let user = User(
            name: "Ada", age: 36, admin: true, score: 1.5, nickname: nil,
            address: Address(city: "London", zip: nil), tags: ["a", "b"],
            previous: [Address(city: "Paris", zip: "75001"), Address(city: "Rome", zip: nil)]
        )
        let expected: Parameters = [
            "name": "Ada", "age": 36, "admin": true, "score": 1.5,
            "address": ["city": "London"], "tags": ["a", "b"],
            "previous": [["city": "Paris", "zip": "75001"], ["city": "Rome"]],
        ]
        #expect(try encoder.encode(user) == expected)
        #expect(
            try QueryString.encode(encoder.encode(user))
                == "address%5Bcity%5D=London&admin=1&age=36&name=Ada&previous%5B%5D%5Bcity%5D=Paris&previous%5B%5D%5Bzip%5D=75001&previous%5B%5D%5Bcity%5D=Rome&score=1.5&tags%5B%5D=a&tags%5B%5D=b"
        )
    }

    struct ExplicitNil: Encodable {
        let note: String?
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(note, forKey: .note)   // `encode`, not `encodeIfPresent`
        }
        enum CodingKeys: String, CodingKey { case note }
    }

    @Test func anExplicitNilIsNull() throws {
        #expect(try encoder.encode(ExplicitNil(note: nil)) == ["note": .null])
        #expect(try QueryString.encode(encoder.encode(ExplicitNil(note: nil))) == "note")
        #expect(try encoder.encode([String?.none, "x"]) == [.null, "x"])
        #expect(try encoder.encode(String?.none) == .null)
    }

    enum Color: String, Encodable { case red, dark = "dark-blue" }
    enum Level: Int, Encodable { case low = 1, high = 9 }
    struct Paint: Encodable { let color: Color; let level: Level; let colors: [Color] }

    @Test func enumsWithRawValuesEncodeTheirRawValue() throws {
        #expect(try encoder.encode(Paint(color: .dark, level: .high, colors: [.red])) == ["color": "dark-blue", "level": 9, "colors": ["red"]])
    }

    struct Empty: Encodable {}

    @Test func topLevelsOfEveryShape() throws {
        #expect(try encoder.encode([1, 2, 3]) == [1, 2, 3])
        #expect(try encoder.encode("text") == "text")
        #expect(try encoder.encode(42) == 42)
        #expect(try encoder.encode(Empty()) == [:])
        #expect(try encoder.encode(["b": [1], "a": [2]]) == ["a": [2], "b": [1]])
        #expect(try encoder.encode([3: "three"]) == ["3": "three"])
        #expect(try encoder.encode([[Int]]()) == [])
    }

    @Test func aSetEncodesAsAnArray() throws {
        // Swift's Set encodes through an unkeyed container: the order is the set's own.
        let encoded = try encoder.encode(Set(["x", "y"]))
        guard case .array(let elements) = encoded else {
            Issue.record("expected an array, got \(encoded)")
            return
        }
        #expect(Set(elements) == ["x", "y"])
    }

    // MARK: Numbers

    struct Integers: Encodable {
        let i8: Int8, i16: Int16, i32: Int32, i64: Int64
        let u8: UInt8, u16: UInt16, u32: UInt32, u64: UInt64, u: UInt
    }

    @Test func everyIntegerWidthIsAnInt() throws {
        let value = Integers(i8: .min, i16: .min, i32: .min, i64: .min, u8: .max, u16: .max, u32: .max, u64: UInt64(Int.max), u: 7)
        #expect(try encoder.encode(value) == [
            "i8": -128, "i16": -32768, "i32": .int(Int(Int32.min)), "i64": .int(Int.min),
            "u8": 255, "u16": 65535, "u32": .int(Int(UInt32.max)), "u64": .int(Int.max), "u": 7,
        ])
        #expect(try encoder.encode([Int8(-1), 2]) == [-1, 2])
        #expect(try encoder.encode(UInt16(9)) == 9)
    }

    struct Big: Encodable { let count: UInt64 }

    @Test func anIntegerBeyondIntIsATypedErrorWithItsPath() throws {
        do {
            _ = try encoder.encode(["items": [Big(count: 1), Big(count: .max)]])
            Issue.record("expected an error")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.codingPath.map(\.stringValue) == ["items", "Index 1", "count"])
            #expect(context.debugDescription.contains("UInt64 18446744073709551615 is outside Int's range"))
        }
        #expect(throws: EncodingError.self) { _ = try encoder.encode([UInt.max]) }
        #expect(throws: EncodingError.self) { _ = try encoder.encode(UInt64.max) }
    }

    struct Wide: Encodable { let signed: Int128; let unsigned: UInt128 }

    @Test func int128InRangeIsAnIntAndBeyondIsAnError() throws {
        #expect(try encoder.encode(Wide(signed: -5, unsigned: 5)) == ["signed": -5, "unsigned": 5])
        #expect(throws: EncodingError.self) { _ = try encoder.encode(Wide(signed: .max, unsigned: 0)) }
        #expect(throws: EncodingError.self) { _ = try encoder.encode([UInt128.max]) }
    }

    struct Floats: Encodable { let f: Float; let d: Double; let fs: [Float] }

    @Test func floatsKeepTheirShortText() throws {
        #expect(try encoder.encode(Floats(f: 0.1, d: 0.1, fs: [1.5, 3])) == ["f": 0.1, "d": 0.1, "fs": [1.5, 3.0]])
        #expect(try QueryString.encode(encoder.encode(Floats(f: 0.1, d: 2, fs: []))) == "d=2&f=0.1")
        // Non-finite numbers pass through; the JSON serializer refuses them later.
        let encoded = try encoder.encode(Floats(f: .infinity, d: .nan, fs: []))
        #expect(encoded == ["f": .double(.infinity), "d": .double(.nan), "fs": []])
    }

    struct Price: Encodable { let amount: Decimal }

    @Test func decimalsAsDoubleOrExactText() throws {
        let price = Price(amount: Decimal(string: "12.34") ?? 0)
        #expect(try encoder.encode(price) == ["amount": 12.34])
        let exact = ParametersEncoder(decimalEncodingStrategy: .string)
        let long = Price(amount: Decimal(string: "12345678901234567890.123") ?? 0)
        #expect(try exact.encode(long) == ["amount": "12345678901234567890.123"])
    }

    // MARK: Dates

    struct Event: Encodable { let at: Date }
    let date = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func datesAreISO8601ByDefault() throws {
        #expect(try encoder.encode(Event(at: date)) == ["at": "2023-11-14T22:13:20Z"])
        #expect(try QueryString.encode(encoder.encode(Event(at: date))) == "at=2023-11-14T22%3A13%3A20Z")
    }

    @Test func everyDateStrategy() throws {
        #expect(try ParametersEncoder(dateEncodingStrategy: .secondsSince1970).encode(Event(at: date)) == ["at": 1_700_000_000.0])
        #expect(try ParametersEncoder(dateEncodingStrategy: .millisecondsSince1970).encode(Event(at: date)) == ["at": 1_700_000_000_000.0])
        #expect(try ParametersEncoder(dateEncodingStrategy: .deferredToDate).encode(Event(at: date)) == ["at": .double(date.timeIntervalSinceReferenceDate)])
        let custom = ParametersEncoder(dateEncodingStrategy: .custom { .string("day \(Int($0.timeIntervalSince1970) / 86_400)") })
        #expect(try custom.encode(Event(at: date)) == ["at": "day 19675"])
        #expect(try custom.encode([date]) == ["day 19675"])
    }

    @Test func aCustomStrategysErrorReachesTheCaller() {
        let failing = ParametersEncoder(dateEncodingStrategy: .custom { _ in throw MarkerError(id: 21) })
        #expect(throws: MarkerError(id: 21)) { _ = try failing.encode(Event(at: date)) }
    }

    // MARK: Data and URLs

    struct Blob: Encodable { let bytes: Data }

    @Test func everyDataStrategy() throws {
        let blob = Blob(bytes: Data("hi!".utf8))
        #expect(try encoder.encode(blob) == ["bytes": "aGkh"])
        #expect(try ParametersEncoder(dataEncodingStrategy: .raw).encode(blob) == ["bytes": .data(Data("hi!".utf8))])
        let hex = ParametersEncoder(dataEncodingStrategy: .custom { data in .string(data.map { String($0, radix: 16) }.joined()) })
        #expect(try hex.encode(blob) == ["bytes": "686921"])
    }

    struct Link: Encodable { let href: URL }

    @Test func urlsBecomeTheirAbsoluteString() throws {
        let link = Link(href: try #require(URL(string: "https://example.com/a?b=c")))
        #expect(try encoder.encode(link) == ["href": "https://example.com/a?b=c"])
    }

    // MARK: Keys

    struct Names: Encodable {
        let userID: Int
        let myURLValue: String
        let simple: Bool
        let already_snake: Int
        let metadata: [String: Int]
    }

    @Test func snakeCaseConvertsPropertyNamesButNotDictionaryKeys() throws {
        let snake = ParametersEncoder(keyEncodingStrategy: .convertToSnakeCase)
        let value = Names(userID: 1, myURLValue: "u", simple: true, already_snake: 2, metadata: ["camelKey": 3])
        #expect(try snake.encode(value) == [
            "user_id": 1, "my_url_value": "u", "simple": true, "already_snake": 2, "metadata": ["camelKey": 3],
        ])
        #expect(try encoder.encode(value) == [
            "userID": 1, "myURLValue": "u", "simple": true, "already_snake": 2, "metadata": ["camelKey": 3],
        ])
    }

    struct SnakeProbe: Encodable {
        let name: String
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: PathKeys.self)
            try container.encode(true, forKey: PathKeys(name))
        }
        struct PathKeys: CodingKey {
            let stringValue: String
            init(_ name: String) { stringValue = name }
            init?(stringValue: String) { self.stringValue = stringValue }
            var intValue: Int? { nil }
            init?(intValue: Int) { nil }
        }
    }

    @Test(arguments: [
        ("userName", "user_name"), ("URLProperty", "url_property"), ("myHTTPServer", "my_http_server"),
        ("a1B", "a1_b"), ("ABC", "abc"), ("already_snake", "already_snake"), ("x", "x"), ("", ""),
        ("Capital", "capital"), ("with_Underscore", "with_underscore"), ("ÉcoleNumber", "école_number"),
    ])
    func snakeCaseNames(name: String, expected: String) throws {
        let snake = ParametersEncoder(keyEncodingStrategy: .convertToSnakeCase)
        #expect(try snake.encode(SnakeProbe(name: name)) == .dictionary([expected: true]))
    }

    @Test func aCustomKeyStrategy() throws {
        let upper = ParametersEncoder(keyEncodingStrategy: .custom { $0.uppercased() })
        #expect(try upper.encode(Address(city: "Oslo", zip: "0150")) == ["CITY": "Oslo", "ZIP": "0150"])
    }
}
