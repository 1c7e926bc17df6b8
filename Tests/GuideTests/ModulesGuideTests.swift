import CourierCore
import CourierCurl
import CourierMultipart
import CourierRequestSerialization
import CourierResponseSerialization
import CourierSecurity
import CourierTesting
import CourierXML
import FoundationEssentials
import HTTPTypes
import Testing

// The Swift examples of docs/guide-modules.md, verbatim (Scripts/lib/check-doc-examples.py checks that each
// one appears here), compiled and run. Nothing reaches the network: the recipes run over MockTransport, and
// where an example builds a CurlTransport, it makes no call with it.

struct User: Codable, Sendable, Equatable { var id: Int; var name: String }

/// The program's API: one session, over whatever transport it is given.
struct UserAPI {
    let session: Session

    init(transport: any Transport) {
        session = Session(
            configuration: SessionConfiguration(baseURL: URL(string: "https://api.example.com/v1")),
            transport: transport
        )
    }

    func user(_ id: Int) async throws(CourierError) -> User {
        try await session.get("users/\(id)", as: User.self)   // a 2xx status and a JSON type, or it throws
    }
}

@Suite struct ModulesGuideTests {
    @Test func jsonClient() async throws {
        let api = UserAPI(transport: try CurlTransport())   // one CurlTransport per process: it pools connections
        #expect(api.session.transport is CurlTransport)
        #expect(api.session.baseURL?.host == "api.example.com")

        // The comment's promise, checked over a MockTransport: a body that is not JSON by type is refused.
        let html = UserAPI(transport: MockTransport(always: MockResponse(
            headerFields: [.contentType: "text/html"], body: .bytes(Data(#"{"id":1,"name":"Ada"}"#.utf8))
        )))
        let error = await #expect(throws: CourierError.self) { try await html.user(1) }
        #expect(error?.kind == .unacceptableContentType)
    }

    @Test func formUploads() async throws {
        let transport = MockTransport { request in .text(request.text ?? "") }
        var configuration = SessionConfiguration(baseURL: URL(string: "https://uploads.example.com"))
        configuration.requestSerializer = HTTPRequestSerializer()       // GET: a query string; POST: a form body
        let uploads = Session(configuration: configuration, transport: transport)

        let login = try await uploads.data(.post, "login", parameters: ["user": "ada", "remember": true])

        var form = MultipartFormData()
        form.append("Quarterly report", name: "title")
        form.append(Data("region,total\nnorth,12\n".utf8), name: "file", fileName: "report.csv", mimeType: "text/csv")
        let sent = try await uploads.upload(form, to: "files").response

        // The URL-encoded form: AFNetworking's bytes (sorted keys, true as 1) and its type.
        #expect(login.text == "remember=1&user=ada")
        let loginRequest = transport.requests[0]
        #expect(loginRequest.path == "/login")
        #expect(loginRequest.head.headerFields[.contentType]?.hasPrefix("application/x-www-form-urlencoded") == true)
        // The multipart form: its type with a boundary, both parts, and the exact length announced.
        let formRequest = transport.requests[1]
        #expect(formRequest.path == "/files")
        #expect(formRequest.head.headerFields[.contentType] == form.contentType)
        #expect(form.contentType.hasPrefix("multipart/form-data; boundary="))
        #expect(sent.text.contains("name=\"title\"\r\n\r\nQuarterly report\r\n"))
        #expect(sent.text.contains("name=\"file\"; filename=\"report.csv\"\r\nContent-Type: text/csv\r\n\r\nregion,total"))
        #expect(Int64(sent.data.count) == form.contentLength)
    }

    @Test func xmlFeed() async throws {
        let rss = #"<?xml version="1.0"?><rss><channel><item><title>First</title></item><item><title>Second</title></item></channel></rss>"#
        let transport = MockTransport(routes: [
            "GET /news.xml": MockResponse(headerFields: [.contentType: "application/xml"], body: .bytes(Data(rss.utf8))),
        ])
        let feeds = Session(configuration: SessionConfiguration(baseURL: URL(string: "https://feeds.example.com")), transport: transport)
        let feed = try await feeds.value(.get, "news.xml", using: XMLDocumentResponseSerializer())
        let titles = try feed.xpath("//item/title").nodes.map(\.stringValue)   // ["First", "Second"]
        #expect(titles == ["First", "Second"])
        #expect(feed.root.name == "rss")
    }

    @Test func pinning() throws {
        // The pins of the server's key and of a backup key, as a refused request's error lists them.
        let pins = ["sha256/WbMQg1W6nG2n328yqr7SKstSm6ckSPPBPVFkLGGVsw0=", "sha256/GSSBRQ8zYy53mF5udBJxfTMOwiluPndU81o6n5JU1yU="]
        var policy = SecurityPolicy(pinningMode: .publicKey)
        policy.pinnedPublicKeys = Set(pins.compactMap(PublicKeyPin.init))
        let pinned = try Session(
            configuration: SessionConfiguration(baseURL: URL(string: "https://api.example.com")),
            transport: try CurlTransport(),
            securityPolicy: policy
        )

        #expect(policy.pinnedPublicKeys.count == 2)                       // both strings are well-formed pins
        #expect(pinned.configuration.trustEvaluator as? SecurityPolicy == policy)
        #expect(!policy.evaluate(chain: [[0x30]], domain: "api.example.com"))   // garbage is never trusted
        // AFNetworking's guard: a pinning policy needs an https base URL.
        #expect(throws: SecurityPolicyError.self) {
            try Session(
                configuration: SessionConfiguration(baseURL: URL(string: "http://api.example.com")),
                transport: MockTransport(always: .status(.ok)),
                securityPolicy: policy
            )
        }
    }

    @Test func testingWithMockTransport() async throws {
        let transport = MockTransport(routes: [
            "GET /v1/users/1": .json(#"{"id":1,"name":"Ada"}"#),
            "GET /v1/users/2": .status(.notFound),
        ])
        let api = UserAPI(transport: transport)
        #expect(try await api.user(1) == User(id: 1, name: "Ada"))
        let error = await #expect(throws: CourierError.self) { try await api.user(2) }
        #expect(error?.kind == .unacceptableStatus)
        #expect(transport.requests.map(\.path) == ["/v1/users/1", "/v1/users/2"])
    }
}
