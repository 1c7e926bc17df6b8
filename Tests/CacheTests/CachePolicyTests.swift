@testable import CourierCache
import FoundationEssentials
import HTTPTypes
import Testing

/// RFC 9111's rules as pure functions (`CachePolicy`, `CacheControl`).
@Suite struct CachePolicyTests {
    private let t0 = Date(timeIntervalSince1970: 1_700_000_000)
    private let request = HTTPRequest(method: .get, scheme: "https", authority: "api.test", path: "/items")

    private func entry(_ fields: [(String, String)], status: Int = 200, received: Date? = nil) -> CacheEntry {
        CacheEntry(
            key: "GET https://api.test/items", status: status, reasonPhrase: "", fields: fields.map { .init(name: $0.0, value: $0.1) },
            body: Data("x".utf8), vary: [:], requestTime: received ?? t0, responseTime: received ?? t0
        )
    }

    private func request(_ fields: [(String, String)]) -> HTTPRequest {
        var request = self.request
        for (name, value) in fields { request.headerFields[HTTPField.Name(name)!] = value }
        return request
    }

    private func isStored(_ decision: CachePolicy.Decision) -> Bool {
        if case .useStored = decision { return true }
        return false
    }

    private func validators(_ decision: CachePolicy.Decision) -> [String]? {
        if case .validate(_, let conditions) = decision { return conditions.map { "\($0.name): \($0.value)" } }
        return nil
    }

