import CourierCore
import CourierCurl
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// Big bodies: byte-exact suspend/resume, downloads to files, and flat memory.
@Suite("Large transfers", .serialized)
struct LargeTransferTests {
    var files: URL { URL(fileURLWithPath: Servers.filesDirectory) }

    /// Compares a file on disk with bytes, chunk by chunk.
    func sameContents(_ a: URL, _ b: URL) throws -> Bool {
        let left = try FileHandle(forReadingFrom: a), right = try FileHandle(forReadingFrom: b)
        defer { try? left.close(); try? right.close() }
        while true {
            let x = try left.read(upToCount: 4 << 20) ?? Data()
            let y = try right.read(upToCount: 4 << 20) ?? Data()
            if x != y { return false }
            if x.isEmpty { return true }
        }
    }

    @Test func suspendedDownloadReceivesNothingThenCompletesByteExact() async throws {
        let t = try transport { $0.responseBufferSize = 256 * 1024 }
        let s = session(Servers.nginx, transport: t) { $0.timeouts = Timeouts(request: .seconds(120)) }
        let directory = try temporaryDirectory()
        let task = s.downloadTask(with: try s.makeRequest(.get, "files/256m.bin"), to: DownloadDestination(url: directory.appendingPathComponent("out.bin")))
        task.resume()
        #expect(await eventually { task.downloadProgress.completed > 1 << 20 })
        task.suspend()
        try await Task.sleep(for: .milliseconds(200))  // let bytes already on their way land
        let paused = task.downloadProgress.completed
        try await Task.sleep(for: .milliseconds(700))
        #expect(task.downloadProgress.completed == paused)
        task.resume()
        let response = try await task.response
        #expect(try sameContents(response.fileURL, files.appendingPathComponent("256m.bin")))
        try? FileManager.default.removeItem(at: directory)
    }

    @Test func cancellingASuspendedDownloadIsPrompt() async throws {
        let s = session(Servers.nginx)
        let task = s.downloadTask(with: try s.makeRequest(.get, "files/256m.bin"), to: .suggested(in: try temporaryDirectory()))
        task.resume()
        #expect(await eventually { task.downloadProgress.completed > 0 })
        task.suspend()
        let (_, elapsed) = await timed {
            task.cancel()
            await #expect { _ = try await task.response } throws: { ($0 as? CourierError)?.isCancellation == true }
        }
        #expect(elapsed < TimeBounds.prompt)
    }

    @Test func gigabyteStreamKeepsMemoryFlat() async throws {
        let s = session(Servers.nginx) { $0.timeouts = Timeouts(request: .seconds(300)) }
        let before = residentBytes()
        var peak = before
        let response = try await s.send(try s.makeRequest(.get, "files/1g.bin"))
        var total: Int64 = 0
        for try await chunk in response.body {
            total += Int64(chunk.count)
            if total % (64 << 20) < Int64(chunk.count) { peak = max(peak, residentBytes()) }
        }
        peak = max(peak, residentBytes())
        #expect(total == 1 << 30)
        if boundsResidentMemory { #expect(peak - before < 64 << 20, "resident memory grew by \((peak - before) >> 20) MiB") }
    }

    @Test func slowReaderPausesTheTransferInsteadOfBuffering() async throws {
        let t = try transport { $0.responseBufferSize = 512 * 1024 }
        let s = session(Servers.nginx, transport: t) { $0.timeouts = Timeouts(request: .seconds(120)) }
        let before = residentBytes()
        let response = try await s.send(try s.makeRequest(.get, "files/256m.bin"))
        var iterator = response.body.makeAsyncIterator()
        _ = try await iterator.next()
        try await Task.sleep(for: .seconds(1))   // the server could send all 256 MiB meanwhile
        if boundsResidentMemory { #expect(residentBytes() - before < 32 << 20) }
        var total = 0
        while let chunk = try await iterator.next() { total += chunk.count }
        #expect(total > 255 << 20)
    }

    @Test func gigabyteDownloadToAFile() async throws {
        let s = session(Servers.nginx) { $0.timeouts = Timeouts(request: .seconds(300)) }
        let directory = try temporaryDirectory()
        let before = residentBytes()
        let response = try await s.downloadTask(with: try s.makeRequest(.get, "files/1g.bin"), to: DownloadDestination(url: directory.appendingPathComponent("1g.bin"))).response
        if boundsResidentMemory { #expect(residentBytes() - before < 64 << 20) }
        let size = try FileManager.default.attributesOfItem(atPath: response.fileURL.path)[.size] as? Int
        #expect(size == 1 << 30)
        try? FileManager.default.removeItem(at: directory)
    }

    @Test func fileUploadIsByteExact() async throws {
        let source = files.appendingPathComponent("1m.bin")
        let s = session(Servers.httpbin)
        let request = try s.makeRequest(.post, "post", headers: [.contentType: "application/octet-stream"])
        let response = try await s.uploadTask(with: request, from: .file(path: source.path)).response
        let echoed = try #require((try json(response)["data"] as? String)?.split(separator: ",").last.flatMap { Data(base64Encoded: String($0)) })
        #expect(echoed == (try Data(contentsOf: source)))
    }
}

/// Regressions found in review: early suspends, big streamed chunks, transports released early.
@Suite("Transport edge cases", .serialized)
struct TransportEdgeCaseTests {
    @Test func suspendRightAfterResumeHoldsTheTransfer() async throws {
        let s = session(Servers.nginx) { $0.timeouts = Timeouts(request: .seconds(120)) }
        let task = s.downloadTask(with: try s.makeRequest(.get, "files/256m.bin"), to: .suggested(in: try temporaryDirectory()))
        task.resume()
        task.suspend()   // most likely before the transfer has its connection
        try await Task.sleep(for: .milliseconds(700))
        #expect(task.downloadProgress.completed < 8 << 20, "received \(task.downloadProgress.completed) bytes while suspended")
        task.resume()
        let response = try await task.response
        #expect(task.downloadProgress.completed == 256 << 20)
        try? FileManager.default.removeItem(at: response.fileURL)
    }

    @Test func streamedChunksLargerThanThePipeAreSent() async throws {
        let t = try transport { $0.requestBufferSize = 256 * 1024; $0.httpVersion = .http1_1 }
        let s = session(Servers.nginx, transport: t)
        let chunk = [UInt8](repeating: 0x61, count: 2 << 20)
        let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
            for _ in 0..<4 { continuation.yield(chunk[...]) }
            continuation.finish()
        }
        let body = Body(chunks, length: .known(8 << 20), iterationBehavior: .single)
        let (response, elapsed) = try await timed {
            try await s.data(for: try s.makeRequest(.put, "upload"), body: body)
        }
        #expect(response.status == .ok)
        #expect(response.metrics?.bytesSent == 8 << 20)
        // 8 MiB to nginx on loopback takes milliseconds; the bound catches a stream that stalls.
        #expect(elapsed < TimeBounds.limit(.seconds(5)))
    }

    @Test func aBodyOutlivesItsTransportAndSession() async throws {
        func start() async throws -> Response {
            let local = try CurlTransport()
            let s = Session(configuration: SessionConfiguration(baseURL: URL(string: Servers.nginx)), transport: local)
            return try await s.send(try s.makeRequest(.get, "files/1m.bin"))
        }
        let response = try await start()
        try await Task.sleep(for: .milliseconds(100))
        let data = try await response.body.collect(upTo: 2 << 20)
        #expect(data.count == 1 << 20)
    }
}
