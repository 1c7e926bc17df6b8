import BenchSupport
import Foundation
import FoundationNetworking

// URLSession on Linux (swift-corelibs-foundation), as most Swift code on Linux uses it.
final class TrustAll: NSObject, URLSessionDelegate {}
let workload = Workload.parse()
let configuration = URLSessionConfiguration.default
configuration.httpMaximumConnectionsPerHost = max(workload.concurrency, 6)
configuration.timeoutIntervalForRequest = 60
let session = URLSession(configuration: configuration)
guard let url = URL(string: workload.url) else { exit(2) }
let counter = ResponseTally()
let start = now()
switch workload.kind {
case .multipartUpload:
    unsupported(workload, client: "urlsession-bench")
case .small, .downloadMemory:
    try await runConcurrently(count: workload.requests, concurrency: workload.concurrency) {
        let (data, response) = try await session.data(from: url)
        counter.add(data.count, status: (response as? HTTPURLResponse)?.statusCode ?? 0)
    }
case .downloadFile:
    let (temporary, response) = try await session.download(from: url)
    let size = (try? FileManager.default.attributesOfItem(atPath: temporary.path)[.size] as? Int) ?? 0
    try? FileManager.default.removeItem(atPath: workload.path ?? "")
    try FileManager.default.moveItem(at: temporary, to: URL(fileURLWithPath: workload.path ?? "/tmp/urlsession-bench.out"))
    counter.add(size, status: (response as? HTTPURLResponse)?.statusCode ?? 0)
case .upload:
    var request = URLRequest(url: url)
    request.httpMethod = "PUT"
    let file = URL(fileURLWithPath: workload.path ?? "")
    let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
    let (_, response) = try await session.upload(for: request, fromFile: file)
    counter.add(size, status: (response as? HTTPURLResponse)?.statusCode ?? 0)
}
report(client: "urlsession", workload: workload, seconds: now() - start, bytes: counter.bytes, connections: nil, failures: counter.failures)
