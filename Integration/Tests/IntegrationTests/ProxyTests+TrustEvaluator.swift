import CourierCore
@_spi(Testing) import CourierCurl
import CourierSecurity
import Foundation
import HTTPTypes
import Testing

/// A trust evaluator behind an HTTPS proxy: libcurl runs the TLS-context callback for the proxy's handshake as well as
/// the server's, and the evaluator must judge the server's chain alone, while libcurl still checks the proxy's
/// certificate. The server here is nginx's unrelated chain (R2 → I2 → L2, `other.test`), and the proxy presents the
/// first chain (R → I → L), so a chain handed to the wrong judge cannot pass for the right one.
extension ProxyTests {
    /// Records every chain it is asked to judge, then judges by `policy`, or takes any chain without one. Equal to any
    /// other with the same policy, so that a connection it accepted serves the next calls.
    struct RecordingEvaluator: ServerTrustEvaluator, Hashable {
        let policy: SecurityPolicy?
        let seen: Box<[ServerTrust]>
        func evaluate(_ trust: ServerTrust) throws {
            seen.update { $0.append(trust) }
            try policy?.evaluate(trust)
        }
        static func == (a: Self, b: Self) -> Bool { a.policy == b.policy }
        func hash(into hasher: inout Hasher) { hasher.combine(policy) }
    }

