import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Testing

/// Calls made with a preference for the transport's executor run on the curl thread.
@Suite("Curl executor")
struct ExecutorTests {
    @Test func callsRunOnTheCurlThreadAndComplete() async throws {
        let t = try transport { _ in }
        let s = session(Servers.nginx, transport: t)
        let request = try s.makeRequest(.get, "json")
        let sizes = try await withTaskExecutorPreference(t.executor) {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<200 {
                    group.addTask { try await s.data(for: request).data.count }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
        }
        #expect(sizes.count == 200)
        #expect(Set(sizes).count == 1 && sizes[0] > 500)
    }

    @Test func taskHandlesWorkUnderThePreferenceToo() async throws {
        let t = try transport { _ in }
        let s = session(transport: t)
        let response = try await withTaskExecutorPreference(t.executor) {
            try await s.get("get").response
        }
        #expect(response.status == .ok)
    }
}
