import CourierCore
import CourierRequestSerialization
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

/// The Swift examples of docs/parameters.md, verbatim (Scripts/lib/check-doc-examples.py checks
/// that each one appears here), run over a mock transport that answers 200 and records.
@Suite struct DocExamplesTests {
    private let transport = MockTransport(always: .status(.ok))
    private let session: Session
    private let request: HTTPRequest

    init() throws {
        session = Session(
            configuration: SessionConfiguration(baseURL: URL(string: "http://127.0.0.1:5000"), requestSerializer: HTTPRequestSerializer()),
            transport: transport
        )
        request = try makeRequest(.post, "http://127.0.0.1:5000/post")
    }

    @Test func parameters() throws {
        let parameters: Parameters = ["user": ["name": "Ada", "tags": ["a", "b"]], "page": 2, "draft": nil]
        let query = try QueryString.encode(parameters)
        // "draft&page=2&user%5Bname%5D=Ada&user%5Btags%5D%5B%5D=a&user%5Btags%5D%5B%5D=b"
        #expect(query == "draft&page=2&user%5Bname%5D=Ada&user%5Btags%5D%5B%5D=a&user%5Btags%5D%5B%5D=b")
    }

    @Test func queryOptions() throws {
        let options = QueryString.Options(arrays: .indexed, booleans: .literal, spaces: .plus)
        let custom = try QueryString.encode(["ids": [7, 8], "on": true, "q": "a b+c"], options: options)
        // "ids%5B0%5D=7&ids%5B1%5D=8&on=true&q=a+b%2Bc"
        let repeated = try QueryString.encode(["ids": [7, 8]], options: QueryString.Options(arrays: .noBrackets))
        // "ids=7&ids=8"
        #expect(custom == "ids%5B0%5D=7&ids%5B1%5D=8&on=true&q=a+b%2Bc")
        #expect(repeated == "ids=7&ids=8")
    }

