import CourierCore
import CourierCurl
import CourierSecurity
import Foundation
import HTTPTypes
import Testing

/// HTTPS through a forward proxy's `CONNECT` tunnel and through a SOCKS5 proxy, against the test proxies
/// (Integration/Servers/README.md), whose user names say what they do with a tunnel: relay it, refuse it, stall,
/// or answer the TLS handshake itself with a forged certificate. What a user behind a company proxy relies on: the tunnel carries HTTP/1.1 and
/// HTTP/2 byte for byte, each side's credentials reach only that side, every TLS check is made against what
/// the origin's certificate must be whatever the proxy presents, and a proxy that stalls or drops a tunnel
/// fails the call, typed, within the connect timeout. Serialized, so that the SOCKS proxy's port, which no other
/// suite uses, has no socket of this process but the test's own: a failed call must leave none.
@Suite("Proxies", .serialized)
struct ProxyTests {
    /// The test proxy's URL with the credentials of `user` (the password is the proxy's).
    static func proxy(user: String) -> String {
        Servers.proxy.replacingOccurrences(of: "http://", with: "http://\(user):proxy-secret@")
    }

    /// A user name of its own for one test, so that what the proxy recorded for it is this test's alone
    /// (the suites run in parallel).
    static func tunnelUser(_ purpose: String) -> String {
        "tunnel-\(purpose)-\(UUID().uuidString.prefix(8))"
    }

    /// A transport through the test proxy as `user`, trusting the test CA.
    static func tunnelTransport(user: String, _ configure: (inout CurlTransport.Configuration) -> Void = { _ in }) throws -> CurlTransport {
        try transport {
            $0.proxy = proxy(user: user)
            $0.certificateAuthorityFile = Servers.caFile
            configure(&$0)
        }
    }

    /// What the proxy recorded of `user`'s `CONNECT`s: how many, their targets, the last one's fields.
    struct ConnectRecord: Decodable {
        var count: Int
        var targets: [String]
        var lastHeaders: [String: String]
    }

    static func connects(of user: String) async throws -> ConnectRecord {
        let direct = session(Servers.proxy)
        let response = try await direct.get("connects?user=\(user)").response
        return try JSONDecoder().decode(ConnectRecord.self, from: response.data)
    }

    /// A certificate of the servers' fixtures (Integration/Servers/gen-certs.sh).
    static func certificate(_ name: String) throws -> Certificate {
        try #require(try Certificate.certificates(contentsOfFile: "\(Servers.certsDirectory)/\(name).pem").first)
    }

    /// The timeouts of the stalling cases: a stall must end at the connect timeout, which covers the tunnel
    /// and the handshake through it.
    static let prompt = Timeouts(connect: .seconds(1), request: .seconds(10))

    @Test func anHTTPSCallGoesThroughTheTunnelByteForByte() async throws {
        let user = Self.tunnelUser("bytes")
        let t = try Self.tunnelTransport(user: user)
        let plain = try transport { $0.certificateAuthorityFile = Servers.caFile }
        let expected = try Data(contentsOf: URL(fileURLWithPath: "\(Servers.filesDirectory)/1m.bin"))
        // nginx's TLS port speaks HTTP/2 (ALPN inside the tunnel), its other port HTTP/1.1 only.
        for (base, version) in [(Servers.tls, "HTTP/2"), (Servers.tlsHTTP1, "HTTP/1.1")] {
            let s = session(base, transport: t)
            let file = try await s.data(for: try s.makeRequest(.get, "files/1m.bin"))
            #expect(file.data == expected, "\(base): \(file.data.count) bytes")
            #expect(file.metrics?.httpVersion == version, "\(base): \(String(describing: file.metrics?.httpVersion))")
            let direct = session(base, transport: plain)
            for path in ["json", "compressed?encoding=gzip&size=256k&ratio=4", "compressed?encoding=br&size=64k&ratio=1"] {
                let tunnelled = try await s.data(for: try s.makeRequest(.get, path))
                let reference = try await direct.data(for: try direct.makeRequest(.get, path))
                #expect(tunnelled.status == .ok && tunnelled.data == reference.data, "\(base)/\(path): \(tunnelled.data.count) bytes")
            }
        }
        let record = try await Self.connects(of: user)
        let ports = Set([Servers.tls, Servers.tlsHTTP1].compactMap { URL(string: $0)?.port.map { "127.0.0.1:\($0)" } })
        #expect(Set(record.targets) == ports, "\(record.targets)")
        await t.shutdown()
        await plain.shutdown()
    }

