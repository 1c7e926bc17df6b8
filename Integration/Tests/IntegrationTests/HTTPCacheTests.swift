import CourierCache
import CourierCore
import Foundation
import HTTPTypes
import Testing

/// `HTTPCache` against nginx (`/cached/`: `max-age=60`; `/validated/`: `no-cache`, answered with 304 to its ETag and
/// Last-Modified, as curl shows in the servers' smoke test) and httpbin's `/cache`, `/etag` and `/response-headers`.
/// A network interceptor placed after the cache records what really went on the wire.
@Suite("HTTP cache")
struct HTTPCacheTests {
    enum Store: String, CaseIterable { case memory, disk }

    private func cache(_ store: Store) throws -> (HTTPCache, String?) {
        switch store {
        case .memory:
            return (try HTTPCache(.memory(maximumBytes: 8 << 20)), nil)
        case .disk:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-http-cache-\(UUID().uuidString)").path
            return (try HTTPCache(.disk(directory: directory, maximumBytes: 8 << 20)), directory)
        }
    }

    private func api(_ base: String, _ cache: HTTPCache) -> (Session, RecordingStatuses) {
        let wire = RecordingStatuses()
        return (session(base) { $0.networkInterceptors = [cache.interceptor, wire] }, wire)
    }

    private var smallJSON: Data {
        get throws { try Data(contentsOf: URL(fileURLWithPath: Servers.filesDirectory + "/small.json")) }
    }

    @Test(arguments: Store.allCases)
    func aFreshFileIsAnsweredWithoutARequest(store: Store) async throws {
        let (cache, directory) = try cache(store)
        defer { directory.map { try? FileManager.default.removeItem(atPath: $0) } }
        let (nginx, wire) = api(Servers.nginx, cache)
        for _ in 0..<3 {
            let response = try await nginx.data(.get, "cached/small.json")
            #expect(response.status == .ok)
            #expect(try response.data == smallJSON)
        }
        #expect(wire.statuses.value == [.ok])
        #expect(cache.statistics.hits == 2 && cache.statistics.stores == 1)
    }

    @Test(arguments: Store.allCases)
    func aNoCacheFileIsRevalidatedAndA304ServesTheStoredBody(store: Store) async throws {
        let (cache, directory) = try cache(store)
        defer { directory.map { try? FileManager.default.removeItem(atPath: $0) } }
        let (nginx, wire) = api(Servers.nginx, cache)
        for _ in 0..<3 {
            let response = try await nginx.data(.get, "validated/small.json")
            #expect(response.status == .ok)
            #expect(try response.data == smallJSON)
        }
        #expect(wire.statuses.value == [.ok, .notModified, .notModified])
        #expect(cache.statistics.validated == 2)
    }

    @Test func httpbinsCacheRoutes() async throws {
        let (cache, _) = try cache(.memory)
        let (httpbin, wire) = api(Servers.httpbin, cache)
        // /cache/60: Cache-Control: public, max-age=60.
        _ = try await httpbin.data(.get, "cache/60")
        _ = try await httpbin.data(.get, "cache/60")
        #expect(wire.statuses.value == [.ok])
        // /etag/{etag}: an ETag and no freshness, so every use is validated; httpbin answers 304 to it.
        let first = try await httpbin.data(.get, "etag/abc")
        let second = try await httpbin.data(.get, "etag/abc")
        #expect(second.status == .ok && second.data == first.data)
        #expect(wire.statuses.value == [.ok, .ok, .notModified])
        // A request's no-store goes to the network and stores nothing.
        _ = try await httpbin.data(.get, "cache/60", headers: [.cacheControl: "no-store"])
        #expect(wire.statuses.value.count == 4)
    }

    @Test func aPostInvalidatesTheStoredGetAndVarySeparatesVariants() async throws {
        let (cache, _) = try cache(.memory)
        let (httpbin, wire) = api(Servers.httpbin, cache)
        let path = "response-headers?Cache-Control=max-age%3D60&Vary=Accept"
        _ = try await httpbin.data(.get, path, headers: [.accept: "application/json"])
        _ = try await httpbin.data(.get, path, headers: [.accept: "application/json"])
        #expect(wire.statuses.value.count == 1)
        _ = try await httpbin.data(.get, path, headers: [.accept: "text/plain"])   // another variant: to the network
        #expect(wire.statuses.value.count == 2)
        _ = try await httpbin.data(.post, path)
        _ = try await httpbin.data(.get, path, headers: [.accept: "text/plain"])
        #expect(wire.statuses.value.count == 4)
    }

    @Test func twoCachesOnOneDirectoryShareEntries() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-shared-cache-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let writer = try HTTPCache(.disk(directory: directory, maximumBytes: 8 << 20))
        let reader = try HTTPCache(.disk(directory: directory, maximumBytes: 8 << 20))
        let (first, _) = api(Servers.nginx, writer)
        _ = try await first.data(.get, "cached/small.json")
        let (second, wire) = api(Servers.nginx, reader)
        let response = try await second.data(.get, "cached/small.json")
        #expect(try response.data == smallJSON)
        #expect(wire.statuses.value.isEmpty)
    }

    /// One session asking for two users, as a server calling an API for each of its users does: httpbin's
    /// `/cache/60` (`max-age=60`, the body echoing the request's fields) stored for alice's token never answers
    /// bob's, nor a request without a token; the same token is answered from the cache.
    @Test(arguments: Store.allCases)
    func aStoredResponseIsNeverAnotherUsers(store: Store) async throws {
        let (cache, directory) = try cache(store)
        defer { directory.map { try? FileManager.default.removeItem(atPath: $0) } }
        let (httpbin, wire) = api(Servers.httpbin, cache)
        func echoedAuthorization(_ token: String?) async throws -> String? {
            var headers = HTTPFields()
            if let token { headers[.authorization] = "Bearer \(token)" }
            let response = try await httpbin.data(for: try httpbin.makeRequest(.get, "cache/60", headers: headers))
            #expect(response.status == .ok)
            return (try json(response)["headers"] as? [String: Any])?["Authorization"] as? String
        }
        #expect(try await echoedAuthorization("alice") == "Bearer alice")
        #expect(try await echoedAuthorization("bob") == "Bearer bob", "bob was answered with alice's stored response")
        #expect(try await echoedAuthorization(nil) == nil, "a request without a token was answered with a user's response")
        #expect(wire.statuses.value == [.ok, .ok, .ok])
        #expect(try await echoedAuthorization(nil) == nil)
        #expect(wire.statuses.value == [.ok, .ok, .ok], "the same (absent) credentials were not answered from the cache")
        #expect(cache.statistics.hits == 1)
    }
}