    @Test func serializerQueryOptionsAndBuilder() throws {
        var serializer = HTTPRequestSerializer()
        serializer.queryOptions = QueryString.Options(arrays: .noBrackets)
        let sorted = try serializer.serialize(HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/items"), parameters: ["id": [3, 1]])
        // sorted.request.path == "/items?id=3&id=1"
        serializer.queryStringBuilder = { _ in "key**value" }
        let built = try serializer.serialize(HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/items"), parameters: ["id": 1])
        // built.request.path == "/items?key**value"
        #expect(sorted.request.path == "/items?id=3&id=1")
        #expect(built.request.path == "/items?key**value")
    }

    @Test func encodableValues() async throws {
        let session = self.session
        struct Search: Encodable {
            let query: String
            let page: Int
            let tags: [String]
            let exact: Bool?
        }
        let search = Search(query: "a b", page: 2, tags: ["x"], exact: nil)
        let encoded = try ParametersEncoder().encode(search)
        // ["query": "a b", "page": 2, "tags": ["x"]]   (a nil optional is left out)
        let task = try session.get("search", parameters: ParametersEncoder().encode(search))
        // GET /search?page=2&query=a%20b&tags%5B%5D=x
        #expect(encoded == ["query": "a b", "page": 2, "tags": ["x"]])
        _ = try await task.response
        #expect(transport.requests.map(\.path) == ["/search?page=2&query=a%20b&tags%5B%5D=x"])
    }

    @Test func encoderStrategies() throws {
        var encoder = ParametersEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970      // default .iso8601
        encoder.dataEncodingStrategy = .raw                   // default .base64
        encoder.keyEncodingStrategy = .convertToSnakeCase     // default .useDefaultKeys
        encoder.decimalEncodingStrategy = .string             // default .double
        struct Event: Encodable {
            let startDate: Date
            let payload: Data
            let price: Decimal
        }
        let event = try encoder.encode(Event(startDate: Date(timeIntervalSince1970: 1_700_000_000), payload: Data("hi".utf8), price: Decimal(string: "19.99") ?? 0))
        // ["start_date": 1700000000.0, "payload": .data("hi"), "price": "19.99"]
        #expect(event == ["start_date": 1_700_000_000.0, "payload": .data(Data("hi".utf8)), "price": "19.99"])
    }

    @Test func encodableShortcuts() async throws {
        let request = self.request
        struct Filter: Encodable {
            let status: String
            let ids: [Int]
        }
        let filter = Filter(status: "open now", ids: [3, 4])
        let tree = try Parameters(encoding: filter)
        let form = try FormEncoder().encode(filter)
        // "ids%5B%5D=3&ids%5B%5D=4&status=open%20now"
        let serialized = try JSONRequestSerializer().serialize(request, encodable: filter)
        // body {"ids":[3,4],"status":"open now"}
        #expect(tree == ["status": "open now", "ids": [3, 4]])
        #expect(form == "ids%5B%5D=3&ids%5B%5D=4&status=open%20now")
        #expect(try await text(of: serialized.body) == #"{"ids":[3,4],"status":"open now"}"#)
    }

    @Test func aJSONSession() async throws {
        let transport = self.transport
        let configuration = SessionConfiguration(baseURL: URL(string: "http://127.0.0.1:5000"), requestSerializer: JSONRequestSerializer())
        let api = Session(configuration: configuration, transport: transport)
        let created = try await api.post("post", parameters: ["name": "Ada", "tags": ["x"]]).response
        // POST /post, Content-Type: application/json, body {"name":"Ada","tags":["x"]}
        #expect(created.status == .ok)
        let sent = try #require(transport.requests.first)
        #expect(sent.path == "/post")
        #expect(sent.head.headerFields[.contentType] == "application/json")
        #expect(sent.body.map { String(decoding: $0, as: UTF8.self) } == #"{"name":"Ada","tags":["x"]}"#)
    }

    @Test func propertyList() async throws {
        let request = self.request
        let plist = try PropertyListRequestSerializer().serialize(request, parameters: ["key": "value", "count": 2])
        // <?xml version="1.0" encoding="UTF-8"?>
        // <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        // <plist version="1.0">
        // <dict>
        // 	<key>count</key>
        // 	<integer>2</integer>
        // 	<key>key</key>
        // 	<string>value</string>
        // </dict>
        // </plist>
        #expect(try await text(of: plist.body) == """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>count</key>
            \t<integer>2</integer>
            \t<key>key</key>
            \t<string>value</string>
            </dict>
            </plist>

            """)
        #expect(plist.request.headerFields[.contentType] == "application/x-plist")
    }

    @Test func defaultHeaders() throws {
        let languages = AcceptLanguage.preferredLanguages(environment: ["LANGUAGE": "fr:de_AT", "LANG": "en_US.UTF-8"])
        // ["fr", "de-AT", "en-US"]
        let acceptLanguage = AcceptLanguage.value(for: languages)
        // "fr;q=1, de-AT;q=0.9, en-US;q=0.8"
        let versioned = HTTPRequestSerializer(defaultHeaderFields: .courierDefaults(version: "2.1"))
        // User-Agent: <executable>/2.1 (Linux …)
        let bare = HTTPRequestSerializer(defaultHeaderFields: [:])
        // no default headers at all
        #expect(languages == ["fr", "de-AT", "en-US"])
        #expect(acceptLanguage == "fr;q=1, de-AT;q=0.9, en-US;q=0.8")
        let userAgent = try #require(versioned.value(forHeader: "User-Agent"))
        #expect(userAgent.contains("/2.1 (Linux"))
        #expect(bare.defaultHeaderFields.isEmpty)
    }

    @Test func headersAndAuthorization() throws {
        var serializer = HTTPRequestSerializer()
        try serializer.setValue("2", forHeader: "X-API-Version")
        let version = serializer.value(forHeader: "X-API-Version")        // "2"
        try serializer.setValue(nil, forHeader: "X-API-Version")          // removed
        serializer.setAuthorization(username: "user", password: "password")
        let basic = serializer.value(forHeader: "Authorization")          // "Basic dXNlcjpwYXNzd29yZA=="
        try serializer.setBearerToken("token-123")
        let bearer = serializer.value(forHeader: "Authorization")         // "Bearer token-123"
        serializer.clearAuthorizationHeader()
        #expect(version == "2")
        #expect(serializer.value(forHeader: "X-API-Version") == nil)
        #expect(basic == "Basic dXNlcjpwYXNzd29yZA==")
        #expect(bearer == "Bearer token-123")
        #expect(serializer.value(forHeader: "Authorization") == nil)
    }

    @Test func headerInjectionIsRefused() {
        var strict = JSONRequestSerializer()
        var problems: [String] = []
        do {
            try strict.setValue("x\r\nInjected: 1", forHeader: "X-Note")
        } catch {
            problems.append("\(error.reason): \(error.input)")   // "invalid header value: X-Note"
        }
        #expect(problems == ["invalid header value: X-Note"])
        #expect(strict.value(forHeader: "X-Note") == nil)
    }
}
