import CourierCore
import CourierRequestSerialization
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

@Suite("Header helpers")
struct HeaderHelpersTests {
    // MARK: setValue and value(forHeader:)

    @Test func aSetValueReadsBackAndNilRemovesIt() throws {
        // Checklist 26.
        var serializer = HTTPRequestSerializer()
        try serializer.setValue("Actual Value", forHeader: "Set-Header")
        #expect(serializer.value(forHeader: "Set-Header") == "Actual Value")
        #expect(serializer.value(forHeader: "set-header") == "Actual Value")
        #expect(serializer.value(forHeader: "Unset-Header") == nil)
        try serializer.setValue(nil, forHeader: "Set-Header")
        #expect(serializer.value(forHeader: "Set-Header") == nil)
        #expect(serializer.defaultHeaderFields[HTTPField.Name("Set-Header")!] == nil)
    }

    @Test func setValueReplacesEveryValueOfTheName() throws {
        var serializer = JSONRequestSerializer(defaultHeaderFields: [:])
        serializer.defaultHeaderFields.append(HTTPField(name: .accept, value: "text/html"))
        serializer.defaultHeaderFields.append(HTTPField(name: .accept, value: "text/plain"))
        #expect(serializer.value(forHeader: "Accept") == "text/html, text/plain")
        try serializer.setValue("application/json", forHeader: "accept")
        #expect(serializer.defaultHeaderFields[values: .accept] == ["application/json"])
        #expect(serializer.defaultHeaderFields.count == 1)
    }

    @Test func setDefaultsReachEveryRequestWithoutOverridingItsOwn() throws {
        var serializer = PropertyListRequestSerializer()
        try serializer.setValue("2", forHeader: "X-API-Version")
        try serializer.setValue("bar value", forHeader: "X-Bar")
        let request = try makeRequest(.get, "http://example.com/", headers: [.xBar: "request value"])
        let sent = try serializer.serialize(request, parameters: nil).request
        #expect(sent.headerFields[HTTPField.Name("X-API-Version")!] == "2")
        #expect(sent.headerFields[values: .xBar] == ["request value"])
    }

    @Test(arguments: ["", "Bad Name", "Bad:Name", "Ünicode", "a\r\nb"])
    func anInvalidNameThrowsAndChangesNothing(name: String) {
        var serializer = HTTPRequestSerializer()
        let before = serializer.defaultHeaderFields
        #expect(throws: InvalidRequestError.self) { try serializer.setValue("v", forHeader: name) }
        #expect(throws: InvalidRequestError.self) { try serializer.setValue(nil, forHeader: name) }
        do {
            try serializer.setValue("v", forHeader: name)
        } catch {
            #expect(error.reason == .invalidHeaderName)
            #expect(error.input == name)
        }
        #expect(serializer.value(forHeader: name) == nil)
        #expect(serializer.defaultHeaderFields == before)
    }

    @Test(arguments: ["a\rb", "a\nb", "a\r\nInjected: 1", "nul\u{0}", "bell\u{7}", " leading", "trailing "])
    func aValueWithCRLFNULOrControlsThrowsNamingTheHeader(value: String) {
        var serializer = HTTPRequestSerializer()
        let before = serializer.defaultHeaderFields
        do {
            try serializer.setValue(value, forHeader: "X-Test")
            Issue.record("expected \(value.debugDescription) to be refused")
        } catch {
            #expect(error.reason == .invalidHeaderValue)
            #expect(error.input == "X-Test")
            #expect(error.description.hasPrefix(#"invalid header value: "X-Test""#))
        }
        #expect(serializer.defaultHeaderFields == before)
    }

    @Test func anEmptyValueIsAllowed() throws {
        var serializer = HTTPRequestSerializer(defaultHeaderFields: [:])
        try serializer.setValue("", forHeader: "X-Empty")
        #expect(serializer.value(forHeader: "X-Empty") == "")
    }

    // MARK: Authorization

    @Test func basicAuthorizationIsBase64OfUserColonPassword() throws {
        // Checklist 31 (offline part).
        var serializer = HTTPRequestSerializer()
        serializer.setAuthorization(username: "user", password: "password")
        #expect(serializer.value(forHeader: "Authorization") == "Basic dXNlcjpwYXNzd29yZA==")
        let sent = try serializer.serialize(try makeRequest(.get, "http://example.com/hidden-basic-auth/user/password"), parameters: nil)
        #expect(sent.request.headerFields[.authorization] == "Basic dXNlcjpwYXNzd29yZA==")

        serializer.clearAuthorizationHeader()
        #expect(serializer.value(forHeader: "Authorization") == nil)
        let cleared = try serializer.serialize(try makeRequest(.get, "http://example.com/"), parameters: nil)
        #expect(cleared.request.headerFields[.authorization] == nil)
    }

