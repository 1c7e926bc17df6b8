import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Testing

/// Connection reuse, HTTP/2, TLS, Unix sockets and proxies.
@Suite("Connections")
struct ConnectionTests {
    /// Runs `waves` rounds of `concurrency` requests and counts the connections opened.
    func connectionsOpened(_ s: Session, path: String, concurrency: Int, waves: Int) async throws -> Int {
        var opened = 0
        for _ in 0..<waves {
            opened += try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<concurrency {
                    group.addTask {
                        let response = try await s.data(for: try s.makeRequest(.get, path))
                        #expect(response.status == .ok)
                        return response.metrics?.reusedConnection == false ? 1 : 0
                    }
                }
                return try await group.reduce(0, +)
            }
        }
        return opened
    }

    @Test func sequentialRequestsReuseOneConnection() async throws {
        let s = session(Servers.nginx, transport: try transport { _ in })
        #expect(try await connectionsOpened(s, path: "json", concurrency: 1, waves: 5) == 1)
    }

    @Test func concurrentTasksKeepOneConnectionEach() async throws {
        let s = session(Servers.httpbin, transport: try transport { $0.httpVersion = .http1_1 })
        // Three waves of 8 slow requests, all 8 in flight at once: exactly 8 connections, reused.
        #expect(try await connectionsOpened(s, path: "delay/0.2", concurrency: 8, waves: 3) == 8)
        #expect(try await connectionsOpened(s, path: "delay/0.2", concurrency: 8, waves: 1) == 0)
    }

    @Test func hundredConcurrentRequestsShareOneHTTP2Connection() async throws {
        let t = try transport { $0.certificateAuthorityFile = Servers.caFile }
        let s = session(Servers.tls, transport: t)
        let first = try await s.data(for: try s.makeRequest(.get, "json"))
        #expect(first.metrics?.httpVersion == "HTTP/2")
        #expect(try await connectionsOpened(s, path: "json", concurrency: 100, waves: 1) == 0)
    }

    @Test func priorKnowledgeSpeaksHTTP2OverCleartext() async throws {
        let s = session(Servers.h2c, transport: try transport { $0.httpVersion = .http2 })
        for _ in 0..<3 {  // libcurl 7.88 cannot reuse such a connection; the transport works around it
            let response = try await s.get("json").response
            #expect(response.status == .ok)
            #expect(response.metrics?.httpVersion == "HTTP/2")
        }
    }

    @Test func http11CanBeForcedOverTLS() async throws {
        let t = try transport { $0.certificateAuthorityFile = Servers.caFile; $0.httpVersion = .http1_1 }
        let response = try await session(Servers.tls, transport: t).get("json").response
        #expect(response.metrics?.httpVersion == "HTTP/1.1")
    }

    @Test func tlsWorksForTheIPAndTheHostName() async throws {
        let t = try transport { $0.certificateAuthorityFile = Servers.caFile }
        for base in [Servers.tls, Servers.tlsLocalhost] {
            let response = try await session(base, transport: t).get("get").response
            #expect(response.status == .ok)
            #expect((response.metrics?.secureConnection ?? .zero) > .zero)
        }
    }

    @Test func untrustedServerIsATLSFailure() async throws {
        let t = try transport { $0.certificateAuthorityFile = "/etc/ssl/certs/ca-certificates.crt" }
        await #expect {
            _ = try await session(Servers.tls, transport: t).get("get").response
        } throws: { transportCode($0) == .tlsFailure }
    }

    @Test func unixSocketCarriesTheRequest() async throws {
        let t = try transport { $0.unixSocketPath = Servers.unixSocket }
        let response = try await session("http://localhost", transport: t).get("get").response
        #expect(response.status == .ok)
        #expect(try json(response)["url"] as? String == "http://localhost/get")
    }

    @Test func proxyCarriesTheRequest() async throws {
        let t = try transport { $0.proxy = Servers.proxy }
        let response = try await session(transport: t).get("get").response
        #expect(response.status == .ok)
        #expect(response.head.headerFields[HTTPField.Name("Via")!]?.contains("courier-test-proxy") == true)
    }

    /// A proxy that will not open a tunnel (the test proxy answers `CONNECT` 407 without its credentials, 405 to
    /// its user `refuse`) fails an https call `.proxyRefused`, naming its status, and a retry policy does not send it again.
    /// It was `.connectionLost` (libcurl 7.88 reports it under a reset's code), which the policy retried twice.
    @Test func aProxyRefusingTheTunnelIsProxyRefused() async throws {
        let credentialed = Servers.proxy.replacingOccurrences(of: "http://", with: "http://refuse:proxy-secret@")
        for (proxy, status) in [(Servers.proxy, "407"), (credentialed, "405")] {
            let t = try transport {
                $0.proxy = proxy
                $0.certificateAuthorityFile = Servers.caFile
            }
            let attempts = Box(0)
            let s = session(Servers.tls, transport: t) {
                $0.retrier = CountingRetrier(attempts: attempts, policy: RetryPolicy(exponentialBackoffScale: 0))
            }
            let failure: CourierError?
            do {
                _ = try await s.get("json").response
                failure = nil
            } catch {
                failure = error
            }
            let error = try #require(failure, "a refused tunnel gave a response")
            let transportError = try #require(error.underlyingError as? TransportError, "\(error)")
            #expect(transportError.code == .proxyRefused, "\(error)")
            #expect(transportError.message.hasSuffix("response \(status)"), "\(error)")
            #expect(error.kind == .connectionFailed)
            #expect(attempts.value == 1, "the refusal was retried")
            await t.shutdown()
        }
    }

    /// `policy`, counting the tries it is asked about.
    struct CountingRetrier: Retrier {
        let attempts: Box<Int>
        let policy: RetryPolicy
        func decision(for attempt: RetryAttempt) async -> RetryDecision {
            attempts.update { $0 += 1 }
            return await policy.decision(for: attempt)
        }
    }

    @Test func rangeRequestsGetPartialContent() async throws {
        let response = try await session(Servers.nginx).get("files/1m.bin", headers: [HTTPField.Name("Range")!: "bytes=0-99"]).response
        #expect(response.status.code == 206)
        #expect(response.data.count == 100)
        let file = try Data(contentsOf: URL(fileURLWithPath: Servers.filesDirectory).appendingPathComponent("1m.bin"))
        #expect(response.data == file.prefix(100))
    }
}
