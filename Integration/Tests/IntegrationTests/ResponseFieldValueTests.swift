import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Testing

/// Response field values as httpbin's `/response-headers` sets them, over HTTP/1.1 and over HTTP/2 through nginx.
/// The transport reuses a common field of the previous response that carried the same bytes (`RecentFields`);
/// these calls change such values from one response to the next, on one transport, so a field reused when its
/// bytes differ (by the last byte, by length, across concurrent calls) would show.
@Suite("Response field values across responses")
struct ResponseFieldValueTests {
    /// The `Cache-Control` and `Content-Language` values of a response whose request asked for these.
    func received(_ s: Session, cacheControl: String, language: String) async throws -> (String?, String?) {
        func encoded(_ value: String) -> String { value.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }
        let request = try s.makeRequest(.get, "response-headers?Cache-Control=\(encoded(cacheControl))&Content-Language=\(encoded(language))")
        let response = try await s.data(for: request)
        #expect(response.status == .ok)
        return (response.head.headerFields[.cacheControl], response.head.headerFields[.contentLanguage])
    }

    /// Values that differ from the one before by as little as a last byte, a length, or that cross the 15 bytes a
    /// small string holds, in a sequence that comes back to earlier ones.
    static let sequence: [(cacheControl: String, language: String)] = [
        ("max-age=600, private, must-revalidate", "en-GB, fr-CA, de-DE"),
        ("max-age=600, private, must-revalidate", "en-GB, fr-CA, de-DE"),
        ("max-age=601, private, must-revalidate", "en-GB, fr-CA, de-DF"),
        ("max-age=600, private, must-revalidatf", "en-GB, fr-CA, de-DE"),
        ("max-age=600, private", "en-GB, fr-CA"),
        ("max-age=600, private, must-revalidate", "en-GB, fr-CA, de-DE"),
        ("no-store, max-age=0", "mi-NZ, en-NZ, en"),
        ("no-cache, x-a-b", "fifteen-bytes-a"),
        ("no-cache, x-a-bc", "sixteen-bytes-ab"),
        ("no-cache, x-a-b", "fifteen-bytes-a"),
        ("max-age=600, private, must-revalidate", "en-GB, fr-CA, de-DE"),
    ]

    @Test(arguments: [false, true])
    func eachResponseKeepsItsOwnValues(http2: Bool) async throws {
        let t = try transport { $0.certificateAuthorityFile = Servers.caFile }
        let s = session(http2 ? Servers.tls : Servers.httpbin, transport: t)
        for round in 0..<3 {
            for (index, expected) in Self.sequence.enumerated() {
                let (cacheControl, language) = try await received(s, cacheControl: expected.cacheControl, language: expected.language)
                #expect(cacheControl == expected.cacheControl, "round \(round), step \(index)")
                #expect(language == expected.language, "round \(round), step \(index)")
            }
        }
        await t.shutdown()
    }

    @Test(arguments: [false, true])
    func concurrentCallsEachSeeTheirOwn(http2: Bool) async throws {
        let t = try transport { $0.certificateAuthorityFile = Servers.caFile }
        let s = session(http2 ? Servers.tls : Servers.httpbin, transport: t)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<48 {
                group.addTask {
                    // Half the calls share a value, the others differ from it in their last characters.
                    let cacheControl = index % 2 == 0 ? "max-age=600, private, shared" : "max-age=600, private, call-\(index)"
                    let language = "en-GB, fr-CA, x-call-\(index % 3)"
                    let (receivedCacheControl, receivedLanguage) = try await received(s, cacheControl: cacheControl, language: language)
                    #expect(receivedCacheControl == cacheControl, "call \(index)")
                    #expect(receivedLanguage == language, "call \(index)")
                }
            }
            try await group.waitForAll()
        }
        await t.shutdown()
    }
}