    @Test func longOrUnusualCredentialsStayOnOneLine() {
        var serializer = JSONRequestSerializer()
        serializer.setAuthorization(username: String(repeating: "u", count: 200), password: "pä\r\nss")
        let value = serializer.value(forHeader: "Authorization") ?? ""
        #expect(value.hasPrefix("Basic "))
        #expect(!value.contains("\n") && !value.contains("\r"))
        let encoded = String(value.dropFirst("Basic ".count))
        let decoded = Data(base64Encoded: encoded).map { String(decoding: $0, as: UTF8.self) }
        #expect(decoded == String(repeating: "u", count: 200) + ":pä\r\nss")
        // An empty user and password still make a header.
        serializer.setAuthorization(username: "", password: "")
        #expect(serializer.value(forHeader: "Authorization") == "Basic Og==")
    }

    @Test func bearerTokens() throws {
        var serializer = PropertyListRequestSerializer()
        try serializer.setBearerToken("t")
        #expect(serializer.value(forHeader: "Authorization") == "Bearer t")
        serializer.setAuthorization(username: "a", password: "b")
        try serializer.setBearerToken("abc.def-ghi")
        #expect(serializer.defaultHeaderFields[values: .authorization] == ["Bearer abc.def-ghi"])
        for bad in ["t\r\nX-Injected: 1", "t\n", "t\u{0}"] {
            do {
                try serializer.setBearerToken(bad)
                Issue.record("expected \(bad.debugDescription) to be refused")
            } catch {
                #expect(error.reason == .invalidHeaderValue)
                #expect(error.input == "Authorization")
            }
        }
        #expect(serializer.value(forHeader: "Authorization") == "Bearer abc.def-ghi")
        serializer.clearAuthorizationHeader()
        #expect(serializer.value(forHeader: "Authorization") == nil)
    }

    @Test func basicAuthorizationIsSentThroughASession() async throws {
        // Checklist 31 through a session: a server needing the credentials answers 200, 404
        // without them (as httpbin's hidden-basic-auth does).
        let transport = MockTransport { request in
            request.head.headerFields[.authorization] == "Basic dXNlcjpwYXNzd29yZA==" ? .status(.ok) : .status(.notFound)
        }
        var serializer = HTTPRequestSerializer()
        serializer.setAuthorization(username: "user", password: "password")
        let authorized = Session(configuration: SessionConfiguration(requestSerializer: serializer), transport: transport)
        #expect(try await authorized.get("http://example.com/hidden-basic-auth/user/password").response.status == .ok)

        serializer.clearAuthorizationHeader()
        let anonymous = Session(configuration: SessionConfiguration(requestSerializer: serializer), transport: transport)
        #expect(try await anonymous.get("http://example.com/hidden-basic-auth/user/password").response.status == .notFound)
        #expect(transport.requests.map { $0.head.headerFields[.authorization] } == ["Basic dXNlcjpwYXNzd29yZA==", nil])
    }

    // MARK: Concurrency

    @Test func aThousandConcurrentHeaderWritesOnCopies() async throws {
        // Checklist 27: serializers are values. Each of 1000 tasks writes the same field of its
        // own copy while all of them serialize with one shared serializer; ThreadSanitizer (CI)
        // sees no race, and every request carries exactly what its copy says.
        let shared = HTTPRequestSerializer()
        let request = try makeRequest(.post, "http://example.com/")
        let name = try #require(HTTPField.Name("X-Concurrent"))
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for index in 0..<1000 {
                group.addTask {
                    var copy = shared
                    guard (try? copy.setValue("value \(index)", forHeader: "X-Concurrent")) != nil,
                          let mine = try? copy.serialize(request, parameters: ["i": .int(index)]),
                          let theirs = try? shared.serialize(request, parameters: ["i": .int(index)])
                    else { return 1 }
                    let ok = mine.request.headerFields[values: name] == ["value \(index)"]
                        && theirs.request.headerFields[name] == nil
                        && theirs.request.headerFields[.userAgent] == UserAgent.current()
                    return ok ? 0 : 1
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
        #expect(shared.value(forHeader: "X-Concurrent") == nil)
    }

    @Test func aThousandConcurrentWritesToOneSharedSerializerBehindALock() async throws {
        // Checklist 27, AFNetworking's shape: one serializer, one field, 1000 writers. A value
        // shared for writing needs a lock; with one, the last write wins and nothing tears.
        let shared = LockedSerializer(HTTPRequestSerializer(defaultHeaderFields: [:]))
        let request = try makeRequest(.get, "http://example.com/")
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<1000 {
                group.addTask {
                    shared.lock.withLock { _ = try? $0.setValue("value \(index)", forHeader: "X-Concurrent") }
                    let snapshot = shared.lock.withLock { $0 }
                    _ = try? snapshot.serialize(request, parameters: ["i": .int(index)])
                }
            }
        }
        let final = shared.lock.withLock { $0 }
        let value = try #require(final.value(forHeader: "X-Concurrent"))
        #expect(value.hasPrefix("value "))
        #expect(Int(value.dropFirst("value ".count)).map { (0..<1000).contains($0) } == true)
        #expect(final.defaultHeaderFields.count == 1)
    }
}

/// A serializer shared for writing: a value behind Core's `Locked` (a pthread mutex that
/// ThreadSanitizer sees; it cannot see `Synchronization.Mutex` on Linux, docs/architecture.md §8 (g)).
final class LockedSerializer: Sendable {
    let lock: Locked<HTTPRequestSerializer>
    init(_ serializer: HTTPRequestSerializer) { lock = Locked(serializer) }
}