    /// The origin's `Authorization` and cookies go inside the tunnel only; the proxy's credentials go in the
    /// `CONNECT` only.
    @Test func eachSideGetsOnlyItsOwnCredentials() async throws {
        let user = Self.tunnelUser("credentials")
        let t = try Self.tunnelTransport(user: user)
        let s = session(Servers.tls, transport: t)
        let response = try await s.get("headers", headers: [
            .authorization: "Bearer origin-secret",
            .cookie: "session=origin-cookie",
        ]).response
        let echoed = try #require(try json(response)["headers"] as? [String: String])
        #expect(echoed["Authorization"] == "Bearer origin-secret")
        #expect(echoed["Cookie"] == "session=origin-cookie")
        #expect(echoed.keys.allSatisfy { $0.lowercased() != "proxy-authorization" }, "the origin got the proxy's credentials: \(echoed)")
        let record = try await Self.connects(of: user)
        #expect(record.count == 1)
        let sentToProxy = Dictionary(uniqueKeysWithValues: record.lastHeaders.map { ($0.key.lowercased(), $0.value) })
        #expect(sentToProxy["proxy-authorization"] != nil)
        #expect(sentToProxy["authorization"] == nil && sentToProxy["cookie"] == nil, "the proxy got the origin's credentials: \(sentToProxy)")
        await t.shutdown()
    }

    /// Calls one after another share one tunnel, over HTTP/2 and over HTTP/1.1, as they share one connection
    /// without a proxy.
    @Test(arguments: ["HTTP/2", "HTTP/1.1"])
    func callsShareATunnel(version: String) async throws {
        let user = Self.tunnelUser("reuse")
        let t = try Self.tunnelTransport(user: user)
        let s = session(version == "HTTP/2" ? Servers.tls : Servers.tlsHTTP1, transport: t)
        for _ in 0..<5 {
            let response = try await s.data(for: try s.makeRequest(.get, "json"))
            #expect(response.status == .ok && response.metrics?.httpVersion == version)
        }
        #expect(try await Self.connects(of: user).count == 1)
        await t.shutdown()
    }

