import CourierCore
import FoundationEssentials
import HTTPTypes

/// RFC 9111's rules for a private cache as pure functions of the request, the stored entry and the clock
/// (okhttp's `CacheStrategy`): whether a response may be stored, how old and how fresh an entry is, and
/// whether a request is answered from the cache, validated with the origin, or sent on.
enum CachePolicy {
    /// What to do with a request.
    enum Decision: Equatable {
        /// Answer with the stored entry; nothing is sent.
        case useStored(CacheEntry)
        /// Send the request with these validators (`If-None-Match`, `If-Modified-Since`); a `304` means the
        /// entry is still good.
        case validate(CacheEntry, conditions: [CacheEntry.Field])
        /// Send the request as it is; the entry (if any) cannot serve it.
        case network
        /// `only-if-cached` and nothing stored can answer: `504 Gateway Timeout` without sending.
        case unsatisfiable
    }

    /// Statuses a cache may store without explicit freshness (RFC 9110 §15.1: heuristically cacheable).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// A heuristic lifetime is this share of the time since `Last-Modified` (RFC 9111 §4.2.2)…
    static let heuristicFraction = 0.1
    /// …and at most a day, so a file unchanged for years is still checked daily.
    static let maximumHeuristicLifetime: TimeInterval = 86_400

    /// The key of a request: the method and the URL (`GET https://host/path?query`).
    static func key(for request: HTTPRequest) -> String? {
        guard let scheme = request.scheme, let authority = request.authority else { return nil }
        return "\(request.method.rawValue) \(scheme.lowercased())://\(authority.lowercased())\(request.path ?? "/")"
    }

    /// True when `response` to `request` may be stored (RFC 9111 §3): a `GET`, a final status the cache
    /// understands, no `no-store` on either side, no `Vary: *`, and explicit freshness or a status that is
    /// heuristically cacheable. `Authorization` does not prevent it: this cache is private (but the entry answers
    /// only requests with the same credentials, ``credentialFields``).
    static func isStorable(_ response: HTTPResponse, for request: HTTPRequest) -> Bool {
        guard request.method == .get, response.status.code >= 200, response.status.code != 206 else { return false }
        let requestControl = CacheControl(request.headerFields[values: .cacheControl])
        let responseControl = CacheControl(response.headerFields[values: .cacheControl])
        guard !requestControl.noStore, !responseControl.noStore else { return false }
        let vary = response.headerFields[values: .vary].flatMap { $0.split(separator: ",") }.map { String($0.trimmingOptionalWhitespace()) }
        guard !vary.contains("*") else { return false }
        let explicit = responseControl.maxAge != nil || response.headerFields[.expires] != nil
        return explicit || heuristicallyCacheable.contains(response.status.code)
    }

    /// Request fields that say who is asking. A stored response answers only a request with the same values of
    /// these as the request it answered (none, if it had none), as if the response had named them in `Vary`.
    ///
    /// Why, in a private cache that RFC 9111 lets store and reuse authenticated responses: a private cache assumes
    /// one user, and a Courier session often serves many (a server calling an API for each of its users, with
    /// their tokens), or one user who signs out and in as another. Reused across credentials, a stored response
    /// handed one user's data to the next. The values are kept as SHA-256 digests, so no token or cookie is
    /// written into a disk cache's files.
    static let credentialFields: [HTTPField.Name] = [.authorization, .cookie]

    /// The request header values `response`'s `Vary` names, and those of ``credentialFields`` (as digests).
    static func varyValues(of response: HTTPResponse, request: HTTPRequest) -> [String: String?] {
        var values: [String: String?] = [:]
        for name in response.headerFields[values: .vary].flatMap({ $0.split(separator: ",") }) {
            let field = name.trimmingOptionalWhitespace().lowercased()
            guard let fieldName = HTTPField.Name(field) else { continue }
            values[field] = value(of: fieldName, in: request)
        }
        for field in credentialFields {
            values[field.canonicalName] = value(of: field, in: request)
        }
        return values
    }

    /// What the cache keeps of a request field: its values joined, a credential's as its digest; `nil` when absent.
    private static func value(of field: HTTPField.Name, in request: HTTPRequest) -> String? {
        let values = request.headerFields[values: field]
        guard !values.isEmpty else { return nil }
        let joined = values.joined(separator: ", ")
        return credentialFields.contains(field) ? "sha256:" + SHA256Digest.hex(joined.utf8) : joined
    }

    /// How long the entry stays fresh from when it was generated (RFC 9111 §4.2.1): `max-age`, else
    /// `Expires` − `Date`, else a tenth of `Date` − `Last-Modified` (at most a day) for a heuristically
    /// cacheable status, else 0.
    static func freshnessLifetime(of entry: CacheEntry) -> TimeInterval {
        let control = CacheControl(entry.values("Cache-Control"))
        if let maxAge = control.maxAge { return TimeInterval(maxAge) }
        let date = entry.value("Date").flatMap(HTTPDate.parse) ?? entry.responseTime
        if let expiresText = entry.value("Expires") {
            // An invalid Expires (`0`, `-1`) means already expired.
            guard let expires = HTTPDate.parse(expiresText) else { return 0 }
            return max(0, expires.timeIntervalSince(date))
        }
        if heuristicallyCacheable.contains(entry.status), let modified = entry.value("Last-Modified").flatMap(HTTPDate.parse) {
            return min(maximumHeuristicLifetime, max(0, date.timeIntervalSince(modified) * heuristicFraction))
        }
        return 0
    }

