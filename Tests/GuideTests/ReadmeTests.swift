import Courier
import CourierTesting
import FoundationEssentials
import Testing

// The README's quick start, verbatim (Scripts/lib/check-doc-examples.py checks that each example appears
// here). The first example reaches httpbin.org, which no test may, so it is compiled and not run; the
// second runs over a MockTransport that plays the API, and its results are checked.

/// The README's first example; compiled only (it calls a public host).
func readmeSharedSessionExample() async throws -> CurlTransport {
    let response = try await Session.shared.get("https://httpbin.org/get", parameters: ["q": "courier"]).response
    print(response.status, response.text)

    let transport = try CurlTransport()                      // one per process: it pools connections
    return transport
}

@Suite struct ReadmeTests {
    /// Plays `https://api.example.com/v1`: users are created by echoing the JSON sent, user 1 is Ada.
    private static func apiTransport() -> MockTransport {
        MockTransport { request in
            switch (request.head.method, request.path) {
            case (.post, "/v1/users"): return .json(request.text ?? "{}", status: .created)
            case (.get, "/v1/users/1"): return .json(#"{"id":1,"name":"Ada"}"#)
            case (.post, "/v1/users/1/avatar"): return .status(.created)
            default: return .status(.notFound)
            }
        }
    }

    @Test func theQuickStartRunsAgainstAnAPI() async throws {
        let avatar = "/tmp/avatar.png"
        let madeAvatar = !FileManager.default.fileExists(atPath: avatar)
        if madeAvatar { try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]).write(to: URL(fileURLWithPath: avatar)) }
        defer { if madeAvatar { try? FileManager.default.removeItem(atPath: avatar) } }
        let transport = Self.apiTransport()

        var configuration = SessionConfiguration(baseURL: URL(string: "https://api.example.com/v1"))
        configuration.requestSerializer = JSONRequestSerializer()
        configuration.retrier = RetryPolicy()
        let api = Session(configuration: configuration, transport: transport)
        let created = try await api.post("users", parameters: ["name": "Ada"]).response   // POST …/v1/users, JSON body
        let user = try await api.get("users/1").value(using: JSONResponseSerializer())     // validated, parsed JSON

        struct User: Codable, Sendable { var id: Int; var name: String }
        let ada = try await api.get("users/1", as: User.self)                              // validated, decoded
        let saved = try await api.post("users", json: ada, as: User.self)                  // your JSONEncoder too
        let quick = try await api.get("users/1", options: RequestOptions(deadline: .seconds(2)), as: User.self)

        var form = MultipartFormData()
        try form.appendFile(at: "/tmp/avatar.png", name: "avatar")                         // streamed from disk
        let uploaded = try await api.upload(form, to: "users/1/avatar").response

        // What the comments promise.
        #expect(created.status == .created)
        #expect(transport.requests[0].path == "/v1/users" && transport.requests[0].text == #"{"name":"Ada"}"#)
        #expect(transport.requests[0].head.headerFields[.contentType]?.hasPrefix("application/json") == true)
        #expect(user == ["id": 1, "name": "Ada"])
        #expect(ada.id == 1 && ada.name == "Ada")
        #expect(saved.id == ada.id && saved.name == ada.name)
        #expect(quick.name == "Ada")
        #expect(uploaded.status == .created)
        let upload = try #require(transport.requests.last)
        #expect(upload.path == "/v1/users/1/avatar")
        #expect(upload.text?.contains("name=\"avatar\"; filename=\"avatar.png\"\r\nContent-Type: image/png") == true)
        #expect(upload.body?.count == Int(form.contentLength))
    }
}
