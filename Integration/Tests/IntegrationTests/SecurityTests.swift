import CourierCore
import CourierCurl
import CourierSecurity
import Foundation
import HTTPTypes
import Testing

/// CourierSecurity against real TLS servers: checklist E's live items (88, 89), evaluation inside the
/// handshake (the zero-bytes proof), connection reuse across evaluators, and mutual TLS.
@Suite("Security", .serialized)
struct SecurityTests {
    /// A certificate of the servers' fixtures (Integration/Servers/gen-certs.sh).
    static func certificate(_ name: String) throws -> Certificate {
        try #require(try Certificate.certificates(contentsOfFile: "\(Servers.certsDirectory)/\(name).pem").first)
    }

    /// {R}: the tests' system trust (behaviour-spec §4).
    static func anchorsR() throws -> TrustAnchors { .certificates([try certificate("root")]) }

    /// The TrustError a failed call carries.
    static func trustError(_ error: any Error) -> TrustError? {
        (error as? CourierError)?.underlyingError as? TrustError
    }

    func get(_ base: String, _ path: String = "get", transport: CurlTransport = sharedTransport,
             evaluator: (any ServerTrustEvaluator)?) async throws -> DataResponse {
        let s = session(base, transport: transport) { $0.trustEvaluator = evaluator }
        return try await s.data(for: try s.makeRequest(.get, path))
    }

    // MARK: Checklist E, live

    @Test("88: pinning SS-CN refuses the L-I-R server with -1202 and AFNetworking's description", arguments: [SecurityPolicy.PinningMode.certificate, .publicKey])
    func item88(mode: SecurityPolicy.PinningMode) async throws {
        let policy = SecurityPolicy(pinningMode: mode, pinnedCertificates: [try Self.certificate("ss-cn")], trustAnchors: try Self.anchorsR())
        let s = try Session(configuration: SessionConfiguration(baseURL: URL(string: Servers.tls)), transport: sharedTransport, securityPolicy: policy)
        let error = await #expect(throws: CourierError.self) { _ = try await s.get("get").response }
        let trust = try #require(error.flatMap(Self.trustError))
        #expect(trust.code == -1202)
        #expect(trust.message == "The certificate for this server is invalid. You might be connecting to a server that is pretending to be “127.0.0.1” which could put your confidential information at risk.")
        #expect(trust.failingURL?.absoluteString == Servers.tls + "/get")
        #expect(trust.serverTrust?.certificateChain.first == (try Self.certificate("leaf")).derBytes)
        // The reason lists the real chain's pins, leaf first.
        #expect(trust.reason.contains("\(try #require(try Self.certificate("leaf").publicKeyPin))"))
    }

