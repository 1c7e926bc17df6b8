import CourierCore
import CourierMultipart
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization
import Testing

@Suite struct FilePartTests {
    /// Checklist item 43, with AFNetworking's table (a machine without `/etc/mime.types`).
    @Test func builtInTableGivesAFNetworkingsTypes() {
        let table = MIMETypes.builtIn
        #expect(table.type(forPath: "/fixtures/x.cer") == "application/x-x509-ca-cert")
        #expect(table.type(forPath: "photo.PNG") == "image/png")
        #expect(table.type(forExtension: "json") == "application/json")
        #expect(table.type(forPath: "archive.unknown-ext") == "application/octet-stream")
        #expect(table.type(forPath: "no-extension") == "application/octet-stream")
        #expect(table.type(forPath: ".hidden") == "application/octet-stream")
    }

    /// The system file wins where it names the extension; the built-in table fills the gaps.
    @Test func systemFileWinsOverTheBuiltInTable() {
        let table = MIMETypes(mimeTypesText: """
        # comment line
        application/pkix-cert\t\t\t\tcer
        text/x-custom   cst   CST2 # trailing comment
        image/first png
        image/second png
        """)
        #expect(table.type(forExtension: "cer") == "application/pkix-cert")
        #expect(table.type(forExtension: "cst2") == "text/x-custom")
        #expect(table.type(forExtension: "png") == "image/first")
        #expect(table.type(forExtension: "gif") == "image/gif")
        #expect(table.type(forExtension: "comment") == "application/octet-stream")
    }

    @Test func systemTableReadsTheMachinesFileOrFallsBack() {
        #expect(MIMETypes(systemFile: "/nonexistent/mime.types").type(forExtension: "cer") == "application/x-x509-ca-cert")
        #expect(MIMETypes.system.type(forExtension: "png") == "image/png")
    }

    /// Checklist item 43: file name from the path, type from its extension.
    @Test func filePartTakesItsNameAndTypeFromThePath() async throws {
        let path = try temporaryFile(Data("cert".utf8), name: "x.cer")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var form = try MultipartFormData(boundary: fixedBoundary, mimeTypes: .builtIn)
        try form.appendFile(at: path, name: "test")
        let text = String(decoding: try await bytes(of: form.makeBody()), as: UTF8.self)
        #expect(text == "--\(fixedBoundary)\r\nContent-Disposition: form-data; name=\"test\"; filename=\"x.cer\"\r\nContent-Type: application/x-x509-ca-cert\r\n\r\ncert\r\n--\(fixedBoundary)--\r\n")
    }

    @Test func filePartAcceptsAFileURLAndOverrides() async throws {
        let path = try temporaryFile(Data("png?".utf8), name: "a.png")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var form = try MultipartFormData(boundary: fixedBoundary)
        try form.appendFile(at: URL(filePath: path), name: "img")
        try form.appendFile(at: path, name: "renamed", fileName: "b.txt", mimeType: "text/x-mine")
        let text = String(decoding: try await bytes(of: form.makeBody()), as: UTF8.self)
        #expect(text.contains("name=\"img\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\npng?"))
        #expect(text.contains("name=\"renamed\"; filename=\"b.txt\"\r\nContent-Type: text/x-mine\r\n\r\npng?"))
    }

    /// Checklist item 44: AFNetworking's two file errors.
    @Test func nonFileURLAndMissingFileAreTypedErrors() throws {
        var form = MultipartFormData()
        let notAFile = #expect(throws: MultipartError.self) {
            try form.appendFile(at: URL(string: "http://example.com/x.png")!, name: "x")
        }
        #expect(notAFile?.reason == .notAFileURL)
        #expect(notAFile?.description.hasPrefix("Expected URL to be a file URL") == true)

        let missing = #expect(throws: MultipartError.self) {
            try form.appendFile(at: "/nonexistent-courier/missing.png", name: "avatar")
        }
        #expect(missing?.reason == .fileNotReachable)
        #expect(missing?.partName == "avatar")
        #expect(missing?.description.hasPrefix("File URL not reachable.") == true)
        #expect(missing?.description.contains("/nonexistent-courier/missing.png") == true)
        #expect(missing?.description.contains("No such file or directory") == true)

        let directory = #expect(throws: MultipartError.self) { try form.appendFile(at: "/tmp", name: "dir") }
        #expect(directory?.reason == .fileNotReachable)
        #expect(form.isEmpty)
    }

    /// A named pipe with no writer is refused at once (`fileNotReachable`, "not a regular file"): the open waited for
    /// a writer without end, so `courier URL f@pipe` hung before its request began. A writer comes 10 s after the open
    /// began, if it is still waiting, so such a failure ends and says so.
    @Test func aNamedPipeIsRefusedAtOnce() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pipe = directory.appendingPathComponent("pipe").path
        #expect(mkfifo(pipe, 0o600) == 0)
        let progress = Progress()
        // On a thread of its own, not Swift's pool, which a blocked open would stop on two cores; timed from the open's
        // start, since a busy run can keep the work waiting for a thread for seconds.
        let error = await withCheckedContinuation { (continuation: CheckedContinuation<MultipartError?, Never>) in
            DispatchQueue.global().async {
                DispatchQueue.global().asyncAfter(deadline: .now() + 10) {
                    guard progress.state.compareExchange(expected: 0, desired: 2, ordering: .sequentiallyConsistent).exchanged else { return }
                    let writer = open(pipe, O_WRONLY | O_NONBLOCK)
                    if writer >= 0 { close(writer) }
                }
                var form = MultipartFormData()
                var failure: MultipartError?
                do { try form.appendFile(at: pipe, name: "f") } catch { failure = error as? MultipartError }
                _ = progress.state.compareExchange(expected: 0, desired: 1, ordering: .sequentiallyConsistent)
                continuation.resume(returning: failure)
            }
        }
        #expect(error?.reason == .fileNotReachable && error?.description.contains("not a regular file") == true, "\(String(describing: error))")
        #expect(progress.state.load(ordering: .sequentiallyConsistent) == 1, "the open waited for a writer")
    }

    /// 0 while an open runs, 1 once it returned, 2 once a writer came first.
    final class Progress: Sendable {
        let state = Atomic<Int>(0)
    }

    /// A file that shrinks after it was measured fails the read instead of sending a short form.
    @Test func fileThatShrinksFailsTheRead() async throws {
        let path = try temporaryFile(patternData(10_000))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var form = MultipartFormData()
        try form.appendFile(at: path, name: "file")
        try Data("short".utf8).write(to: URL(filePath: path))
        let error = await #expect(throws: FileError.self) { _ = try await bytes(of: form.makeBody()) }
        #expect(error?.reason?.contains("shrank") == true)
    }

    /// Large files are read in chunks, byte-exact, with the memory of one chunk.
    @Test func largeFileIsStreamedByteExact() async throws {
        let content = patternData(3 * Body.defaultFileChunkSize + 17)
        let path = try temporaryFile(content)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var form = try MultipartFormData(boundary: fixedBoundary)
        try form.appendFile(at: path, name: "f", mimeType: "application/octet-stream")
        var largest = 0
        var received = Data()
        for try await chunk in form.makeBody() {
            largest = max(largest, chunk.count)
            received.append(contentsOf: chunk)
        }
        #expect(largest <= Body.defaultFileChunkSize)
        var expected = Data("--\(fixedBoundary)\r\nContent-Disposition: form-data; name=\"f\"; filename=\"part.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n".utf8)
        expected.append(content)
        expected.append(Data("\r\n--\(fixedBoundary)--\r\n".utf8))
        #expect(received == expected)
    }
}
