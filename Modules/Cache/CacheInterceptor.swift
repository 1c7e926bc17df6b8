import CourierCore
import FoundationEssentials
import HTTPTypes

/// The network interceptor of an ``HTTPCache``: answers from it, validates with the origin, and stores what
/// may be stored. Get one from ``HTTPCache/interceptor``.
public struct CacheInterceptor: Interceptor {
    let cache: HTTPCache

    /// Answers `request` from the cache, or sends it (validating a stored response when it can) and stores the answer.
    public func intercept(_ request: HTTPRequest, body: Body?, context: RequestContext, next: InterceptorNext) async throws -> Response {
        guard let key = CachePolicy.key(for: request) else { return try await next(request, body: body, context: context) }
        guard request.method == .get else {
            let response = try await next(request, body: body, context: context)
            if CachePolicy.invalidates(request, response.head) { invalidate(after: request, response.head) }
            return response
        }
        // A caller's own conditional request is theirs to answer: it goes as it is.
        if request.headerFields[.ifNoneMatch] != nil || request.headerFields[.ifModifiedSince] != nil || request.headerFields[.range] != nil {
            return try await next(request, body: body, context: context)
        }
        let now = cache.clock()
        switch CachePolicy.decide(request, stored: cache.store.entry(for: key), now: now) {
        case .useStored(let entry):
            cache.count { $0.hits += 1 }
            return response(from: entry, for: request, now: now)
        case .unsatisfiable:
            cache.count { $0.misses += 1 }
            return Response(head: HTTPResponse(status: .gatewayTimeout), request: request)
        case .network:
            cache.count { $0.misses += 1 }
            return try await fetch(request, key: key, body: body, context: context, next: next)
        case .validate(let entry, let conditions):
            var conditional = request
            for condition in conditions {
                if let name = HTTPField.Name(condition.name) { conditional.headerFields[name] = condition.value }
            }
            let requestTime = cache.clock()
            let response = try await next(conditional, body: body, context: context)
            guard response.status == .notModified else {
                cache.count { $0.misses += 1 }
                return try await storing(response, for: request, key: key, requestTime: requestTime)
            }
            await response.body.drain(upTo: 64 * 1024)
            let refreshed = CachePolicy.refreshed(entry, with: response.head, requestTime: requestTime, responseTime: cache.clock())
            cache.store.store(refreshed)
            cache.count { $0.validated += 1 }
            return self.response(from: refreshed, for: request, now: cache.clock(), metrics: response.metrics)
        }
    }

    private func fetch(_ request: HTTPRequest, key: String, body: Body?, context: RequestContext, next: InterceptorNext) async throws -> Response {
        let requestTime = cache.clock()
        let response = try await next(request, body: body, context: context)
        return try await storing(response, for: request, key: key, requestTime: requestTime)
    }

    /// Stores `response` when it may be stored and its body has a known length within the limit (the body is
    /// then read here and handed on from memory); returns what the caller gets.
    private func storing(_ response: Response, for request: HTTPRequest, key: String, requestTime: Date) async throws -> Response {
        guard CachePolicy.isStorable(response.head, for: request) else {
            if CacheControl(response.head.headerFields[values: .cacheControl]).noStore { cache.store.remove(key) }
            return response
        }
        guard case .known(let length) = response.body.length, length <= cache.maximumEntrySize else { return response }
        let data = try await response.body.collect(upTo: cache.maximumEntrySize)
        let entry = CacheEntry(
            key: key, response: response.head, body: data, vary: CachePolicy.varyValues(of: response.head, request: request),
            requestTime: requestTime, responseTime: cache.clock()
        )
        cache.store.store(entry)
        cache.count { $0.stores += 1 }
        var fresh = response
        fresh.body = Body(data)
        return fresh
    }

    /// The stored response as the caller sees it: its `Age` field set to the entry's age now.
    private func response(from entry: CacheEntry, for request: HTTPRequest, now: Date, metrics: TransferMetrics? = nil) -> Response {
        var head = entry.head
        head.headerFields[.age] = String(Int(CachePolicy.age(of: entry, now: now).rounded(.down)))
        return Response(head: head, body: Body(entry.body), metrics: metrics, request: request)
    }

    /// Removes what is stored for the request's URL and for its response's `Location` and `Content-Location`
    /// on the same host (RFC 9111 §4.4).
    private func invalidate(after request: HTTPRequest, _ response: HTTPResponse) {
        var get = request
        get.method = .get
        if let key = CachePolicy.key(for: get) { cache.store.remove(key) }
        for field in [HTTPField.Name.location, .contentLocation] {
            guard let value = response.headerFields[field], let target = Self.sameHostPath(value, of: request) else { continue }
            var other = get
            other.path = target
            if let key = CachePolicy.key(for: other) { cache.store.remove(key) }
        }
    }

    /// The path of `reference` when it names the request's host (a path, or an absolute URL to the same authority).
    private static func sameHostPath(_ reference: String, of request: HTTPRequest) -> String? {
        if reference.hasPrefix("/") { return reference }
        guard let url = URL(string: reference), let host = url.host, let scheme = url.scheme,
              scheme.lowercased() == request.scheme?.lowercased() else { return nil }
        let authority = url.port.map { "\(host):\($0)" } ?? host
        guard authority.lowercased() == request.authority?.lowercased() else { return nil }
        let path = url.path(percentEncoded: true)
        return (path.isEmpty ? "/" : path) + (url.query(percentEncoded: true).map { "?\($0)" } ?? "")
    }
}
