import BenchSupport
import CourierCore
import CourierCurl
import CourierMultipart
import Foundation
import HTTPTypes
import Synchronization

// Courier on its libcurl transport: one shared transport and session. By default calls run with a
// preference for the transport's executor, the way a throughput-minded user writes it;
// COURIER_BENCH_CALLERS=pool runs them as most code does, on Swift's shared pool (reported as
// `courier-pool`).
let workload = Workload.parse()
let onSharedPool = ProcessInfo.processInfo.environment["COURIER_BENCH_CALLERS"] == "pool"
/// COURIER_BENCH_LAYER=transport: small GETs call `transport.send` with a context of their own, without the
/// session (no chain, no task registry, no `DataResponse`): what the session's layers cost, by difference.
let callsTransportDirectly = ProcessInfo.processInfo.environment["COURIER_BENCH_LAYER"] == "transport"
var configuration = CurlTransport.Configuration()
configuration.certificateAuthorityFile = workload.caFile
// For measuring the per-host connection limit's effect (Scripts/bench.sh leaves the default).
if let limit = ProcessInfo.processInfo.environment["COURIER_BENCH_CONNECTIONS_PER_HOST"].flatMap(Int.init) {
    configuration.maximumConnectionsPerHost = limit
}
// For measuring what the curl thread's polling before it sleeps is worth (Scripts/bench.sh leaves the default).
if let microseconds = ProcessInfo.processInfo.environment["COURIER_BENCH_IDLE_POLL_US"].flatMap(Int.init) {
    configuration.idlePolling = .microseconds(microseconds)
}
// For measuring what holding finished calls to resume them together is worth (Scripts/bench.sh leaves the default).
if let microseconds = ProcessInfo.processInfo.environment["COURIER_BENCH_COALESCING_US"].flatMap(Int.init) {
    configuration.completionCoalescing = .microseconds(microseconds)
}
// For measuring what curl's receive buffer costs small calls (Scripts/bench.sh leaves the default).
if let bytes = ProcessInfo.processInfo.environment["COURIER_BENCH_RECEIVE_BUFFER"].flatMap(Int.init) {
    configuration.receiveBufferSize = bytes
}
let transport = try CurlTransport(configuration: configuration)
let observation = Observation.fromEnvironment
var sessionConfiguration = SessionConfiguration(timeouts: Timeouts(request: .seconds(600)), maximumResponseBodySize: 2 << 30)
observation.install(into: &sessionConfiguration)
let session = Session(configuration: sessionConfiguration, transport: transport)
guard let url = URL(string: workload.url) else { exit(2) }
let request = HTTPRequest(method: workload.kind == .upload ? .put : .get, url: url)
/// What the runs add up to.
final class Tally: Sendable {
    let connections = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
    let bytes = Atomic<Int64>(0)

    func record(_ metrics: TransferMetrics?, status: Int) {
        if metrics?.reusedConnection == false { connections.add(1, ordering: .relaxed) }
        bytes.add((metrics?.bytesReceived ?? 0) + (metrics?.bytesSent ?? 0), ordering: .relaxed)
        if status >= 400 { failures.add(1, ordering: .relaxed) }
    }
}
let tally = Tally()

/// The workload, off the main actor: top-level code is main-actor isolated, and awaiting from
/// there would hop to the main thread after every request.
nonisolated func measure() async throws {
    if onSharedPool {
        try await runWorkload()
    } else {
        try await withTaskExecutorPreference(transport.executor) { try await runWorkload() }
    }
}

nonisolated func runWorkload() async throws {
    switch workload.kind {
    case .small where callsTransportDirectly:
        try await runConcurrently(count: workload.requests, concurrency: workload.concurrency) {
            let context = RequestContext(request: request, timeouts: Timeouts(request: .seconds(600)))
            let response = try await transport.send(request, body: nil, context: context)
            let body = try await response.body.collect(upTo: 1 << 20)
            tally.bytes.add(Int64(body.count), ordering: .relaxed)
            if response.status.code >= 400 { tally.failures.add(1, ordering: .relaxed) }
        }
    case .small:
        try await runConcurrently(count: workload.requests, concurrency: workload.concurrency) {
            let response = try await session.data(for: request)
            tally.record(response.metrics, status: response.status.code)
        }
    case .downloadMemory:
        let response = try await session.data(for: request)
        tally.record(response.metrics, status: response.status.code)
    case .downloadFile:
        let target = URL(fileURLWithPath: workload.path ?? "/tmp/courier-bench.out")
        let response = try await session.downloadTask(with: request, to: DownloadDestination(url: target, options: .removePreviousFile)).response
        tally.record(response.metrics, status: response.status.code)
    case .upload:
        let response = try await session.uploadTask(with: request, from: .file(path: workload.path ?? "")).response
        tally.record(response.metrics, status: response.status.code)
    case .multipartUpload:
        // What `curl -F comment=courier-bench -F file=@FILE` sends: a text field, then the file
        // (read lazily while the body is sent), as a POST with Content-Length.
        var form = MultipartFormData()
        form.append("courier-bench", name: "comment")
        try form.appendFile(at: workload.path ?? "", name: "file")
        let serialized = try form.serialize(HTTPRequest(method: .post, url: url))
        let response = try await session.data(for: serialized.request, body: serialized.body)
        tally.record(response.metrics, status: response.status.code)
    }
}

let start = now()
try await Task.detached { try await measure() }.value
report(
    client: onSharedPool ? observation.clientName + "-pool" : observation.clientName, workload: workload, seconds: now() - start,
    bytes: tally.bytes.load(ordering: .relaxed), connections: tally.connections.load(ordering: .relaxed),
    failures: tally.failures.load(ordering: .relaxed)
)