    @Test("89: with no system anchors, pinning R needs allowInvalid; R2 is refused")
    func item89() async throws {
        let root = try Self.certificate("root")
        func policy(_ pins: [Certificate], allowInvalid: Bool) -> SecurityPolicy {
            SecurityPolicy(pinningMode: .certificate, pinnedCertificates: Set(pins), allowInvalidCertificates: allowInvalid,
                           trustAnchors: .certificates([]))
        }
        await #expect { _ = try await get(Servers.tls, evaluator: policy([root], allowInvalid: false)) } throws: {
            Self.trustError($0)?.code == -1202
        }
        let response = try await get(Servers.tls, evaluator: policy([root], allowInvalid: true))
        #expect(response.status == .ok)
        #expect(try json(response)["url"] as? String != nil)
        await #expect { _ = try await get(Servers.tls, evaluator: policy([try Self.certificate("root2")], allowInvalid: true)) } throws: {
            Self.trustError($0)?.code == -1202
        }
    }

    @Test("Default policy with {R}: the IP and the name pass; the unrelated chain and a wrong name fail")
    func defaultPolicy() async throws {
        let policy = SecurityPolicy(trustAnchors: try Self.anchorsR())
        #expect(try await get(Servers.tls, evaluator: policy).status == .ok)
        #expect(try await get(Servers.tlsLocalhost, evaluator: policy).status == .ok)
        await #expect { _ = try await get(Servers.tlsOther, evaluator: policy) } throws: { Self.trustError($0) != nil }
        // The other chain's root trusted: the chain is fine, but its leaf names other.test, not 127.0.0.1…
        var other = SecurityPolicy(trustAnchors: .certificates([try Self.certificate("root2")]))
        await #expect { _ = try await get(Servers.tlsOther, evaluator: other) } throws: {
            Self.trustError($0)?.reason.contains("does not name 127.0.0.1") == true
        }
        // …which validatesDomainName = false does not check (checklist 73's rule, live).
        other.validatesDomainName = false
        #expect(try await get(Servers.tlsOther, evaluator: other).status == .ok)
    }

    @Test("okhttp-style sha256/ pins of the intermediate pass; of another key fail")
    func keyPins() async throws {
        var policy = SecurityPolicy(pinningMode: .publicKey, trustAnchors: try Self.anchorsR())
        policy.pinnedPublicKeys = [try #require(try Self.certificate("intermediate").publicKeyPin)]
        #expect(try await get(Servers.tls, evaluator: policy).status == .ok)
        policy.pinnedPublicKeys = [try #require(try Self.certificate("intermediate2").publicKeyPin)]
        await #expect { _ = try await get(Servers.tls, evaluator: policy) } throws: { Self.trustError($0) != nil }
    }

    // MARK: In the handshake

    /// The recorder's connections, in order.
    func recorderLog() async throws -> [[String: Any]] {
        let response = try await get(Servers.tlsRecorder, "log", evaluator: SecurityPolicy(trustAnchors: try Self.anchorsR()))
        return try #require(try json(response)["connections"] as? [[String: Any]])
    }

    @Test("A refused server receives not one byte of the request: the handshake never completes")
    func zeroBytesBeforeRejection() async throws {
        let t = try transport { _ in }
        let known = Set(try await recorderLog().compactMap { $0["id"] as? Int })
        // Refused: pins SS-CN. The request carries a header and a body the server must never see.
        let refusing = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [try Self.certificate("ss-cn")], trustAnchors: try Self.anchorsR())
        let s = session(Servers.tlsRecorder, transport: t) { $0.trustEvaluator = refusing }
        var request = try s.makeRequest(.post, "secret")
        request.headerFields[HTTPField.Name("X-Secret")!] = "do-not-send"
        await #expect { _ = try await s.data(for: request, body: Body("password=hunter2")) } throws: {
            Self.trustError($0) != nil
        }
        // Accepted, as a control: the recorder does see a request when the handshake completes.
        let accepting = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [try Self.certificate("leaf")], trustAnchors: try Self.anchorsR())
        let accepted = try await get(Servers.tlsRecorder, "control", transport: t, evaluator: accepting)
        #expect(accepted.status == .ok)

        // The recorder adds a connection's record when the connection ends: a refused handshake when the server
        // reads the client's alert, the control when the client closes it (or 5 s later). Either can come after the
        // client's call returned, so the log is read until both are there (a record of each /log read may come too).
        func isRefused(_ record: [String: Any]) -> Bool { record["handshake"] as? String == "failed" }
        func isControl(_ record: [String: Any]) -> Bool { record["first_line"] as? String == "GET /control HTTP/1.1" }
        var new: [[String: Any]] = []
        for _ in 0..<60 {
            new = try await recorderLog().filter { !known.contains($0["id"] as? Int ?? 0) }
            if new.contains(where: isRefused) && new.contains(where: isControl) { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        let refused = new.filter(isRefused)
        let completed = new.filter(isControl)
        #expect(refused.count == 1, "the refused attempt: one connection whose handshake failed, got \(new)")
        #expect(refused.first?["application_bytes"] as? Int == 0)
        #expect(refused.first?["first_line"] is NSNull)
        // The client aborted with an alert (OpenSSL reports the alert the client sent).
        #expect((refused.first?["error"] as? String)?.contains("ALERT") == true)
        #expect(completed.count == 1 && (completed.first?["application_bytes"] as? Int ?? 0) > 0)
        #expect(!new.contains { ($0["first_line"] as? String)?.contains("secret") == true })
    }

    /// Counts its evaluations; equal to any other instance (so connections verified by one serve all).
    struct CountingEvaluator: ServerTrustEvaluator, Hashable {
        let policy: SecurityPolicy
        let calls: Box<Int>
        func evaluate(_ trust: ServerTrust) throws {
            calls.update { $0 += 1 }
            try policy.evaluate(trust)
        }
        static func == (a: Self, b: Self) -> Bool { a.policy == b.policy }
        func hash(into hasher: inout Hasher) { hasher.combine(policy) }
    }

    /// Counts its evaluations; not Hashable, so the transport cannot tell two of them apart.
    struct OpaqueEvaluator: ServerTrustEvaluator {
        let calls: Box<Int>
        func evaluate(_ trust: ServerTrust) throws { calls.update { $0 += 1 } }
    }

    @Test("An evaluator runs once per connection; a reused connection is not evaluated again")
    func evaluatedOncePerConnection() async throws {
        let t = try transport { $0.httpVersion = .http1_1 }
        let calls = Box(0)
        let evaluator = CountingEvaluator(policy: SecurityPolicy(trustAnchors: try Self.anchorsR()), calls: calls)
        let first = try await get(Servers.tls, transport: t, evaluator: evaluator)
        let second = try await get(Servers.tls, transport: t, evaluator: evaluator)
        #expect(first.metrics?.reusedConnection == false && second.metrics?.reusedConnection == true)
        #expect(calls.value == 1)
    }

    @Test("A connection one evaluator accepted never serves a request with another evaluator, or with none")
    func noReuseAcrossEvaluators() async throws {
        let t = try transport { $0.httpVersion = .http1_1; $0.certificateAuthorityFile = "/etc/ssl/certs/ca-certificates.crt" }
        let accepting = SecurityPolicy(trustAnchors: try Self.anchorsR())
        let refusing = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [try Self.certificate("ss-cn")], trustAnchors: try Self.anchorsR())
        #expect(try await get(Servers.tls, transport: t, evaluator: accepting).status == .ok)
        // Same host, same transport, an idle verified connection in the pool: still refused.
        await #expect { _ = try await get(Servers.tls, transport: t, evaluator: refusing) } throws: { Self.trustError($0) != nil }
        // No evaluator: curl's own verification (the system store, which lacks R) refuses too.
        await #expect { _ = try await get(Servers.tls, transport: t, evaluator: nil) } throws: { transportCode($0) == .tlsFailure }
        // An equal policy (a copy) reuses the accepted connection.
        let copy = accepting
        let again = try await get(Servers.tls, transport: t, evaluator: copy)
        #expect(again.status == .ok && again.metrics?.reusedConnection == true)
    }

    @Test("An evaluator that is not Hashable gets a connection of its own for every request")
    func opaqueEvaluatorsNeverShare() async throws {
        let t = try transport { $0.httpVersion = .http1_1 }
        let calls = Box(0)
        for _ in 0..<3 {
            let response = try await get(Servers.tls, transport: t, evaluator: OpaqueEvaluator(calls: calls))
            #expect(response.metrics?.reusedConnection == false)
        }
        #expect(calls.value == 3)
    }

    @Test("Concurrent HTTP/2 requests with one evaluator share a connection evaluated once")
    func http2SharesAnEvaluatedConnection() async throws {
        let t = try transport { _ in }
        let calls = Box(0)
        let evaluator = CountingEvaluator(policy: SecurityPolicy(trustAnchors: try Self.anchorsR()), calls: calls)
        let first = try await get(Servers.tls, "json", transport: t, evaluator: evaluator)
        #expect(first.metrics?.httpVersion == "HTTP/2")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    let response = try await get(Servers.tls, "json", transport: t, evaluator: evaluator)
                    #expect(response.status == .ok)
                }
            }
            try await group.waitForAll()
        }
        #expect(calls.value == 1)
    }

    @Test("An evaluator's own error type reaches the caller unchanged")
    func customErrorPassesThrough() async throws {
        struct Refusal: Error, Equatable { let host: String }
        struct Refuser: ServerTrustEvaluator, Hashable {
            func evaluate(_ trust: ServerTrust) throws { throw Refusal(host: trust.host) }
        }
        await #expect { _ = try await get(Servers.tlsLocalhost, evaluator: Refuser()) } throws: {
            (($0 as? CourierError)?.underlyingError as? Refusal) == Refusal(host: "localhost")
        }
    }

    @Test("The evaluator sees the chain the server sent, leaf first, and the host without port")
    func chainAndHost() async throws {
        let seen = Box<ServerTrust?>(nil)
        struct Recorder: ServerTrustEvaluator { let seen: Box<ServerTrust?>; func evaluate(_ trust: ServerTrust) throws { seen.value = trust } }
        _ = try await get(Servers.tlsLocalhost, evaluator: Recorder(seen: seen))
        let trust = try #require(seen.value)
        #expect(trust.host == "localhost")
        #expect(trust.certificateChain == [try Self.certificate("leaf").derBytes, try Self.certificate("intermediate").derBytes])
    }

    // MARK: Mutual TLS

    @Test("Mutual TLS: a client certificate with an encrypted key is presented; without one the server answers 400")
    func mutualTLS() async throws {
        let dir = Servers.certsDirectory
        let password = try String(contentsOfFile: "\(dir)/client-password.txt", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let client = try ClientCertificate.load(certificateFile: "\(dir)/client.pem", keyFile: "\(dir)/client-encrypted.key", password: password)
        let policy = SecurityPolicy(trustAnchors: try Self.anchorsR())
        let withCertificate = try transport { $0.clientCertificate = client }
        let response = try await get(Servers.mutualTLS, "client", transport: withCertificate, evaluator: policy)
        #expect(response.status == .ok)
        #expect(response.text.contains("CN=Courier Test Client") == true)
        // curl's own verification works with a client certificate too.
        let curlVerified = try transport { $0.clientCertificate = client; $0.certificateAuthorityFile = Servers.caFile }
        #expect(try await get(Servers.mutualTLS, "client", transport: curlVerified, evaluator: nil).status == .ok)
        let without = try await get(Servers.mutualTLS, "client", evaluator: policy)
        #expect(without.status.code == 400)
    }

    @Test("Mutual TLS: a wrong password or a mismatched key is a typed error before any connection")
    func mutualTLSErrors() throws {
        let dir = Servers.certsDirectory
        #expect(throws: ClientCertificateError(.wrongPassword, path: "\(dir)/client-encrypted.key")) {
            try ClientCertificate.load(certificateFile: "\(dir)/client.pem", keyFile: "\(dir)/client-encrypted.key", password: "nope")
        }
        #expect(throws: ClientCertificateError(.keyMismatch, path: "\(dir)/other.key")) {
            try ClientCertificate.load(certificateFile: "\(dir)/client.pem", keyFile: "\(dir)/other.key")
        }
    }
}
