import CourierCore
import CourierCurl
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// Calls that libcurl itself holds for a connection (it checks their timeout only when a connection frees) still
/// fail at their own timeout: Courier's loop fails a transfer libcurl has not ended a grace period after its
/// deadline (`OverdueWatch`). Four ways to get there that Courier's own line (`HostAdmission`) does not hold
/// back: the total connection limit across hosts, a forward proxy (libcurl counts its connections as the proxy
/// host's), a Unix socket, and HTTPS to a server that speaks only HTTP/1.1. The one connection is held by a call
/// to the fault server's `/never` with a 20 s timeout, or to httpbin's `/delay/10`: without the check, the held
/// call fails only when the holder ends.
@Suite("Calls libcurl holds past their timeout")
struct OverdueCallTests {
    private static let holderTimeouts = Timeouts(request: .seconds(20))
    private static let callTimeouts = Timeouts(request: .milliseconds(500))
    /// `OverdueWatch.grace`: how long after its deadline the loop fails a call libcurl has not ended.
    private static let watchGrace = Duration.milliseconds(100)

    /// One connection in all (`maximumTotalConnections`), held by a call to 127.0.0.1; a call to `localhost`
    /// (another host, so Courier's per-host line lets it through) waits in libcurl.
    @Test func aCallBeyondTheTotalLimitFailsAtItsTimeout() async throws {
        let t = try transport { $0.maximumTotalConnections = 1 }
        let holder = try await heldConnection(base: Servers.fault, transport: t)
        let other = session(Servers.fault.replacingOccurrences(of: "127.0.0.1", with: "localhost"), transport: t)
        try await expectHeldCallFails(behind: holder, naming: "maximumTotalConnections 1") { try other.get("health", options: $0) }
        await t.shutdown()
    }

    /// One connection per host through the proxy: libcurl counts the proxy's connections under the proxy's
    /// host, so a second call through it waits in libcurl, whatever its target.
    @Test func aCallWaitingForTheProxysConnectionFailsAtItsTimeout() async throws {
        let t = try transport {
            $0.proxy = Servers.proxy
            $0.maximumConnectionsPerHost = 1
        }
        let holder = try await heldConnection(base: Servers.fault, transport: t)
        let other = session(Servers.fault, transport: t)
        let response = try await expectHeldCallFails(behind: holder, naming: "maximumConnectionsPerHost 1") {
            try other.get("health", options: $0)
        }
        #expect(response.head.headerFields[HTTPField.Name("Via")!] == "1.1 courier-test-proxy")
        await t.shutdown()
    }

    /// One connection per host through nginx's Unix socket, held by httpbin's `/delay/10` (nginx passes it on):
    /// libcurl holds a second call, which Courier's line never sees (its connections are not per host and port).
    @Test func aCallWaitingForTheUnixSocketsConnectionFailsAtItsTimeout() async throws {
        let t = try transport {
            $0.unixSocketPath = Servers.unixSocket
            $0.maximumConnectionsPerHost = 1
        }
        let holder = try await heldConnection(base: "http://localhost", path: "delay/10", transport: t)
        let other = session("http://localhost", transport: t)
        try await expectHeldCallFails(behind: holder, naming: "maximumConnectionsPerHost 1") { try other.get("get", options: $0) }
        await t.shutdown()
    }

    /// One connection per host over HTTPS to a server that offers only HTTP/1.1: the call may multiplex as far as
    /// the transport knows when it hands it to libcurl (ALPN decides at the handshake), so Courier's line lets it
    /// through, and libcurl holds it until the connection held by httpbin's `/delay/10` (through nginx) is free.
    @Test func anHTTPSCallToAnHTTP1ServerFailsAtItsTimeout() async throws {
        let t = try transport {
            $0.certificateAuthorityFile = Servers.caFile
            $0.maximumConnectionsPerHost = 1
        }
        let holder = try await heldConnection(base: Servers.tlsHTTP1, path: "delay/10", transport: t)
        let other = session(Servers.tlsHTTP1, transport: t)
        let response = try await expectHeldCallFails(behind: holder, naming: "maximumConnectionsPerHost 1") {
            try other.get("get", options: $0)
        }
        #expect(response.metrics?.httpVersion == "HTTP/1.1", "\(String(describing: response.metrics?.httpVersion))")
        await t.shutdown()
    }

