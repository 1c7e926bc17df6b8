import CourierCore
import CourierTesting
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import HTTPTypes
import Testing

@Suite("Upload and download tasks")
struct TransferTaskTests {
    @Test func uploadFromFileSendsItsBytes() async throws {
        let directory = try temporaryDirectory()
        let file = directory.appending(path: "upload.bin")
        let bytes = Data((0..<300_000).map { UInt8($0 % 256) })
        try bytes.write(to: file)
        let transport = MockTransport(always: .status(.created))
        let session = Session(transport: transport)
        let task = session.uploadTask(with: mockRequest(.post, "/up"), from: .file(path: file.path(percentEncoded: false)))
        let response = try await task.response
        #expect(response.status == .created)
        #expect(transport.requests[0].body == bytes)
        #expect(task.task.kind == .upload)
        #expect(task.uploadProgress.completed == 300_000)
    }

    @Test func uploadFromMissingFileFailsWithItsPath() async throws {
        let transport = MockTransport(always: .status(.ok))
        let task = Session(transport: transport).uploadTask(with: mockRequest(.post), from: .file(path: "/nonexistent/x.bin"))
        await #expect {
            _ = try await task.response
        } throws: { error in
            let error = error as? CourierError
            return (error?.underlyingError as? FileError)?.path == "/nonexistent/x.bin"
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func downloadMovesTheFileToItsDestination() async throws {
        let directory = try temporaryDirectory()
        let target = directory.appending(path: "nested/out.bin")
        let chunks = (0..<10).map { Data(repeating: UInt8($0), count: 10_240) }
        var script = MockResponse.chunks(chunks)
        script.headerFields[.contentLength] = "102400"
        let (session, recorder) = recordingSession(MockTransport(always: script))
        let task = session.downloadTask(with: mockRequest(.get, "/bytes"), to: DownloadDestination(url: target, options: .createIntermediateDirectories))
        let response = try await task.response
        #expect(response.fileURL == target)
        #expect(try Data(contentsOf: target) == chunks.reduce(Data(), +))
        #expect(task.downloadProgress == TransferProgress(completed: 102_400, total: 102_400))
        #expect(task.downloadProgress.fractionCompleted == 1.0)
        let names = recorder.names(excluding: RecordingEventListener.progressKinds)
        #expect(names.suffix(3) == ["metricsCollected", "downloadMoved", "taskCompleted"])
    }

    @Test func downloadIntoAMissingDirectoryFailsAtTheDownloadStage() async throws {
        let target = URL(filePath: "/nonexistent-courier/a/b/c")
        let (session, recorder) = recordingSession(MockTransport(always: .text("x")))
        await #expect {
            _ = try await session.downloadTask(with: mockRequest(), to: DownloadDestination(url: target)).response
        } throws: { error in
            let error = error as? CourierError
            return error?.stage == .download && (error?.underlyingError as? FileError)?.operation == .move
        }
        #expect(recorder.names().last == "taskFailed")
    }

    @Test func existingFileIsReplacedOnlyWhenAsked() async throws {
        let directory = try temporaryDirectory()
        let target = directory.appending(path: "same.txt")
        try Data("old".utf8).write(to: target)
        let session = Session(transport: MockTransport(always: .text("new")))
        await #expect(throws: CourierError.self) {
            _ = try await session.downloadTask(with: mockRequest(), to: DownloadDestination(url: target)).response
        }
        _ = try await session.downloadTask(with: mockRequest(), to: DownloadDestination(url: target, options: .removePreviousFile)).response
        #expect(try String(decoding: Data(contentsOf: target), as: UTF8.self) == "new")
    }

    @Test func replacingAFileNeverRemovesADirectory() async throws {
        // A server's suggested name can match a directory beside the downloads; `.removePreviousFile` once
        // deleted it, with everything in it.
        let directory = try temporaryDirectory()
        let kept = directory.appending(path: "reports/2026/q3.pdf")
        try FileManager.default.createDirectory(at: kept.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: kept)
        var named = MockResponse.text("new")
        named.headerFields[.contentDisposition] = #"attachment; filename="reports""#
        let session = Session(transport: MockTransport(always: named))
        let destination = DownloadDestination.suggested(in: directory, options: [.createIntermediateDirectories, .removePreviousFile])
        await #expect {
            _ = try await session.downloadTask(with: mockRequest(), to: destination).response
        } throws: { error in
            let file = (error as? CourierError)?.underlyingError as? FileError
            return (error as? CourierError)?.stage == .download && file?.operation == .move && file?.errno == EISDIR
        }
        #expect(try String(decoding: Data(contentsOf: kept), as: UTF8.self) == "keep")
    }

    @Test func sessionLevelDestinationWins() async throws {
        let directory = try temporaryDirectory()
        let sessionTarget = directory.appending(path: "session.txt")
        let taskTarget = directory.appending(path: "task.txt")
        let session = Session(
            configuration: SessionConfiguration(downloadDestination: { _, _ in sessionTarget }),
            transport: MockTransport(always: .text("x"))
        )
        let response = try await session.downloadTask(with: mockRequest(), to: DownloadDestination(url: taskTarget)).response
        #expect(response.fileURL == sessionTarget)
        #expect(FileManager.default.fileExists(atPath: sessionTarget.path(percentEncoded: false)))
        #expect(!FileManager.default.fileExists(atPath: taskTarget.path(percentEncoded: false)))
    }

    @Test func suggestedNameComesFromContentDispositionThenPath() async throws {
        let directory = try temporaryDirectory()
        var named = MockResponse.text("x")
        named.headerFields[.contentDisposition] = #"attachment; filename="../../report.pdf""#
        let session = Session(transport: MockTransport(routes: ["/named": named, "/files/data.csv": .text("y")]))
        let first = try await session.downloadTask(with: mockRequest(.get, "/named"), to: .suggested(in: directory)).response
        #expect(first.fileURL.lastPathComponent == "report.pdf")
        #expect(first.fileURL.deletingLastPathComponent().path(percentEncoded: false).hasPrefix(directory.path(percentEncoded: false)))
        let second = try await session.downloadTask(with: mockRequest(.get, "/files/data.csv"), to: .suggested(in: directory)).response
        #expect(second.fileURL.lastPathComponent == "data.csv")
    }

    @Test func downloadBodyFailureIsAResponseBodyError() async throws {
        var script = MockResponse.chunks([Data(count: 10)])
        script.bodyFailure = TransportError(.connectionLost, message: "reset")
        let session = Session(transport: MockTransport(always: script))
        let directory = try temporaryDirectory()
        await #expect {
            _ = try await session.downloadTask(with: mockRequest(), to: DownloadDestination(url: directory.appending(path: "f"))).response
        } throws: { error in
            let error = error as? CourierError
            return error?.stage == .responseBody && (error?.underlyingError as? TransportError)?.code == .connectionLost
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path(percentEncoded: false)).isEmpty)
    }
}
