import CourierCore
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Testing

@Suite("Body")
struct BodyTests {
    @Test func bytesBodyKnowsItsLengthAndReplays() async throws {
        let body = Body("hello")
        #expect(body.length == .known(5))
        #expect(body.iterationBehavior == .multiple)
        #expect(try await body.collect(upTo: 100) == Data("hello".utf8))
        #expect(try await body.collect(upTo: 100) == Data("hello".utf8))
    }

    @Test func emptyBodyYieldsNoChunk() async throws {
        var chunks = 0
        for try await _ in Body.empty { chunks += 1 }
        #expect(chunks == 0)
        #expect(Body.empty.length == .known(0))
    }

    @Test func singleBodyRefusesASecondRead() async throws {
        let (body, writer) = Body.makeStream()
        writer.yield(Data("ab".utf8))
        writer.finish()
        #expect(try await body.collect(upTo: 10) == Data("ab".utf8))
        #expect(body.hasBeenIterated)
        await #expect(throws: BodyError.notReplayable) { try await body.collect(upTo: 10) }
    }

    @Test func collectRefusesMoreThanItsBound() async throws {
        await #expect(throws: BodyError.tooLarge(limit: 3)) { try await Body("four").collect(upTo: 3) }
        let (stream, writer) = Body.makeStream()
        writer.yield(Data("12".utf8))
        writer.yield(Data("34".utf8))
        writer.finish()
        await #expect(throws: BodyError.tooLarge(limit: 3)) { try await stream.collect(upTo: 3) }
    }

    @Test func streamCarriesTheProducersError() async throws {
        struct Broken: Error {}
        let (body, writer) = Body.makeStream()
        writer.yield(Data("x".utf8))
        writer.finish(throwing: Broken())
        await #expect(throws: Broken.self) { try await body.collect(upTo: 10) }
    }

    @Test func sequenceBodyKeepsDeclaredShape() async throws {
        let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
            continuation.yield([1, 2])
            continuation.yield([3])
            continuation.finish()
        }
        let body = Body(chunks, length: .known(3), iterationBehavior: .single)
        #expect(body.length == .known(3))
        #expect(try await body.collect(upTo: 3) == Data([1, 2, 3]))
    }

    @Test func fileBodyReadsLazilyInChunksAndReplays() async throws {
        let directory = try temporaryDirectory()
        let file = directory.appending(path: "data.bin")
        let bytes = Data((0..<10_000).map { UInt8($0 % 251) })
        try bytes.write(to: file)
        let body = try Body(contentsOfFileAt: file.path(percentEncoded: false), chunkSize: 4096)
        #expect(body.length == .known(10_000))
        #expect(body.iterationBehavior == .multiple)
        var sizes: [Int] = []
        for try await chunk in body { sizes.append(chunk.count) }
        #expect(sizes == [4096, 4096, 1808])
        #expect(try await body.collect(upTo: 20_000) == bytes)
        #expect(try await body.collect(upTo: 20_000) == bytes)
    }

    @Test func missingFileFailsAtOnceWithItsPath() throws {
        #expect {
            _ = try Body(contentsOfFileAt: "/nonexistent/courier/file.bin")
        } throws: { error in
            let error = error as? FileError
            return error?.operation == .open && error?.path == "/nonexistent/courier/file.bin"
                && error?.description.contains("No such file or directory") == true
        }
    }

    @Test func directoryIsNotAFileBody() throws {
        #expect(throws: FileError.self) { _ = try Body(contentsOfFileAt: "/tmp") }
    }

    /// A named pipe, a device: refused at once as no regular file. A pipe with no writer made the open wait without end
    /// (a request's timeout does not cover it): after 10 s a writer comes here, so such a failure ends.
    @Test func aNamedPipeOrADeviceIsRefusedAtOnce() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pipe = directory.appendingPathComponent("pipe").path
        #expect(mkfifo(pipe, 0o600) == 0)
        for path in [pipe, "/dev/zero", "/dev/null"] {
            let started = ContinuousClock.now
            let made = offThePool(rescuing: pipe) { () -> FileError? in
                do { _ = try Body(contentsOfFileAt: path); return nil } catch { return error as? FileError }
            }
            let error = await made.value
            #expect(error?.description.contains("not a regular file") == true, "\(path): \(String(describing: error))")
            #expect(ContinuousClock.now - started < .seconds(10), "\(path): the open waited for a writer")
        }
    }
}

/// Runs `work`, which may block in `open(2)`, on a thread of its own rather than Swift's pool (two blocked threads would
/// stop the pool on two cores); after 10 s a writer opens `pipe`, so an open waiting for one ends.
func offThePool<Value: Sendable>(rescuing pipe: String, _ work: @escaping @Sendable () -> Value) -> Task<Value, Never> {
    DispatchQueue.global().asyncAfter(deadline: .now() + 10) {
        let writer = open(pipe, O_WRONLY | O_NONBLOCK)
        if writer >= 0 { close(writer) }
    }
    return Task {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }
}
