import AsyncHTTPClient
import BenchSupport
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOSSL

// AsyncHTTPClient, the SwiftNIO client most Swift servers use.
let workload = Workload.parse()
var tls = TLSConfiguration.makeClientConfiguration()
if let ca = workload.caFile { tls.trustRoots = .file(ca) }
var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(workload.concurrency, 8)
let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
let counter = ResponseTally()
let start = now()
do {
    switch workload.kind {
    case .multipartUpload:
        unsupported(workload, client: "ahc-bench")
    case .small, .downloadMemory:
        try await runConcurrently(count: workload.requests, concurrency: workload.concurrency) {
            let response = try await client.execute(HTTPClientRequest(url: workload.url), timeout: .seconds(600))
            let body = try await response.body.collect(upTo: 2 << 30)
            counter.add(body.readableBytes, status: Int(response.status.code))
        }
    case .downloadFile:
        let response = try await client.execute(HTTPClientRequest(url: workload.url), timeout: .seconds(600))
        _ = FileManager.default.createFile(atPath: workload.path ?? "/tmp/ahc-bench.out", contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: workload.path ?? "/tmp/ahc-bench.out"))
        var total = 0
        for try await buffer in response.body {
            handle.write(Data(buffer: buffer))
            total += buffer.readableBytes
        }
        try handle.close()
        counter.add(total, status: Int(response.status.code))
    case .upload:
        var request = HTTPClientRequest(url: workload.url)
        request.method = .PUT
        let path = workload.path ?? ""
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        let chunks = AsyncStream<ByteBuffer> { continuation in
            while let data = try? handle.read(upToCount: 256 * 1024), !data.isEmpty {
                continuation.yield(ByteBuffer(data: data))
            }
            continuation.finish()
        }
        request.body = .stream(chunks, length: .known(Int64(size)))
        let response = try await client.execute(request, timeout: .seconds(600))
        _ = try await response.body.collect(upTo: 1 << 20)
        counter.add(size, status: Int(response.status.code))
    }
} catch {
    FileHandle.standardError.write(Data("ahc-bench: \(error)\n".utf8))
    try? await client.shutdown().get()
    exit(1)
}
// The singleton event loop group outlives the client, so report() still finds its threads' time.
try await client.shutdown().get()
report(client: "async-http-client", workload: workload, seconds: now() - start, bytes: counter.bytes, connections: nil, failures: counter.failures)
