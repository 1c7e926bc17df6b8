// A test helper, run by the namespace suite inside a network namespace (`ip netns exec`): sends
// one GET through a curl session guarded by a ReachabilityInterceptor or an OfflineRetrier whose
// monitor watches the URL's address, and reports on stdout, one line each:
//   monitor <status>                 the monitor's first status and every change
//   sending                          just before the request starts
//   result ok <code> attempts=<n> elapsed_ms=<ms>
//   result error <type>: <description> attempts=<n> elapsed_ms=<ms>
// Usage: ReachabilityProbe URL --mode interceptor|retrier --wait SECONDS
import CourierCore
import CourierCurl
import CourierReachability
import Foundation
import HTTPTypes

/// Writes one line to stdout at once (unbuffered), so the test sees it as it happens.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Counts the tries a task makes (its retries plus one).
final class TryCounter: EventListener {
    let retries = Locked(0)
    func retrying(_ task: SessionTask, attempt: Int, delay: Duration) { retries.withLock { $0 += 1 } }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ReachabilityProbe: \(message)\n".utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count == 6, arguments[2] == "--mode", arguments[4] == "--wait",
      let url = URL(string: arguments[1]), let host = url.host(), let address = IPAddress(host),
      let waitSeconds = Double(arguments[5])
else { fail("usage: ReachabilityProbe URL --mode interceptor|retrier --wait SECONDS (URL with an IP address)") }
let wait = Duration.milliseconds(Int64(waitSeconds * 1000))

let monitor = ReachabilityMonitor(target: .address(address))
monitor.onChange { status in say("monitor \(status)") }
do { try monitor.start() } catch { fail("\(error)") }
guard await monitor.updates().first(where: { _ in true }) != nil else { fail("no first status") }

let counter = TryCounter()
var configuration = SessionConfiguration(eventListener: counter)
configuration.timeouts.connect = .seconds(5)
switch arguments[3] {
case "interceptor": configuration.interceptors = [ReachabilityInterceptor(monitor: monitor, maximumWait: wait)]
case "retrier": configuration.retrier = OfflineRetrier(monitor: monitor, maximumWait: wait)
default: fail("unknown mode \(arguments[3])")
}
let session: Session
do { session = Session(configuration: configuration, transport: try CurlTransport()) } catch { fail("\(error)") }

say("sending")
let started = ContinuousClock.now
func milliseconds() -> Int64 {
    let elapsed = ContinuousClock.now - started
    return elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
}
do {
    let response = try await session.data(for: HTTPRequest(method: .get, url: url))
    say("result ok \(response.head.status.code) attempts=\(counter.retries.withLock { $0 } + 1) elapsed_ms=\(milliseconds())")
} catch {
    say("result error \(type(of: error.underlyingError)): \(error.underlyingError) attempts=\(counter.retries.withLock { $0 } + 1) elapsed_ms=\(milliseconds())")
}
monitor.stop()
