@testable import CourierCache
import CourierCore
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

/// `HTTPCache` in a session over `MockTransport`, with a clock the test moves, in memory and on disk.
@Suite struct CacheInterceptorTests {
    final class Clock: Sendable {
        let now = Locked(Date(timeIntervalSince1970: 1_700_000_000))
        func advance(_ seconds: TimeInterval) { now.withLock { $0 += seconds } }
        var reading: @Sendable () -> Date { { [self] in now.withLock { $0 } } }
    }

    /// An origin with an ETag'd item (`v1` until `version` changes), a no-store route and a counter per path.
    final class Origin: Sendable {
        let version = Locked("v1")
        var transport: MockTransport {
            MockTransport { [self] request in
                let etag = "\"\(version.withLock { $0 })\""
                switch (request.method, request.pathWithoutQuery) {
                case (.get, "/item"):
                    if request.head.headerFields[.ifNoneMatch] == etag {
                        return MockResponse(status: .notModified, headerFields: [.eTag: etag, .cacheControl: "max-age=60"])
                    }
                    return MockResponse(headerFields: [.eTag: etag, .cacheControl: "max-age=60", .contentType: "text/plain"], body: .bytes(Data("item \(etag)".utf8)))
                case (.get, "/private"):
                    return MockResponse(headerFields: [.cacheControl: "no-store"], body: .bytes(Data("secret".utf8)))
                case (.post, "/item"):
                    return .status(.noContent)
                default:
                    return .status(.notFound)
                }
            }
        }
    }

    private func session(_ cache: HTTPCache, _ transport: MockTransport) -> Session {
        var configuration = SessionConfiguration(baseURL: URL(string: "https://api.test"))
        configuration.networkInterceptors = [cache.interceptor]
        return Session(configuration: configuration, transport: transport)
    }

    private func sent(_ transport: MockTransport, _ path: String) -> Int {
        transport.requests.filter { $0.pathWithoutQuery == path }.count
    }

    @Test(arguments: [false, true])
    func aFreshResponseIsServedThenRevalidatedThenReplaced(onDisk: Bool) async throws {
        let clock = Clock()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cache-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let storage: HTTPCache.Storage = onDisk ? .disk(directory: directory, maximumBytes: 1 << 20) : .memory(maximumBytes: 1 << 20)
        let cache = try HTTPCache(storage, maximumEntrySize: 1 << 20, clock: clock.reading)
        let origin = Origin()
        let transport = origin.transport
        let api = session(cache, transport)

        #expect(try await api.data(.get, "item").text == "item \"v1\"")
        clock.advance(30)
        let hit = try await api.data(.get, "item")
        #expect(hit.text == "item \"v1\"" && hit.head.headerFields[.age] == "30")
        #expect(sent(transport, "/item") == 1)

        clock.advance(31)   // stale: revalidated, 304
        #expect(try await api.data(.get, "item").text == "item \"v1\"")
        #expect(transport.requests.last?.head.headerFields[.ifNoneMatch] == "\"v1\"")
        #expect(sent(transport, "/item") == 2)
        #expect(try await api.data(.get, "item").text == "item \"v1\"")   // fresh again after the 304
        #expect(sent(transport, "/item") == 2)

        origin.version.withLock { $0 = "v2" }
        clock.advance(61)   // stale, and changed: a 200 replaces it
        #expect(try await api.data(.get, "item").text == "item \"v2\"")
        #expect(try await api.data(.get, "item").text == "item \"v2\"")
        #expect(sent(transport, "/item") == 3)
        #expect(cache.statistics == HTTPCache.Statistics(hits: 3, validated: 1, misses: 2, stores: 2))
    }

    @Test func noStoreUnsafeMethodsAndOnlyIfCached() async throws {
        let cache = try HTTPCache(.memory(maximumBytes: 1 << 20), maximumEntrySize: 1 << 20, clock: Clock().reading)
        let transport = Origin().transport
        let api = session(cache, transport)
        _ = try await api.data(.get, "private")
        _ = try await api.data(.get, "private")
        #expect(sent(transport, "/private") == 2 && cache.size == 0)

        _ = try await api.data(.get, "item")
        _ = try await api.data(.post, "item")   // invalidates GET /item
        _ = try await api.data(.get, "item")
        #expect(sent(transport, "/item") == 3)

        let offline = try await api.data(.get, "nothing", headers: [.cacheControl: "only-if-cached"])
        #expect(offline.status == .gatewayTimeout && sent(transport, "/nothing") == 0)
    }

    @Test func theMemoryStoreKeepsItsLimitLeastRecentlyUsedFirst() {
        let store = MemoryCacheStore(maximumBytes: 300)
        func entry(_ key: String) -> CacheEntry {
            CacheEntry(key: key, status: 200, reasonPhrase: "", fields: [], body: Data(count: 90), vary: [:], requestTime: .now, responseTime: .now)
        }
        store.store(entry("a"))
        store.store(entry("b"))
        store.store(entry("c"))
        _ = store.entry(for: "a")   // a is now the most recently used
        store.store(entry("d"))
        #expect(store.entry(for: "b") == nil && store.entry(for: "a") != nil && store.entry(for: "d") != nil)
        #expect(store.size <= 300)
    }

    @Test func theDiskStoreSurvivesForeignAndTruncatedFilesAndKeepsItsLimit() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-disk-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try DiskCacheStore(directory: directory, maximumBytes: 1000)
        let entry = CacheEntry(key: "GET https://a.test/x", status: 200, reasonPhrase: "OK", fields: [.init(name: "ETag", value: "\"1\"")],
                               body: Data(count: 300), vary: ["accept": nil], requestTime: .now, responseTime: .now)
        store.store(entry)
        let read = try #require(store.entry(for: entry.key))
        #expect(read.key == entry.key && read.body == entry.body && read.vary == entry.vary && read.fields == entry.fields)
        // Another process's store, sharing the directory, sees it.
        let other = try DiskCacheStore(directory: directory, maximumBytes: 1000)
        #expect(other.entry(for: entry.key) != nil)
        // A truncated file is a miss, not a crash.
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: directory).first)
        try Data("CCE2\u{0}\u{0}\u{9}\u{0}{".utf8).write(to: URL(fileURLWithPath: directory + "/" + file))
        #expect(store.entry(for: entry.key) == nil)
        #expect(DiskCacheStore.decode(Data()) == nil)
        for index in 0..<6 {
            var more = entry
            more.key = "GET https://a.test/\(index)"
            store.store(more)
        }
        #expect(store.size <= 1000)
    }
}
