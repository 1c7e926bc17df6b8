import CourierCache
import CourierCore
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

// docs/cache.md's examples, verbatim (Scripts/lib/check-doc-examples.py checks that each appears here), run against a
// MockTransport playing the API: `/catalog` is fresh for a minute and has an ETag.

@Suite struct CacheDocExamplesTests {
    private let transport = MockTransport { request in
        if request.head.headerFields[.ifNoneMatch] == "\"c1\"" {
            return MockResponse(status: .notModified, headerFields: [.eTag: "\"c1\""])
        }
        return MockResponse(headerFields: [.cacheControl: "max-age=60", .eTag: "\"c1\""], body: .bytes(Data("[\"tea\"]".utf8)))
    }

    @Test func useAndRequestDirectives() async throws {
        try? FileManager.default.removeItem(atPath: "/tmp/courier-http-cache")
        defer { try? FileManager.default.removeItem(atPath: "/tmp/courier-http-cache") }
        let transport = self.transport
        let cache = try HTTPCache(.disk(directory: "/tmp/courier-http-cache", maximumBytes: 50 << 20))
        var configuration = SessionConfiguration(baseURL: URL(string: "https://api.example.com"))
        configuration.networkInterceptors.insert(cache.interceptor, at: 0)
        let api = Session(configuration: configuration, transport: transport)
        let catalog = try await api.data(.get, "catalog")   // from the network, stored
        let again = try await api.data(.get, "catalog")     // fresh: from the cache, no request
        print(again.head.headerFields[.age] ?? "0", cache.statistics.hits)

        #expect(catalog.data == again.data && transport.requests.count == 1 && cache.statistics.hits == 1)

        let live = try await api.data(.get, "catalog", headers: [.cacheControl: "no-cache"])         // validate first
        let offline = try await api.data(.get, "catalog", headers: [.cacheControl: "only-if-cached"]) // 504 when not stored

        #expect(live.status == .ok && live.data == catalog.data)
        #expect(transport.requests.last?.head.headerFields[.ifNoneMatch] == "\"c1\"")
        #expect(offline.status == .ok && transport.requests.count == 2)   // it is stored: answered, nothing sent
    }
}