    /// A proxy that answers the TLS handshake itself. With a certificate under a CA the client does not trust:
    /// `.tlsFailure`. With one a trusted CA forged (a company proxy with its own CA in the trust store): taken,
    /// as any certificate of that CA is (the control), unless a `SecurityPolicy` pins the origin's key, which
    /// refuses it. The same pin through a true tunnel is accepted. The forger's answer is never read.
    @Test func anInterceptingProxyIsTakenOnlyWhereItsCAIsTrustedAndNothingIsPinned() async throws {
        let untrusted = try Self.tunnelTransport(user: "intercept-untrusted")
        let refused = await attempt(session(Servers.tls, transport: untrusted), try session(Servers.tls).makeRequest(.get, "json"),
                                    bound: chaosBound(.seconds(10)))
        #expect(refused.code == .tlsFailure, "\(refused.summary)")
        await untrusted.shutdown()

        let forging = try Self.tunnelTransport(user: "intercept")
        let taken = try await session(Servers.tls, transport: forging).get("json").response
        #expect(taken.text == "intercepted\n", "the control: a forged certificate of a trusted CA is that CA's")

        let pinned = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [try Self.certificate("leaf")],
                                    trustAnchors: .certificates([try Self.certificate("root")]))
        let pinnedSession = session(Servers.tls, transport: forging) { $0.trustEvaluator = pinned }
        await #expect {
            _ = try await pinnedSession.get("json").response
        } throws: {
            (($0 as? CourierError)?.underlyingError as? TrustError) != nil
        }
        await forging.shutdown()

        let tunnel = try Self.tunnelTransport(user: Self.tunnelUser("pinned"))
        let through = session(Servers.tls, transport: tunnel) { $0.trustEvaluator = pinned }
        #expect(try await through.get("json").response.status == .ok)
        await tunnel.shutdown()
    }

    /// A proxy that never answers the `CONNECT`, or answers it and then says nothing: `.timedOut` at the
    /// connect timeout. One that closes the tunnel as soon as it is open: `.tlsFailure`, the handshake broken.
    /// One whose answer never ends: `.malformedResponse` at libcurl's bound on a head (300 KiB). Either way the
    /// next call through a good tunnel goes on.
    @Test func aProxyThatStallsDropsOrFloodsTheTunnelFailsTyped() async throws {
        let cases: [(String, TransportError.Code)] = [
            ("stall-before-answer", .timedOut),
            ("stall-after-answer", .timedOut),
            ("close-after-answer", .tlsFailure),
            ("endless-answer", .malformedResponse),
        ]
        for (user, code) in cases {
            let t = try Self.tunnelTransport(user: user)
            let s = session(Servers.tls, transport: t) {
                // Only the stalls need a short connect timeout; libcurl reads an endless answer a byte at a time.
                if code == .timedOut { $0.timeouts = Self.prompt }
            }
            let outcome = await attempt(s, try s.makeRequest(.get, "json"), bound: chaosBound(.seconds(1)))
            #expect(outcome.code == code, "\(user): \(outcome.summary)")
            await t.shutdown()
        }
        let good = try Self.tunnelTransport(user: Self.tunnelUser("after-stalls"))
        #expect(try await session(Servers.tls, transport: good).get("json").response.status == .ok)
        await good.shutdown()
    }

    /// The close_notify check holds through a tunnel, an HTTP proxy's or a SOCKS proxy's, which pass the server's
    /// end on as it came: a body that ends with its connection is whole after the alert, `.truncatedBody` after a
    /// bare FIN, `.connectionLost` after an RST.
    /// Behind an HTTPS proxy the origin's TLS runs inside the proxy's, and the check must watch the origin's.
    @Test(arguments: ["http", "https", "socks5h"])
    func aBodyEndingWithItsConnectionNeedsCloseNotifyThroughTheTunnel(proxy: String) async throws {
        let t = try Self.tunnelTransport(user: Self.tunnelUser("close-notify")) {
            $0.httpVersion = .http1_1
            if proxy == "socks5h" { $0.proxy = Self.socks(user: "courier") }
            if proxy == "https" {
                $0.proxy = Self.httpsProxy(user: Self.tunnelUser("close-notify"))
                $0.proxyCertificateAuthorityFile = Servers.caFile
            }
        }
        let s = session(Servers.tlsChaos, transport: t) { $0.timeouts = ChaosTests.prompt }
        for size in [0, 100_000] {
            let path = "tls-close?framing=close&size=\(size)&seed=7"
            let whole = await attempt(s, try s.makeRequest(.get, path + "&end=notify"), bound: ChaosTests.promptBound)
            #expect(whole.response?.data == ChaosTests.patternBody(size: size, seed: 7), "\(path), close_notify: \(whole.summary)")
            let cut = await attempt(s, try s.makeRequest(.get, path + "&end=bare"), bound: ChaosTests.promptBound)
            #expect(cut.code == .truncatedBody && cut.head?.status == .ok, "\(path), FIN: \(cut.summary)")
            let reset = await attempt(s, try s.makeRequest(.get, path + "&end=reset"), bound: ChaosTests.promptBound)
            #expect(reset.code == .connectionLost, "\(path), RST: \(reset.summary)")
        }
        let framed = await attempt(s, try s.makeRequest(.get, "tls-close?framing=length&size=100000&seed=7&end=bare"), bound: ChaosTests.promptBound)
        #expect(framed.response?.data == ChaosTests.patternBody(size: 100_000, seed: 7), "framed by its length: \(framed.summary)")
        await t.shutdown()
    }

    /// A configured proxy carries every request but those to ``CurlTransport/Configuration/proxyBypassHosts``,
    /// which go directly (the proxy adds `Via` to what it carries). `no_proxy` in the environment plays no part:
    /// `Scripts/lib/cli_env_proxy_check.py` checks that in a process of its own.
    @Test func hostsToBypassTheProxyGoDirectly() async throws {
        let httpbinPort = try #require(URL(string: Servers.httpbin)?.port)
        for (bypass, viaProxy) in [([] as [String], true), (["127.0.0.1"], false), (["localhost"], true), (["*"], false),
                                   (["example.invalid", "127.0.0.0/8"], false)] {
            let t = try transport {
                $0.proxy = Servers.proxy
                $0.proxyBypassHosts = bypass
            }
            let response = try await session("http://127.0.0.1:\(httpbinPort)", transport: t).get("get").response
            let via = response.head.headerFields[HTTPField.Name("Via")!]?.contains("courier-test-proxy") == true
            #expect(response.status == .ok && via == viaProxy, "\(bypass): went \(via ? "through the proxy" : "directly")")
            await t.shutdown()
        }
        for entry in ["", "a,b", "a b", "a\tb"] {
            #expect(throws: TransportError.self, "\(entry.debugDescription)") {
                try transport {
                    $0.proxy = Servers.proxy
                    $0.proxyBypassHosts = ["example.com", entry]
                }
            }
        }
    }

    // MARK: HTTPS proxies

    /// The test proxy behind TLS, with the credentials of `user`.
    static func httpsProxy(user: String) -> String {
        Servers.tlsProxy.replacingOccurrences(of: "https://", with: "https://\(user):proxy-secret@")
    }

    /// An HTTPS proxy carries cleartext requests inside its TLS and https ones in a tunnel inside it (TLS in TLS,
    /// HTTP/2 to the origin by ALPN), its certificate checked against `proxyCertificateAuthorityFile`. Without it,
    /// the proxy's certificate is checked against the system store, which does not hold the test CA:
    /// `.tlsFailure`, though the servers' CA file is set (it is the servers' alone).
    @Test func anHTTPSProxyIsVerifiedAndCarriesBoth() async throws {
        let user = Self.tunnelUser("https-proxy")
        let t = try transport {
            $0.proxy = Self.httpsProxy(user: user)
            $0.proxyCertificateAuthorityFile = Servers.caFile
            $0.certificateAuthorityFile = Servers.caFile
        }
        let plain = try await session(transport: t).get("get").response
        #expect(plain.status == .ok && plain.head.headerFields[HTTPField.Name("Via")!]?.contains("courier-test-proxy") == true)
        let s = session(Servers.tls, transport: t)
        let expected = try Data(contentsOf: URL(fileURLWithPath: "\(Servers.filesDirectory)/1m.bin"))
        let file = try await s.data(for: try s.makeRequest(.get, "files/1m.bin"))
        #expect(file.data == expected && file.metrics?.httpVersion == "HTTP/2", "\(file.data.count) bytes, \(String(describing: file.metrics?.httpVersion))")
        #expect(try await Self.connects(of: user).count == 1)
        await t.shutdown()

        let unverified = try transport {
            $0.proxy = Self.httpsProxy(user: user)
            $0.certificateAuthorityFile = Servers.caFile
        }
        for base in [Servers.httpbin, Servers.tls] {
            let outcome = await attempt(session(base, transport: unverified), try session(base).makeRequest(.get, "get"), bound: chaosBound(.seconds(10)))
            #expect(outcome.code == .tlsFailure, "\(base): \(outcome.summary)")
        }
        await unverified.shutdown()
    }

    // MARK: SOCKS5

    /// The test SOCKS5 proxy's URL with the credentials of `user` (nil: none), resolving names at the proxy
    /// (`socks5h`) or here (`socks5`).
    static func socks(user: String?, scheme: String = "socks5h", password: String = "proxy-secret") -> String {
        let address = Servers.socks.replacingOccurrences(of: "socks5h://", with: "")
        return "\(scheme)://" + (user.map { "\($0):\(password)@" } ?? "") + address
    }

    /// How many CONNECTs the SOCKS5 proxy had from `user` (its HTTP side door).
    static func socksConnects(of user: String) async throws -> Int {
        let door = "http://" + Servers.socks.replacingOccurrences(of: "socks5h://", with: "")
        let t = try transport { _ in }   // its own, shut down before it returns: no socket left for a census
        let response: Result<DataResponse, CourierError>
        do throws(CourierError) {
            response = .success(try await session(door, transport: t).get("connects?user=\(user)").response)
        } catch {
            response = .failure(error)
        }
        await t.shutdown()
        return try #require(try JSONSerialization.jsonObject(with: response.get().data) as? [String: Int])["count"] ?? -1
    }

    /// Cleartext and HTTPS (HTTP/2 by ALPN) through SOCKS5, the name resolved here (`localhost`, perhaps to ::1)
    /// or at the proxy (`socks-only.test`, a name only the proxy resolves), with credentials or none; a trust
    /// evaluator judges the origin's certificate as without a proxy. The proxy's count of a user's CONNECTs shows
    /// that it carried them.
    @Test(arguments: ["socks5h", "socks5"])
    func aSOCKSProxyCarriesHTTPAndHTTPS(scheme: String) async throws {
        let httpbinPort = try #require(URL(string: Servers.httpbin)?.port)
        for user in [Self.tunnelUser("socks"), nil] {
            let t = try transport {
                $0.proxy = Self.socks(user: user, scheme: scheme)
                $0.certificateAuthorityFile = Servers.caFile
            }
            let host = scheme == "socks5h" ? "socks-only.test" : "localhost"
            let plain = try await session("http://\(host):\(httpbinPort)", transport: t).get("get").response
            #expect(plain.status == .ok, "\(scheme), \(String(describing: user))")
            let s = session(Servers.tlsLocalhost, transport: t)
            let secure = try await s.data(for: try s.makeRequest(.get, "json"))
            #expect(secure.status == .ok && secure.metrics?.httpVersion == "HTTP/2", "\(scheme), \(String(describing: user))")
            let pinned = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [try Self.certificate("leaf")],
                                        trustAnchors: .certificates([try Self.certificate("root")]))
            let judged = session(Servers.tls, transport: t) { $0.trustEvaluator = pinned }
            #expect(try await judged.get("json").response.status == .ok)
            await t.shutdown()
            if let user {
                // One connection each: cleartext, HTTPS, HTTPS judged by the evaluator (a connection of its own).
                #expect(try await Self.socksConnects(of: user) >= 3, "\(scheme)")
            }
        }
    }

    /// What a SOCKS5 proxy answers when it cannot or will not connect, each typed as the same answer of an HTTP
    /// proxy is (all were `.other`, libcurl's one `CURLE_PROXY` for them): a server it could not reach
    /// `.cannotConnect`, which a retry policy tries again; its rules or the credentials `.proxyRefused`; an
    /// answer that is not SOCKS5 `.malformedResponse`; a closed connection `.connectionLost`; silence `.timedOut`
    /// at the connect timeout.
    @Test func aSOCKSProxysFailuresAreTyped() async throws {
        let cases: [(String?, String, String, TransportError.Code)] = [
            ("reply-1", "proxy-secret", Servers.tls, .cannotConnect),
            ("reply-2", "proxy-secret", Servers.tls, .proxyRefused),
            ("reply-3", "proxy-secret", Servers.tls, .cannotConnect),
            ("reply-4", "proxy-secret", Servers.tls, .cannotConnect),
            ("reply-5", "proxy-secret", Servers.tls, .cannotConnect),
            ("reply-6", "proxy-secret", Servers.tls, .cannotConnect),
            ("reply-7", "proxy-secret", Servers.tls, .proxyRefused),
            ("reply-8", "proxy-secret", Servers.tls, .proxyRefused),
            ("courier", "wrong", Servers.tls, .proxyRefused),
            ("courier", "proxy-secret", "http://127.0.0.1:1", .cannotConnect),
            ("courier", "proxy-secret", "https://courier.invalid", .proxyRefused),
            ("close-after-auth", "proxy-secret", Servers.tls, .connectionLost),
            ("bad-version", "proxy-secret", Servers.tls, .malformedResponse),
            ("stall-after-auth", "proxy-secret", Servers.tls, .timedOut),
        ]
        for (user, password, base, code) in cases {
            let t = try transport {
                $0.proxy = Self.socks(user: user, password: password)
                $0.certificateAuthorityFile = Servers.caFile
            }
            let attempts = Box(0)
            let s = session(base, transport: t) {
                // Only the silent proxy needs a short connect timeout; a busy machine gets the default elsewhere.
                if user == "stall-after-auth" { $0.timeouts = Self.prompt }
                $0.retrier = ConnectionTests.CountingRetrier(attempts: attempts, policy: RetryPolicy(exponentialBackoffScale: 0))
            }
            let outcome = await attempt(s, try s.makeRequest(.get, "json"), bound: chaosBound(.seconds(1)) * 3)
            let label = "\(user ?? "none"):\(password) to \(base)"
            #expect(outcome.code == code, "\(label): \(outcome.summary)")
            #expect(((outcome.error as? CourierError)?.underlyingError as? TransportError)?.underlyingCode == (code == .timedOut ? 28 : 97),
                    "\(label): \(outcome.summary)")
            let retried = RetryPolicy().retryableTransportErrors.contains(code)
            #expect(attempts.value == (retried ? 3 : 1), "\(label): \(attempts.value) attempts")
            // Before the shutdown, which closes whatever libcurl still holds: a failed connection is closed by then.
            let left = SocketCensus.matching(remotePorts: [port(of: "http://" + Servers.socks.replacingOccurrences(of: "socks5h://", with: ""))])
            #expect(left.isEmpty, "\(label): sockets to the SOCKS proxy left after the call failed: \(left)")
            await t.shutdown()
        }
    }
}
