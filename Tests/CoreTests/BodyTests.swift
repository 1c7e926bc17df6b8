import CourierCore
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization
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
    /// (a request's timeout does not cover it): a writer comes 10 s after the open began, if it is still waiting, so
    /// such a failure ends and says so.
    @Test func aNamedPipeOrADeviceIsRefusedAtOnce() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pipe = directory.appendingPathComponent("pipe").path
        #expect(mkfifo(pipe, 0o600) == 0)
        for path in [pipe, "/dev/zero", "/dev/null"] {
            let (error, rescued) = await offThePool(rescuing: pipe) { () -> FileError? in
                do { _ = try Body(contentsOfFileAt: path); return nil } catch { return error as? FileError }
            }
            #expect(error?.description.contains("not a regular file") == true, "\(path): \(String(describing: error))")
            #expect(!rescued, "\(path): the open waited for a writer")
        }
    }
}

/// Runs `work`, which may block in `open(2)`, on a thread of its own rather than Swift's pool (two blocked threads stop
/// the pool on two cores). If `work` has not returned 10 s after it began, a writer opens `pipe`, which ends an open
/// waiting for one; the second value says whether that was needed. Timed from `work`'s start, not from the call: a busy
/// run of the suite can keep the work waiting for a thread for seconds.
func offThePool<Value: Sendable>(rescuing pipe: String, _ work: @escaping @Sendable () -> Value) async -> (Value, rescued: Bool) {
    return await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            let progress = OpenProgress()
            DispatchQueue.global().asyncAfter(deadline: .now() + 10) {
                guard progress.state.compareExchange(expected: 0, desired: 2, ordering: .sequentiallyConsistent).exchanged else { return }
                let writer = open(pipe, O_WRONLY | O_NONBLOCK)
                if writer >= 0 { close(writer) }
            }
            let value = work()
            let rescued = !progress.state.compareExchange(expected: 0, desired: 1, ordering: .sequentiallyConsistent).exchanged
            continuation.resume(returning: (value, rescued))
        }
    }
}

/// 0 while an open runs, 1 once it returned, 2 once a writer came first.
final class OpenProgress: Sendable {
    let state = Atomic<Int>(0)
}
