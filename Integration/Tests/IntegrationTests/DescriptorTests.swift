import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Testing

/// What the transport does with the process's file descriptors: a process that has run out of them is told so, and
/// its connections never pass to the programs it starts.
@Suite("File descriptors")
struct DescriptorTests {
    /// A process at its limit of open files, which a busy server meets: libcurl 7.88 reports the failed `socket(2)`
    /// as "Couldn't connect to server", as for a server that refused, and keeps no errno, so the call said nothing of
    /// the real cause. It now fails `.cannotConnect` naming it ("cannot open a socket: Too many open files"), and the
    /// same session connects again once descriptors are free. The connections it opens are close-on-exec (they were
    /// not: every program the process started inherited them).
    ///
    /// In a process of its own (an exit test), which it leaves without a free descriptor for a while; the child
    /// records what it throws as an issue, since a thrown error would not reach this report.
    @Test func aProcessOutOfDescriptorsIsToldSo() async {
        await #expect(processExitsWith: .success) {
            do {
                try await DescriptorTests.connectWithoutDescriptors()
            } catch {
                Issue.record(error, "the child threw")
            }
        }
    }

    static func connectWithoutDescriptors() async throws {
        let transport = try CurlTransport()
        let timeouts = Timeouts(connect: .seconds(10), request: .seconds(30))
        let nginx = session(Servers.nginx, transport: transport) { $0.timeouts = timeouts }
        let httpbin = session(Servers.httpbin, transport: transport) { $0.timeouts = timeouts }
        // The curl thread and a connection to nginx are up before the descriptors run out.
        let first = try await nginx.data(for: try nginx.makeRequest(.get, "json"))
        #expect(first.head.status == .ok)
        let flags = SocketCensus.closeOnExec(remotePort: port(of: Servers.nginx))
        #expect(!flags.isEmpty && flags.allSatisfy { $0 }, "connections to nginx that are not close-on-exec: \(flags)")

        // Few descriptors to fill: the limit brought down to those open and 64 more.
        var limit = rlimit()
        #expect(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0)
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
        limit.rlim_cur = min(limit.rlim_cur, rlim_t(open + 64))
        #expect(setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0)
        var held: [Int32] = []
        while case let descriptor = dup(STDIN_FILENO), descriptor >= 0 { held.append(descriptor) }
        #expect(errno == EMFILE)

        // A new connection (httpbin: nginx's is kept alive and would be reused).
        do {
            let response = try await httpbin.data(for: try httpbin.makeRequest(.get, "get"))
            Issue.record("a connection was opened without a free descriptor: \(response.head.status)")
        } catch {
            let transportError = error.underlyingError as? TransportError
            #expect(transportError?.code == .cannotConnect, "\(error)")
            #expect(transportError?.message.contains("cannot open a socket: \(String(cString: strerror(EMFILE)))") == true, "\(error)")
        }
        for descriptor in held { close(descriptor) }
        let again = try await httpbin.data(for: try httpbin.makeRequest(.get, "get"))
        #expect(again.head.status == .ok)
        await transport.shutdown()
    }
}
