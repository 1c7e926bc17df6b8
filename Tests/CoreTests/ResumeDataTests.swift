import CourierCore
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

/// A download that fails part-way leaves resume data, and the resumed task finishes the file (issue 13,
/// part 5), with MockTransport standing in for a server that honours ranges.
@Suite struct ResumeDataTests {
    private let content = Data((0..<300).map { UInt8($0 % 251) })

    @Test func aDroppedConnectionLeavesResumeDataAndTheResumeCompletesTheFile() async throws {
        let content = self.content
        let transport = MockTransport { request in
            if let range = request.head.headerFields[.range] {
                #expect(range == "bytes=120-" && request.head.headerFields[.ifRange] == "\"v1\"")
                return MockResponse(
                    status: .partialContent, headerFields: [.contentRange: "bytes 120-299/300", .eTag: "\"v1\""],
                    body: .bytes(content.suffix(from: 120))
                )
            }
            return MockResponse(
                headerFields: [.eTag: "\"v1\""], body: .chunks([content.prefix(60), content[60..<120]], interval: .zero),
                bodyFailure: TransportError(.connectionLost, message: "reset by peer")
            )
        }
        let session = Session(transport: transport)
        let directory = FileManager.default.temporaryDirectory.appending(path: "resume-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appending(path: "file.bin")
        let request = HTTPRequest(method: .get, scheme: "http", authority: "mock.test", path: "/file.bin")

        let error = await #expect(throws: CourierError.self) {
            _ = try await session.downloadTask(with: request, to: DownloadDestination(url: target)).response
        }
        #expect(error?.kind == .connectionFailed)
        let resumeData = try #require(error?.resumeData)
        #expect(resumeData.bytesWritten == 120 && resumeData.validator == "\"v1\"")
        #expect(try Data(contentsOf: resumeData.partialFileURL) == content.prefix(120))

        let response = try await session.downloadTask(resumingWith: resumeData, to: DownloadDestination(url: target)).response
        #expect(response.head.status == .partialContent)
        #expect(try Data(contentsOf: target) == content)
    }

    @Test func noResumeDataWithoutAValidator() async throws {
        let transport = MockTransport(always: MockResponse(
            body: .chunks([Data(count: 10)], interval: .zero), bodyFailure: TransportError(.connectionLost, message: "reset")
        ))
        let session = Session(transport: transport)
        let request = HTTPRequest(method: .get, scheme: "http", authority: "mock.test", path: "/f")
        let error = await #expect(throws: CourierError.self) {
            _ = try await session.downloadTask(with: request, to: DownloadDestination(url: URL(fileURLWithPath: "/tmp/never-\(UInt32.random(in: 0...UInt32.max))"))).response
        }
        #expect(error?.resumeData == nil)
    }
}