    @Test func cacheControlDirectives() {
        let control = CacheControl(["max-age=60, no-cache=\"Set-Cookie, X\"", "MUST-REVALIDATE , private", "max-stale"])
        #expect(control.maxAge == 60 && control.noCache && control.mustRevalidate && control.isPrivate)
        #expect(control.maxStale == Int.max)
        #expect(CacheControl(["max-age=abc"]).maxAge == 0)              // invalid: stale
        #expect(CacheControl(["max-age=99999999999"]).maxAge == 2_147_483_648)
        #expect(CacheControl(["min-fresh=5, only-if-cached, no-store"]) == {
            var expected = CacheControl(); expected.minFresh = 5; expected.onlyIfCached = true; expected.noStore = true; return expected
        }())
    }

    @Test func freshnessFromMaxAgeExpiresOrHeuristics() {
        #expect(CachePolicy.freshnessLifetime(of: entry([("Cache-Control", "max-age=60"), ("Expires", "Sun, 06 Nov 2050 08:49:37 GMT")])) == 60)
        let date = "Tue, 14 Nov 2023 22:13:20 GMT"   // t0
        #expect(CachePolicy.freshnessLifetime(of: entry([("Date", date), ("Expires", "Tue, 14 Nov 2023 22:23:20 GMT")])) == 600)
        #expect(CachePolicy.freshnessLifetime(of: entry([("Date", date), ("Expires", "0")])) == 0)
        // A tenth of ten hours since Last-Modified: one hour; a year ago: capped at a day.
        #expect(CachePolicy.freshnessLifetime(of: entry([("Date", date), ("Last-Modified", "Tue, 14 Nov 2023 12:13:20 GMT")])) == 3600)
        #expect(CachePolicy.freshnessLifetime(of: entry([("Date", date), ("Last-Modified", "Mon, 14 Nov 2022 22:13:20 GMT")])) == 86_400)
        #expect(CachePolicy.freshnessLifetime(of: entry([("Last-Modified", "Mon, 14 Nov 2022 22:13:20 GMT")], status: 302)) == 0)
    }

    @Test func ageCountsAgeDateAndResidence() {
        // Age: 30 from upstream, received 5 s after asked, looked at 100 s later.
        var stored = entry([("Age", "30"), ("Date", "Tue, 14 Nov 2023 22:13:20 GMT")], received: t0 + 5)
        stored.requestTime = t0
        #expect(CachePolicy.age(of: stored, now: t0 + 105) == 135)
        // A Date far in the past counts as apparent age.
        let late = entry([("Date", "Tue, 14 Nov 2023 22:03:20 GMT")])
        #expect(CachePolicy.age(of: late, now: t0) == 600)
    }

    @Test func freshIsUsedStaleIsValidatedOrRefetched() {
        let fresh = entry([("Cache-Control", "max-age=60"), ("ETag", "\"v1\"")])
        #expect(isStored(CachePolicy.decide(request, stored: fresh, now: t0 + 59)))
        #expect(validators(CachePolicy.decide(request, stored: fresh, now: t0 + 60)) == ["If-None-Match: \"v1\""])
        let noValidator = entry([("Cache-Control", "max-age=60")])
        #expect(CachePolicy.decide(request, stored: noValidator, now: t0 + 61) == .network)
        #expect(CachePolicy.decide(request, stored: nil, now: t0) == .network)
        let modified = entry([("Last-Modified", "Mon, 13 Nov 2023 00:00:00 GMT")])
        #expect(validators(CachePolicy.decide(request, stored: modified, now: t0 + 86_401)) == ["If-Modified-Since: Mon, 13 Nov 2023 00:00:00 GMT"])
    }

    @Test func requestDirectivesAndMustRevalidate() {
        let stored = entry([("Cache-Control", "max-age=60"), ("ETag", "\"v1\"")])
        #expect(!isStored(CachePolicy.decide(request([("Cache-Control", "no-cache")]), stored: stored, now: t0)))
        #expect(!isStored(CachePolicy.decide(request([("Pragma", "no-cache")]), stored: stored, now: t0)))
        #expect(!isStored(CachePolicy.decide(request([("Cache-Control", "max-age=10")]), stored: stored, now: t0 + 20)))
        #expect(!isStored(CachePolicy.decide(request([("Cache-Control", "min-fresh=30")]), stored: stored, now: t0 + 40)))
        #expect(isStored(CachePolicy.decide(request([("Cache-Control", "max-stale=30")]), stored: stored, now: t0 + 80)))
        let strict = entry([("Cache-Control", "max-age=60, must-revalidate"), ("ETag", "\"v1\"")])
        #expect(!isStored(CachePolicy.decide(request([("Cache-Control", "max-stale=30")]), stored: strict, now: t0 + 80)))
        let noCache = entry([("Cache-Control", "max-age=60, no-cache"), ("ETag", "\"v1\"")])
        #expect(validators(CachePolicy.decide(request, stored: noCache, now: t0)) != nil)
        #expect(CachePolicy.decide(request([("Cache-Control", "only-if-cached")]), stored: nil, now: t0) == .unsatisfiable)
        #expect(CachePolicy.decide(request([("Cache-Control", "only-if-cached")]), stored: stored, now: t0 + 100) == .unsatisfiable)
        #expect(CachePolicy.decide(request([("Cache-Control", "no-store")]), stored: stored, now: t0) == .network)
    }

    @Test func storability() {
        func head(_ status: HTTPResponse.Status, _ fields: [(String, String)]) -> HTTPResponse {
            var response = HTTPResponse(status: status)
            for (name, value) in fields { response.headerFields[HTTPField.Name(name)!] = value }
            return response
        }
        #expect(CachePolicy.isStorable(head(.ok, []), for: request))
        #expect(CachePolicy.isStorable(head(.notFound, []), for: request))
        #expect(!CachePolicy.isStorable(head(.found, []), for: request))                                   // no freshness
        #expect(CachePolicy.isStorable(head(.found, [("Cache-Control", "max-age=5")]), for: request))
        #expect(!CachePolicy.isStorable(head(.ok, [("Cache-Control", "no-store")]), for: request))
        #expect(!CachePolicy.isStorable(head(.ok, []), for: self.request([("Cache-Control", "no-store")])))
        #expect(!CachePolicy.isStorable(head(.ok, [("Vary", "Accept, *")]), for: request))
        #expect(!CachePolicy.isStorable(head(.partialContent, [("Cache-Control", "max-age=5")]), for: request))
        var post = request
        post.method = .post
        #expect(!CachePolicy.isStorable(head(.ok, [("Cache-Control", "max-age=5")]), for: post))
        #expect(CachePolicy.isStorable(head(.ok, []), for: self.request([("Authorization", "Bearer t")])))  // private cache
    }

    @Test func varyMatchesTheNominatedFields() {
        var response = HTTPResponse(status: .ok)
        response.headerFields[.vary] = "Accept-Language, accept"
        let english = request([("Accept-Language", "en"), ("Accept", "application/json")])
        var stored = entry([("Cache-Control", "max-age=60")])
        stored.vary = CachePolicy.varyValues(of: response, request: english)
        // The credential fields are recorded whatever `Vary` says (here: absent).
        let expected: [String: String?] = ["accept-language": "en", "accept": "application/json", "authorization": nil, "cookie": nil]
        #expect(stored.vary == expected)
        #expect(isStored(CachePolicy.decide(english, stored: stored, now: t0)))
        #expect(!isStored(CachePolicy.decide(request([("Accept-Language", "fr"), ("Accept", "application/json")]), stored: stored, now: t0)))
        #expect(!isStored(CachePolicy.decide(request([("Accept", "application/json")]), stored: stored, now: t0)))
    }

    @Test func a304UpdatesTheStoredFieldsButThoseOfTheBody() {
        let stored = entry([("ETag", "\"v1\""), ("Content-Length", "1"), ("Cache-Control", "max-age=5"), ("X-Old", "kept")])
        var notModified = HTTPResponse(status: .notModified)
        notModified.headerFields[.cacheControl] = "max-age=600"
        notModified.headerFields[.contentLength] = "0"
        notModified.headerFields[HTTPField.Name("X-New")!] = "added"
        let refreshed = CachePolicy.refreshed(stored, with: notModified, requestTime: t0 + 100, responseTime: t0 + 101)
        #expect(refreshed.value("Cache-Control") == "max-age=600" && refreshed.value("Content-Length") == "1")
        #expect(refreshed.value("X-Old") == "kept" && refreshed.value("X-New") == "added" && refreshed.body == stored.body)
        #expect(refreshed.responseTime == t0 + 101)
    }
}
