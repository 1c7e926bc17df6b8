import CourierCore
import CourierCurl
import CourierResponseSerialization
import CourierSecurity
import CourierTesting
import Foundation
import Glibc
import HTTPTypes
import Testing

/// `CourierError.kind` for what real servers and networks do (issue 13, part 4): the question a caller asks of a
/// failure, answered without a cast, for each kind the transport, the trust check and validation raise.
@Suite("Error kinds")
struct ErrorKindTests {
    private func failure(_ call: () async throws -> Void) async -> CourierError? {
        do {
            try await call()
            return nil
        } catch {
            return error as? CourierError
        }
    }

    @Test func connectionFailures() async throws {
        let fault = session(Servers.fault) { $0.timeouts = Timeouts(connect: .seconds(2), request: .seconds(2)) }
        let reset = await failure { _ = try await fault.get("reset").response }
        #expect(reset?.kind == .connectionFailed && reset?.isConnectionFailure == true)

        // A port nobody listens on: bound, then closed, so the connection is refused.
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(socket >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        close(socket)
        let closed = session("http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))")
        let refused = await failure { _ = try await closed.get("x").response }
        #expect(refused?.kind == .connectionFailed)
    }

    @Test func aTimeoutAndABrokenResponse() async throws {
        let quick = session(Servers.fault) { $0.timeouts = Timeouts(request: .milliseconds(500)) }
        let timeout = await failure { _ = try await quick.get("never").response }
        #expect(timeout?.kind == .timedOut && timeout?.isTimeout == true)
        // The broken answers come at once; the time limit only keeps a broken test from hanging. It must not be
        // the 500 ms one above: under ThreadSanitizer with both cores busy that ran out first (CI, this session).
        let patient = session(Servers.fault) { $0.timeouts = Timeouts(request: TimeBounds.limit(.seconds(10))) }
        let truncated = await failure { _ = try await patient.get("truncated").response }
        #expect(truncated?.kind == .malformedResponse)
        let malformed = await failure { _ = try await patient.get("malformed-status").response }
        #expect(malformed?.kind == .malformedResponse)
    }

    @Test func anUntrustedServer() async throws {
        // The system's store does not hold the test CA, and a policy trusting another root refuses it too.
        let untrusted = await failure { _ = try await session(Servers.tls).get("get").response }
        #expect(untrusted?.kind == .trustFailed && untrusted?.isTrustFailure == true)
        let root2 = try Certificate.certificates(contentsOfFile: "\(Servers.certsDirectory)/root2.pem")
        let pinned = session(Servers.tls) { $0.trustEvaluator = SecurityPolicy(trustAnchors: .certificates(root2)) }
        let refused = await failure { _ = try await pinned.get("get").response }
        #expect(refused?.kind == .trustFailed)
    }

    @Test func statusValidationAndSerialization() async throws {
        let httpbin = session()
        let notFound = await failure { _ = try await httpbin.get("status/404").value(using: DataResponseSerializer()) }
        #expect(notFound?.kind == .unacceptableStatus)
        #expect(notFound?.unacceptableStatus == .notFound)
        let notJSON = await failure { _ = try await httpbin.get("html").value(using: JSONResponseSerializer()) }
        #expect(notJSON?.kind == .unacceptableContentType)
        let ok = await failure { _ = try await httpbin.get("status/200").value(using: DataResponseSerializer()) }
        #expect(ok == nil)
    }

    @Test func aCancelledCall() async throws {
        let slow = session(Servers.fault)
        let call = Task { try await slow.get("never").response }
        try await Task.sleep(for: .milliseconds(100))
        call.cancel()
        let cancelled = await failure { _ = try await call.value }
        #expect(cancelled?.kind == .cancelled && cancelled?.isCancellation == true)
    }
}