    /// A policy for the unrelated chain: its root trusted, its name (`other.test`, not 127.0.0.1) not checked, and the
    /// public key of `pinned` pinned, when given. `alsoTrusted` adds anchors.
    static func otherChainPolicy(pinning pinned: String? = nil, alsoTrusted: [String] = []) throws -> SecurityPolicy {
        let anchors = try (["root2"] + alsoTrusted).map { try certificate($0) }
        var policy = if let pinned {
            SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [try certificate(pinned)], trustAnchors: .certificates(anchors))
        } else {
            SecurityPolicy(trustAnchors: .certificates(anchors))
        }
        policy.validatesDomainName = false
        return policy
    }

    /// A transport through the HTTPS proxy as `user`, its certificate checked against the test CA.
    static func httpsProxyTransport(user: String, _ configure: (inout CurlTransport.Configuration) -> Void = { _ in }) throws -> CurlTransport {
        try transport {
            $0.proxy = httpsProxy(user: user)
            $0.proxyCertificateAuthorityFile = Servers.caFile
            configure(&$0)
        }
    }

    /// The evaluator is asked once per tunnel, with the server's chain and host, over HTTP/2 and HTTP/1.1; the calls
    /// after the first share the tunnel and are not judged again.
    @Test(arguments: ["HTTP/2", "HTTP/1.1"])
    func aTrustEvaluatorBehindAnHTTPSProxyJudgesTheServersChainAlone(version: String) async throws {
        let user = Self.tunnelUser("evaluator")
        let t = try Self.httpsProxyTransport(user: user) { if version == "HTTP/1.1" { $0.httpVersion = .http1_1 } }
        let seen = Box<[ServerTrust]>([])
        let evaluator = RecordingEvaluator(policy: try Self.otherChainPolicy(), seen: seen)
        let s = session(Servers.tlsOther, transport: t) { $0.trustEvaluator = evaluator }
        for _ in 0..<3 {
            let response = try await s.data(for: try s.makeRequest(.get, "json"))
            #expect(response.status == .ok && response.metrics?.httpVersion == version)
        }
        let server = try [Self.certificate("leaf2"), Self.certificate("intermediate2")].map(\.derBytes)
        #expect(seen.value.map(\.certificateChain) == [server], "the chains judged: \(seen.value.map { $0.certificateChain.count })")
        #expect(seen.value.map(\.host) == ["127.0.0.1"])
        #expect(try await Self.connects(of: user).count == 1)
        await t.shutdown()
    }

    /// A pin of the server's key passes behind the proxy, and a pin of the proxy's key fails with the policy's
    /// `TrustError`, though both roots are trusted: the pin is checked against the server. `curl --pinnedpubkey`
    /// through the same proxy, the oracle, takes and refuses the same two pins (curl checks a pin against the server
    /// alone; its exit code 90 is a pin that did not match).
    @Test func aPinBehindAnHTTPSProxyIsTheServersAsCurlChecksIt() async throws {
        let user = Self.tunnelUser("pins")
        let t = try Self.httpsProxyTransport(user: user)
        for (pinned, passes) in [("leaf2", true), ("leaf", false)] {
            let policy = try Self.otherChainPolicy(pinning: pinned, alsoTrusted: ["root"])
            let s = session(Servers.tlsOther, transport: t) { $0.trustEvaluator = policy }
            let outcome = await attempt(s, try s.makeRequest(.get, "json"), bound: chaosBound(.seconds(10)))
            if passes {
                #expect(outcome.response?.status == .ok, "pinned \(pinned): \(outcome.summary)")
            } else {
                let trust = (outcome.error as? CourierError)?.underlyingError as? TrustError
                #expect(trust?.serverTrust?.certificateChain.first == (try Self.certificate("leaf2")).derBytes, "pinned \(pinned): \(outcome.summary)")
            }
            let pin = try #require(try Self.certificate(pinned).publicKeyPin).description
            let (status, _) = try await runProcess("/usr/bin/curl", [
                "-sS", "--max-time", "10", "-o", "/dev/null",
                "--proxy", Self.httpsProxy(user: user), "--proxy-cacert", Servers.caFile,
                "--insecure", "--pinnedpubkey", pin.replacingOccurrences(of: "sha256/", with: "sha256//"),
                "\(Servers.tlsOther)/json",
            ])
            #expect(status == (passes ? 0 : 90), "curl pinned \(pinned): exit \(status)")
        }
        await t.shutdown()
    }

    /// The proxy's own certificate is still libcurl's to check, whatever the evaluator would say: without the proxy's
    /// CA the call fails `.tlsFailure` and the evaluator is never asked. A proxy that refuses the tunnel fails the call
    /// before any handshake with the server, and the evaluator is not asked either.
    @Test func theHTTPSProxysOwnCertificateIsLibcurlsToCheck() async throws {
        let seen = Box<[ServerTrust]>([])
        let anything = RecordingEvaluator(policy: nil, seen: seen)
        let unverified = try transport { $0.proxy = Self.httpsProxy(user: Self.tunnelUser("unverified")) }
        let s = session(Servers.tlsOther, transport: unverified) { $0.trustEvaluator = anything }
        let refused = await attempt(s, try s.makeRequest(.get, "json"), bound: chaosBound(.seconds(10)))
        #expect(refused.code == .tlsFailure, "\(refused.summary)")
        await unverified.shutdown()

        let refusing = try Self.httpsProxyTransport(user: "refuse")
        let noTunnel = await attempt(session(Servers.tlsOther, transport: refusing) { $0.trustEvaluator = anything },
                                     try session(Servers.tlsOther).makeRequest(.get, "json"), bound: chaosBound(.seconds(10)))
        #expect(noTunnel.response == nil && noTunnel.code != .tlsFailure, "\(noTunnel.summary)")
        await refusing.shutdown()
        #expect(seen.value.isEmpty, "the evaluator judged \(seen.value.count) chains")
    }

    /// A host in `proxyBypassHosts` is reached directly, and the evaluator judges its one handshake, also when the URL
    /// writes the address as libcurl reads it but the list does not (`0x7f000001` for 127.0.0.1); with a list that
    /// names another host the call goes through the proxy, judged alike.
    @Test(arguments: [("127.0.0.1", false, 0), ("127.0.0.1", true, 0), ("example.com", false, 1)])
    func aBypassedHostIsJudgedDirectly(entry: String, hexadecimal: Bool, tunnels: Int) async throws {
        let user = Self.tunnelUser("bypass")
        let t = try Self.httpsProxyTransport(user: user) { $0.proxyBypassHosts = [entry] }
        let seen = Box<[ServerTrust]>([])
        let evaluator = RecordingEvaluator(policy: try Self.otherChainPolicy(pinning: "leaf2"), seen: seen)
        let base = hexadecimal ? Servers.tlsOther.replacingOccurrences(of: "127.0.0.1", with: "0x7f000001") : Servers.tlsOther
        let s = session(base, transport: t) { $0.trustEvaluator = evaluator }
        #expect(try await s.get("json").response.status == .ok, "bypassing \(entry) for \(base)")
        #expect(seen.value.map { $0.certificateChain.first } == [try Self.certificate("leaf2").derBytes], "bypassing \(entry) for \(base)")
        #expect(try await Self.connects(of: user).count == tunnels, "bypassing \(entry) for \(base)")
        await t.shutdown()
    }

    /// Should the transport ever read a handshake with the server as the proxy's (here forced: it takes a bypassed host
    /// as proxied, while libcurl goes to it directly), no request goes out on that connection: the call fails
    /// `.tlsFailure`, the evaluator never asked, and so does the next call with an equal evaluator, which over HTTP/2
    /// would otherwise have been given the same connection with no handshake of its own to judge.
    @Test(arguments: ["HTTP/2", "HTTP/1.1"])
    func aServerHandshakeTakenForTheProxysSendsNothing(version: String) async throws {
        let user = Self.tunnelUser("misread")
        let t = try Self.httpsProxyTransport(user: user) {
            $0.proxyBypassHosts = ["127.0.0.1"]
            $0.certificateAuthorityFile = Servers.caFile
            if version == "HTTP/1.1" { $0.httpVersion = .http1_1 }
        }
        t.takeEveryTrustedCallAsProxied()
        let seen = Box<[ServerTrust]>([])
        // The first chain, which libcurl's own check (left on, against the CA file) takes: only the transport stands
        // between the call and a server no evaluator judged.
        let s = session(Servers.tls, transport: t) { $0.trustEvaluator = RecordingEvaluator(policy: nil, seen: seen) }
        for call in 1...3 {
            let outcome = await attempt(s, try s.makeRequest(.get, "json"), bound: chaosBound(.seconds(10)))
            #expect(outcome.code == .tlsFailure && "\(outcome.summary)".contains("without a TLS handshake the trust evaluator judged"),
                    "call \(call): \(outcome.summary)")
        }
        let tunnels = try await Self.connects(of: user).count
        #expect(seen.value.isEmpty && tunnels == 0, "\(seen.value.count) chains judged, \(tunnels) tunnels")
        // The same transport without a trust evaluator: libcurl's own check, and the connection goes straight there.
        let plain = session(Servers.tls, transport: t)
        #expect(try await plain.get("json").response.status == .ok)
        await t.shutdown()
    }

    /// A proxy that answers the server's handshake itself inside its own TLS, with a certificate that the trusted CA's
    /// intermediate forged (a company proxy holding a CA of the trust store). Without an evaluator libcurl takes it, as
    /// any certificate of that CA (the control). An evaluator pinning the server's key refuses it, having judged the
    /// forger's chain and nothing else; the forger's answer is never read. One under a CA nobody trusts fails
    /// `.tlsFailure` without an evaluator, and with the pin the evaluator's `TrustError`, for the forger's chain.
    @Test func anInterceptingHTTPSProxyIsRefusedByAPinOfTheServersKey() async throws {
        let forging = try Self.httpsProxyTransport(user: "intercept") { $0.certificateAuthorityFile = Servers.caFile }
        let taken = try await session(Servers.tls, transport: forging).get("json").response
        #expect(taken.text == "intercepted\n", "the control: a forged certificate of a trusted CA is that CA's")

        let seen = Box<[ServerTrust]>([])
        let pinned = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [try Self.certificate("leaf")],
                                    trustAnchors: .certificates([try Self.certificate("root")]))
        let s = session(Servers.tls, transport: forging) { $0.trustEvaluator = RecordingEvaluator(policy: pinned, seen: seen) }
        await #expect {
            _ = try await s.get("json").response
        } throws: {
            (($0 as? CourierError)?.underlyingError as? TrustError) != nil
        }
        #expect(seen.value.map { $0.certificateChain.first } == [try Self.certificate("interceptor").derBytes])
        await forging.shutdown()

        let untrusted = try Self.httpsProxyTransport(user: "intercept-untrusted") { $0.certificateAuthorityFile = Servers.caFile }
        let unchecked = session(Servers.tls, transport: untrusted)
        let refused = await attempt(unchecked, try unchecked.makeRequest(.get, "json"), bound: chaosBound(.seconds(10)))
        #expect(refused.code == .tlsFailure, "\(refused.summary)")
        let judged = session(Servers.tls, transport: untrusted) { $0.trustEvaluator = pinned }
        let outcome = await attempt(judged, try judged.makeRequest(.get, "json"), bound: chaosBound(.seconds(10)))
        let trust = (outcome.error as? CourierError)?.underlyingError as? TrustError
        #expect(trust?.serverTrust?.certificateChain.first == (try Self.certificate("untrusted-interceptor")).derBytes, "\(outcome.summary)")
        await untrusted.shutdown()

        let user = Self.tunnelUser("pinned")
        let tunnel = try Self.httpsProxyTransport(user: user)
        #expect(try await session(Servers.tls, transport: tunnel) { $0.trustEvaluator = pinned }.get("json").response.status == .ok)
        #expect(try await Self.connects(of: user).count == 1)
        await tunnel.shutdown()
    }
}
