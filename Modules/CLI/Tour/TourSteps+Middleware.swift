import CourierAuthentication
import CourierCache
import CourierCookies
import CourierCore
import CourierStreaming
import Foundation
import HTTPTypes
import Synchronization

extension TourStep {
    /// CourierAuthentication: one refresh for many calls refused at once.
    static func authentication(server: String) -> TourStep {
        TourStep(
            title: "Authentication with one refresh",
            explanation: "CourierAuthentication's AuthenticationInterceptor puts a credential on every call and refreshes it when the server refuses it (a 401), once for every call waiting at that moment. Eight calls leave at once with a wrong password for httpbin's /basic-auth/ada/s3cret; the refresh fetches the right one over HTTP from /base64.",
            command: "courier \(server)/basic-auth/ada/s3cret -a ada:s3cret"
        ) { context in
            let passwords = PasswordEndpoint(session: context.session())
            let auth = AuthenticationInterceptor(authenticator: passwords, credential: TourPassword(value: "wrong"))
            let api = context.session { $0.interceptors = [auth] }
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<8 { group.addTask { try await api.data(.get, "basic-auth/ada/s3cret").status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let refreshes = passwords.refreshes.load(ordering: .relaxed)
            context.say("→ 8 × GET /basic-auth/ada/s3cret with the password \"wrong\"")
            context.say("← \(statuses.filter { $0 == .ok }.count) × 200 after \(refreshes) refresh (the password now \"\(auth.credential?.value ?? "")\")")
            guard statuses.count == 8, statuses.allSatisfy({ $0 == .ok }) else { throw TourFailure("not every call succeeded: \(statuses)") }
            guard refreshes == 1 else { throw TourFailure("\(refreshes) refreshes for 8 calls, expected 1") }
        }
    }

    /// CourierCookies: a cookie set on a redirect hop, kept in a file curl reads.
    static func cookies(server: String) -> TourStep {
        TourStep(
            title: "Cookies",
            explanation: "CourierCookies' CookieJar keeps cookies by the browsers' rules (RFC 6265bis, public suffixes refused through libpsl). As a network interceptor it sees every hop: httpbin's /cookies/set sets the cookies on a 302 and the next hop, /cookies, already gets them back. The jar is written in curl's cookie-file format.",
            command: "courier --session tour \(server)/cookies/set?tour=yes"
        ) { context in
            let jar = CookieJar()
            let api = context.session { $0.networkInterceptors = [CookieInterceptor(jar: jar)] }
            let response = try await api.data(.get, "cookies/set?tour=yes&flavor=oatmeal")
            let echoed = try TourContext.canonicalJSON(of: "cookies", in: response.data)
            context.say("→ GET /cookies/set?tour=yes&flavor=oatmeal → 302 with Set-Cookie → GET /cookies")
            context.say("← \(TourContext.status(response.head)), /cookies received \(echoed)")
            try TourContext.expect(echoed, equals: #"{"flavor":"oatmeal","tour":"yes"}"#, "the cookies the next hop received")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-tour-cookies-\(ProcessInfo.processInfo.processIdentifier).txt").path
            defer { try? FileManager.default.removeItem(atPath: file) }
            try jar.write(netscapeFile: file)
            let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
            context.say("The jar as curl reads it (curl -b FILE): \(lines.count) cookies, e.g. \(lines.first.map { $0.replacingOccurrences(of: "\t", with: " ") } ?? "none")")
        }
    }

    /// CourierCache: a fresh response answered from the cache, a stale one revalidated.
    static func cache(server: String) -> TourStep {
        TourStep(
            title: "HTTP cache",
            explanation: "CourierCache's HTTPCache is a private cache by RFC 9111, as a network interceptor. httpbin's /cache/60 is fresh for a minute: the second GET is answered from the cache, with an Age, and sends nothing. /etag/tour has an ETag and no freshness: the second GET is sent with If-None-Match, and httpbin's 304 serves the stored body.",
            command: nil
        ) { context in
            let cache = try HTTPCache(.memory(maximumBytes: 1 << 20))
            let api = context.session { $0.networkInterceptors = [cache.interceptor] }
            _ = try await api.data(.get, "cache/60")
            let hit = try await api.data(.get, "cache/60")
            context.say("GET /cache/60 twice: the second from the cache (Age: \(hit.head.headerFields[.age] ?? "none"))")
            _ = try await api.data(.get, "etag/tour")
            let validated = try await api.data(.get, "etag/tour")
            context.say("GET /etag/tour twice: the second revalidated with If-None-Match, \(TourContext.status(validated.head)) from the stored body")
            let statistics = cache.statistics
            context.say("hits \(statistics.hits), validated \(statistics.validated), misses \(statistics.misses), stored \(statistics.stores)")
            guard statistics.hits == 1, statistics.validated == 1 else { throw TourFailure("expected one hit and one validation, got \(statistics)") }
        }
    }

    /// CourierStreaming: NDJSON decoded line by line as it arrives.
    static func lineStream(server: String) -> TourStep {
        TourStep(
            title: "A stream of JSON lines",
            explanation: "CourierStreaming reads a body as it arrives, in constant memory: httpbin's /stream/5 sends five JSON objects, one a line, and Body.jsonLines(of:) decodes each one as soon as its line ends.",
            command: "courier --stream \(server)/stream/5"
        ) { context in
            struct Line: Decodable, Sendable { var id: Int }
            let api = context.session()
            let response = try await api.send(try api.makeRequest(.get, "stream/5"))
            var ids: [Int] = []
            for try await line in response.body.jsonLines(of: Line.self) { ids.append(line.id) }
            context.say("← \(TourContext.status(response.head)), \(ids.count) lines decoded as they came: ids \(ids)")
            guard ids == [0, 1, 2, 3, 4] else { throw TourFailure("ids \(ids), expected 0 to 4") }
        }
    }

    /// CourierStreaming: server-sent events through a server that drops the stream.
    static func serverSentEvents(server: String) -> TourStep {
        TourStep(
            title: "Server-sent events",
            explanation: "session.events(_:) reads a text/event-stream by the WHATWG EventSource rules. This server drops the connection after every two events; the sequence reconnects after the server's retry: time with Last-Event-ID, so no event is lost, and stops when the server answers 204.",
            command: "courier --stream '\(server)/events?count=3'"
        ) { context in
            let stream = "tour-\(ProcessInfo.processInfo.processIdentifier)-\(Int.random(in: 0...Int.max))"
            let api = context.session(baseURL: server)
            var received: [String] = []
            for try await event in try api.events("events?count=5&drop_after=2&retry=20&stream=\(stream)") {
                received.append(event.lastEventID)
                context.say("event #\(event.lastEventID): \(event.data)")
            }
            guard received == ["1", "2", "3", "4", "5"] else { throw TourFailure("events \(received), expected 1 to 5") }
            context.say("5 events over 3 connections, then 204: the sequence ended")
        }
    }
}

/// The tour's credential: a password.
private struct TourPassword: AuthenticationCredential {
    var value: String
    var requiresRefresh: Bool { false }
}

/// Applies the password as Basic authorization for `ada`; a refresh fetches the right one from httpbin's `/base64`.
private final class PasswordEndpoint: Authenticator {
    let refreshes = Atomic<Int>(0)
    let session: Session

    init(session: Session) { self.session = session }

    func apply(_ credential: TourPassword, to request: inout HTTPRequest) {
        request.headerFields[.authorization] = "Basic " + Data("ada:\(credential.value)".utf8).base64EncodedString()
    }

    func refresh(_ credential: TourPassword) async throws -> TourPassword {
        refreshes.add(1, ordering: .relaxed)
        let answer = try await session.data(.get, "base64/" + Data("s3cret".utf8).base64EncodedString())
        guard answer.status == .ok else { throw TourFailure("the password endpoint answered \(answer.status.code)") }
        return TourPassword(value: answer.text)
    }
}