    /// A transfer libcurl runs ends at its timeout in libcurl, with libcurl's error, not the watch's: the
    /// watch gives libcurl its grace first.
    @Test func aRunningCallEndsWithLibcurlsOwnTimeout() async throws {
        let t = try transport { _ in }
        let s = session(Servers.fault, transport: t)
        let (error, elapsed) = await failure { try s.get("never", options: RequestOptions(timeouts: Self.callTimeouts)) }
        #expect(transportCode(try #require(error)) == .timedOut)
        let message = transportMessage(error)
        #expect(!message.contains("no connection came free") && !message.contains("Courier's own check"), "\(message)")
        #expect(elapsed >= .milliseconds(450) && elapsed < TimeBounds.limit(Self.callTimeouts.request!))
        await t.shutdown()
    }

    /// A suspended call is paused in libcurl, not held, and still ends at its request timeout: the limit is
    /// for the whole call, suspended time included. (Checked by hand with the watch switched off: libcurl times
    /// out a paused transfer itself, and the message is libcurl's.)
    @Test func aSuspendedCallStillEndsAtItsRequestTimeout() async throws {
        let t = try transport { _ in }
        let s = session(Servers.fault, transport: t)
        let timeouts = Timeouts(request: .seconds(1))
        let task = try s.get("drip?bytes=100&interval_ms=50", options: RequestOptions(timeouts: timeouts))
        let clock = ContinuousClock()
        let start = clock.now
        task.resume()
        let receiving = await eventually { task.task.downloadProgress.completed > 0 }
        #expect(receiving, "no body byte arrived")
        task.task.suspend()
        let error: (any Error)?
        do {
            _ = try await task.response
            error = nil
        } catch let thrown {
            error = thrown
        }
        let elapsed = clock.now - start
        #expect(transportCode(try #require(error)) == .timedOut)
        #expect(!transportMessage(error).contains("Courier's own check"), "\(transportMessage(error))")
        #expect(elapsed >= .milliseconds(950) && elapsed < TimeBounds.limit(timeouts.request! + Self.watchGrace))
        await t.shutdown()
    }

    // MARK: Helpers

    /// A call to `path` (by default the fault server's `/never`) that holds a connection of `transport`, already
    /// handed to libcurl, on a session of its own whose events `recorder` keeps.
    private struct HeldConnection {
        let recorder: RecordingEventListener
        let call: Task<Void, Never>

        func release() async {
            call.cancel()
            await call.value
        }
    }

    private func heldConnection(base: String, path: String = "never", transport: CurlTransport) async throws -> HeldConnection {
        let recorder = RecordingEventListener()
        let s = session(base, transport: transport) {
            $0.eventListener = recorder
            $0.timeouts = Self.holderTimeouts
        }
        let call = Task { _ = try? await s.get(path).response }
        // `requestSent` comes as the loop adds the holder to libcurl; libcurl counts the holder's connection in the
        // `curl_multi_perform` of that same pass, before DNS or TCP, and a call the test makes now reaches the
        // loop in a later pass. So the test's call always finds the connection taken.
        let sent = await eventually { recorder.events(of: .requestSent).count == 1 }
        #expect(sent, "the call was not sent")
        return HeldConnection(recorder: recorder, call: call)
    }

    /// The call `call` makes (on a session other than the holder's, given the options to use) while `holder` holds
    /// the one connection fails `.timedOut`
    /// within its timeout and the grace, with a message saying no connection came free and naming `limit`, and the
    /// holder goes on; once the holder lets go, the same call goes through. Returns that second response.
    @discardableResult
    private func expectHeldCallFails(
        behind holder: HeldConnection,
        naming limit: String,
        _ call: (RequestOptions) throws -> DataTask
    ) async throws -> DataResponse {
        let (error, elapsed) = await failure { try call(RequestOptions(timeouts: Self.callTimeouts)) }
        #expect(transportCode(try #require(error)) == .timedOut)
        let message = transportMessage(error)
        #expect(message.contains("no connection came free") && message.contains(limit), "\(message)")
        #expect(elapsed >= .milliseconds(450) && elapsed < TimeBounds.limit(Self.callTimeouts.request! + Self.watchGrace))
        #expect(holder.recorder.events(of: .taskFailed).isEmpty, "the holder ended with the held call")

        // The transport is still usable: once the holder lets go, the call goes through.
        await holder.release()
        let response = try await call(RequestOptions(timeouts: Self.holderTimeouts)).response
        #expect(response.head.status == .ok)
        return response
    }

    private func failure(_ call: () throws -> DataTask) async -> ((any Error)?, Duration) {
        await timed { () -> (any Error)? in
            do {
                _ = try await call().response
                return nil
            } catch {
                return error
            }
        }
    }

    private func transportMessage(_ error: (any Error)?) -> String {
        ((error as? CourierError)?.underlyingError as? TransportError)?.message ?? ""
    }
}
