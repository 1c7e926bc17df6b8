import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Testing

/// Compressed bodies as real servers send them (the compression server, directly over HTTP/1.1 and
/// through nginx over TLS with HTTP/2), read fast, read slowly (so the transfer pauses for
/// backpressure again and again) and suspended in the middle: every cell decodes byte-exact, its
/// SHA-256 checked by `sha256sum` against the one the server computed, or fails with the bomb error.
///
/// `COURIER_DECODING_MATRIX=full` adds 256 MiB bodies (the run recorded in docs/reliability.md);
/// the default stops at 16 MiB to keep `Scripts/test.sh` short.
@Suite("Decoding matrix", .serialized)
struct DecodingMatrixTests {
    enum Reader: String, CaseIterable, Sendable { case fast, slow, suspended }
    enum Route: String, CaseIterable, Sendable { case http1, tlsHTTP2 }

    static let encodings = ["gzip", "deflate", "br", "zstd"]
    static var sizes: [String] {
        let environment = ProcessInfo.processInfo.environment
        if environment["COURIER_DECODING_MATRIX"] == "full" { return ["64k", "1m", "16m", "256m"] }
        // ThreadSanitizer runs the same cells on smaller bodies: the races are in the hand-overs, not the megabytes.
        if environment["COURIER_SANITIZER"] != nil { return ["64k", "1m"] }
        return ["64k", "1m", "16m"]
    }
    static let ratios = [1, 18, 100, 1000]

    static let h1Transport: CurlTransport = {
        do { return try CurlTransport(configuration: { var c = CurlTransport.Configuration(); c.httpVersion = .http1_1; c.responseBufferSize = 256 * 1024; return c }()) }
        catch { fatalError("\(error)") }
    }()
    static let tlsTransport: CurlTransport = {
        do {
            var configuration = CurlTransport.Configuration()
            configuration.certificateAuthorityFile = Servers.caFile
            configuration.responseBufferSize = 256 * 1024
            return try CurlTransport(configuration: configuration)
        } catch { fatalError("\(error)") }
    }()

    func session(_ route: Route) -> Session {
        switch route {
        case .http1:
            return IntegrationTests.session(Servers.compression, transport: Self.h1Transport) { $0.timeouts = Timeouts(request: .seconds(600)) }
        case .tlsHTTP2:
            return IntegrationTests.session(Servers.tls, transport: Self.tlsTransport) { $0.timeouts = Timeouts(request: .seconds(600)) }
        }
    }

    @Test(arguments: encodings, Route.allCases)
    func everyCellDecodesByteExact(encoding: String, route: Route) async throws {
        for size in Self.sizes {
            for ratio in Self.ratios {
                for reader in Reader.allCases {
                    // A slow reader over 256 MiB would take minutes for nothing a 16 MiB one does not show.
                    if reader == .slow, size == "256m" { continue }
                    let framing = (size.count + ratio) % 2 == 0 ? "chunked" : "length"
                    let path = "compressed?encoding=\(encoding)&size=\(size)&ratio=\(ratio)&framing=\(framing)&seed=\(ratio)"
                    try await check(path: path, route: route, reader: reader)
                }
            }
        }
    }

    /// A bomb (zeros compressed as tightly as the coding allows) fails with the typed error, or, for
    /// gzip, whose ratio cannot pass 1,032:1, decodes byte-exact; with the limits off, every one decodes.
    @Test(arguments: encodings, Route.allCases)
    func bombsFailWithTheTypedError(encoding: String, route: Route) async throws {
        let s = session(route)
        let request = try s.makeRequest(.get, "bomb?encoding=\(encoding)&size=64m")
        let response = try await s.send(request)
        let expected = try #require(response.head.headerFields[HTTPField.Name("X-Decoded-SHA256")!])
        do {
            let digest = try await Digest.of(response.body, reader: .fast)
            #expect(encoding == "gzip" || encoding == "deflate", "a \(encoding) bomb passed the default ratio limit")
            #expect(digest.sha256 == expected)
        } catch {
            #expect(((error as? TransportError)?.code ?? transportCode(error)) == .decompressionLimitExceeded, "\(encoding): \(error)")
        }
    }

    private func check(path: String, route: Route, reader: Reader) async throws {
        let s = session(route)
        let request = try s.makeRequest(.get, path)
        let label = "\(route) \(reader) \(path)"
        let digest: Digest
        let head: HTTPResponse
        if reader == .suspended {
            // A download task, suspended once bytes flow and resumed a little later.
            let directory = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let task = s.downloadTask(with: request, to: DownloadDestination(url: directory.appendingPathComponent("body")))
            task.resume()
            _ = await eventually { task.downloadProgress.completed > 0 }
            task.suspend()
            try await Task.sleep(for: .milliseconds(50))
            task.resume()
            let response = try await task.response
            head = response.head
            digest = try await Digest.of(fileAt: response.fileURL.path)
        } else {
            let response = try await s.send(request)
            head = response.head
            digest = try await Digest.of(response.body, reader: reader)
        }
        let expected = head.headerFields[HTTPField.Name("X-Decoded-SHA256")!]
        let length = head.headerFields[HTTPField.Name("X-Decoded-Length")!].flatMap(Int64.init)
        #expect(digest.sha256 == expected, "\(label)")
        #expect(digest.count == length, "\(label)")
    }
}

/// A body's length and SHA-256, computed by `sha256sum` (an independent implementation) as it is read.
struct Digest {
    let count: Int64
    let sha256: String

    static func of(_ body: Body, reader: DecodingMatrixTests.Reader) async throws -> Digest {
        let hasher = try Hasher()
        var count: Int64 = 0
        var chunks = 0
        for try await chunk in body {
            count += Int64(chunk.count)
            hasher.write(chunk)
            chunks += 1
            // The slow reader takes a pause every 64 KiB or so: the response buffer fills, the transfer
            // pauses, resumes, pauses again, hundreds of times.
            if reader == .slow, chunks % 4 == 0 { try await Task.sleep(for: .milliseconds(1)) }
        }
        return Digest(count: count, sha256: try await hasher.finish())
    }

    static func of(fileAt path: String) async throws -> Digest {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        let count = (attributes[.size] as? NSNumber)?.int64Value ?? -1
        let hasher = try Hasher(file: path)
        return Digest(count: count, sha256: try await hasher.finish())
    }

    /// `sha256sum` reading a pipe (or a file).
    ///
    /// `@unchecked Sendable`: one test uses it at a time; `finish` hands it to a thread of its own (``offPool(_:)``)
    /// while that test awaits, and nothing else touches it then.
    final class Hasher: @unchecked Sendable {
        private let process = Process()
        private let input = Pipe()
        private let output = Pipe()

        init(file: String? = nil) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
            if let file { process.arguments = [file] } else { process.standardInput = input }
            process.standardOutput = output
            try process.run()
        }

        func write(_ chunk: ArraySlice<UInt8>) {
            input.fileHandleForWriting.write(Data(chunk))
        }

        /// The digest, once `sha256sum` has read everything: waited for off the cooperative pool, as hashing a large
        /// file takes seconds.
        func finish() async throws -> String {
            try await offPool {
                try? self.input.fileHandleForWriting.close()
                let data = self.output.fileHandleForReading.readDataToEndOfFile()
                self.process.waitUntilExit()
                return String(decoding: data, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
            }
        }
    }
}