    /// How old the entry is at `now` (RFC 9111 §4.2.3).
    static func age(of entry: CacheEntry, now: Date) -> TimeInterval {
        let date = entry.value("Date").flatMap(HTTPDate.parse) ?? entry.responseTime
        let apparentAge = max(0, entry.responseTime.timeIntervalSince(date))
        let ageValue = entry.value("Age").flatMap { CacheControl.seconds(String($0.trimmingOptionalWhitespace())) }.map(TimeInterval.init) ?? 0
        let responseDelay = max(0, entry.responseTime.timeIntervalSince(entry.requestTime))
        let correctedInitialAge = max(apparentAge, ageValue + responseDelay)
        return correctedInitialAge + max(0, now.timeIntervalSince(entry.responseTime))
    }

    /// What to do with `request`, given the entry stored for its key (if any), at `now`.
    static func decide(_ request: HTTPRequest, stored: CacheEntry?, now: Date) -> Decision {
        let requestControl = CacheControl(request.headerFields[values: .cacheControl])
        guard request.method == .get, !requestControl.noStore else { return .network }
        guard let entry = stored, matchesVary(entry, request) else {
            return requestControl.onlyIfCached ? .unsatisfiable : .network
        }
        let responseControl = CacheControl(entry.values("Cache-Control"))
        let pragmaNoCache = request.headerFields[values: pragma].contains { $0.lowercased().contains("no-cache") }
        let mustValidate = requestControl.noCache || responseControl.noCache
            || (pragmaNoCache && request.headerFields[.cacheControl] == nil)
        if !mustValidate {
            let age = age(of: entry, now: now)
            var lifetime = freshnessLifetime(of: entry)
            if let maxAge = requestControl.maxAge { lifetime = min(lifetime, TimeInterval(maxAge)) }
            let minFresh = TimeInterval(requestControl.minFresh ?? 0)
            var staleness = 0.0
            if !responseControl.mustRevalidate, let maxStale = requestControl.maxStale {
                staleness = TimeInterval(maxStale)
            }
            if age + minFresh < lifetime + staleness { return .useStored(entry) }
        }
        if requestControl.onlyIfCached { return .unsatisfiable }
        let conditions = validators(of: entry)
        return conditions.isEmpty ? .network : .validate(entry, conditions: conditions)
    }

    /// `If-None-Match` from the entry's `ETag`, `If-Modified-Since` from its `Last-Modified`.
    static func validators(of entry: CacheEntry) -> [CacheEntry.Field] {
        var conditions: [CacheEntry.Field] = []
        if let etag = entry.value("ETag") { conditions.append(.init(name: "If-None-Match", value: etag)) }
        if let modified = entry.value("Last-Modified") { conditions.append(.init(name: "If-Modified-Since", value: modified)) }
        return conditions
    }

    /// The entry after a `304` to its validation (RFC 9111 §4.3.4): its fields updated with the 304's, but
    /// those that describe the stored body; the new request and response times.
    static func refreshed(_ entry: CacheEntry, with notModified: HTTPResponse, requestTime: Date, responseTime: Date) -> CacheEntry {
        var entry = entry
        let kept: Set<String> = ["content-length", "content-encoding", "transfer-encoding", "content-range", "connection"]
        var updates: [String: [String]] = [:]
        for field in notModified.headerFields where !kept.contains(field.name.canonicalName) {
            updates[field.name.canonicalName, default: []].append(field.value)
        }
        entry.fields.removeAll { updates[$0.name.lowercased()] != nil }
        for field in notModified.headerFields where updates[field.name.canonicalName] != nil {
            entry.fields.append(.init(name: field.name.rawName, value: field.value))
        }
        entry.requestTime = requestTime
        entry.responseTime = responseTime
        return entry
    }

    /// True when the request has the values the entry's `Vary` recorded, and the same credentials
    /// (``credentialFields``) as the request the entry answered.
    static func matchesVary(_ entry: CacheEntry, _ request: HTTPRequest) -> Bool {
        // An entry recorded without a credential field (one a test or an older store made) counts it as absent.
        for field in credentialFields where entry.vary[field.canonicalName] == nil {
            guard request.headerFields[field] == nil else { return false }
        }
        return entry.vary.allSatisfy { name, recorded in
            guard let fieldName = HTTPField.Name(name) else { return false }
            return value(of: fieldName, in: request) == recorded
        }
    }

    /// True for a method that changes state: its success invalidates what is stored for its target.
    static func invalidates(_ request: HTTPRequest, _ response: HTTPResponse) -> Bool {
        ![.get, .head, .options, .trace].contains(request.method) && (200..<400).contains(response.status.code)
    }
}

private let pragma = HTTPField.Name("Pragma")!
