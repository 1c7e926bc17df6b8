import Courier
import Foundation
import Testing

/// Checklist C against httpbin and the upload sink: multipart forms on the wire.
@Suite("Multipart", .serialized) struct MultipartTests {
    private var files: URL { URL(fileURLWithPath: Servers.filesDirectory) }

    /// Item 39: parameters and a data file part, parsed by httpbin.
    @Test func parametersAndFileDataReachHttpbin() async throws {
        let task = try session().upload(to: "post", parameters: ["key": "value"]) { form in
            form.append(Data("Data".utf8), name: "DataName", fileName: "DataFileName", mimeType: "data")
        }
        let response = try await task.response
        #expect(response.status == .ok)
        let echoed = try json(response)
        #expect((echoed["form"] as? [String: Any])?["key"] as? String == "value")
        #expect((echoed["files"] as? [String: Any])?["DataName"] as? String == "Data")
        let headers = try #require(echoed["headers"] as? [String: Any])
        #expect((headers["Content-Type"] as? String)?.hasPrefix("multipart/form-data; boundary=Boundary+") == true)
        #expect(headers["Content-Length"] as? String == String(try #require(task.uploadProgress.total)))
        #expect(headers["Transfer-Encoding"] == nil)
    }

    /// Nested parameters arrive as the flattened names httpbin's form parser sees, on PUT and PATCH too.
    @Test(arguments: [HTTPRequest.Method.post, .put, .patch])
    func nestedParametersArriveAsFormFields(method: HTTPRequest.Method) async throws {
        let path = method.rawValue.lowercased()
        let task = try session().upload(to: path, method: method, parameters: ["user": ["name": "a b"], "ids": [1, 2]]) { _ in }
        let form = try #require(try json(try await task.response)["form"] as? [String: Any])
        #expect(form["user[name]"] as? String == "a b")
        #expect(form["ids[]"] as? [String] == ["1", "2"])
    }

    /// Binary files arrive byte-exact (httpbin returns non-text parts as a base64 data URL).
    @Test func binaryFilePartIsByteExact() async throws {
        let source = files.appendingPathComponent("1m.bin")
        let task = try session().upload(to: "anything") { form in
            try form.appendFile(at: source.path, name: "blob", mimeType: "application/octet-stream")
        }
        let filesEchoed = try #require(try json(try await task.response)["files"] as? [String: Any])
        let dataURL = try #require(filesEchoed["blob"] as? String)
        let base64 = try #require(dataURL.split(separator: ",").last.map(String.init))
        #expect(Data(base64Encoded: base64) == (try Data(contentsOf: source)))
    }

    /// Item 43 on the wire: the type from the extension reaches the server.
    @Test func fileTypeFromTheExtensionReachesTheServer() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let png = directory.appendingPathComponent("pixel.png")
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: png)
        var form = MultipartFormData()
        try form.appendFile(at: png, name: "image")
        let built = try await collectedForm(form)
        #expect(String(decoding: built, as: UTF8.self).contains("filename=\"pixel.png\"\r\nContent-Type: image/png\r\n"))
        let echoed = try json(try await session(Servers.sink).upload(form, to: "form").response)
        #expect(echoed["length"] as? Int == built.count)
        #expect(echoed["sha256"] as? String == (try await sha256(built)))
    }

    /// Item 47: a throttled 100 KB form arrives identical.
    @Test func throttledUploadArrivesIdentical() async throws {
        let payload = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        var form = MultipartFormData()
        form.append(payload, name: "payload", fileName: "payload.bin", mimeType: "application/octet-stream")
        form.throttle = Throttle(packetSize: Throttle.suggestedPacketSize, delay: .milliseconds(10))
        let echoed = try json(try await session(Servers.sink).upload(form, to: "throttled").response)
        let unthrottled = try await collectedForm(form)
        #expect(echoed["length"] as? Int == unthrottled.count)
        #expect(echoed["sha256"] as? String == (try await sha256(unthrottled)))
    }

    /// Item 48: a 20,004-byte file part reaches full upload progress.
    @Test func uploadProgressReachesOne() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("af.txt")
        try Data(String(repeating: "AFNetworking", count: 1667).utf8).write(to: file)
        let reported = Box<TransferProgress?>(nil)
        let task = try session().upload(to: "post") { form in try form.appendFile(at: file.path, name: "file") }
        task.onUploadProgress { progress in reported.value = progress }
        _ = try await task.response
        #expect(task.uploadProgress.fractionCompleted == 1.0)
        #expect((task.uploadProgress.total ?? 0) > 20_004)
        #expect(await eventually { reported.value?.fractionCompleted == 1.0 })
    }

    /// Item 49: a 307 redirect re-sends the identical form.
    @Test func a307ResendsTheIdenticalForm() async throws {
        let source = files.appendingPathComponent("1m.bin")
        var form = MultipartFormData()
        form.append("value", name: "key")
        try form.appendFile(at: source.path, name: "file")
        let target = "\(Servers.httpbin)/post".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let response = try await session().upload(form, to: "redirect-to?url=\(target)&status_code=307").response
        #expect(response.history.count == 1)
        let echoed = try json(response)
        #expect((echoed["form"] as? [String: Any])?["key"] as? String == "value")
        let dataURL = try #require((echoed["files"] as? [String: Any])?["file"] as? String)
        #expect(Data(base64Encoded: String(dataURL.split(separator: ",").last ?? "")) == (try Data(contentsOf: source)))
    }

    /// Item 50: the form written to a file, then uploaded from it, is the form httpbin parses.
    @Test func formWrittenToAFileUploadsTheSameForm() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var form = MultipartFormData()
        form.append("value", name: "key")
        form.append(Data("Data".utf8), name: "DataName", fileName: "DataFileName", mimeType: "data")
        let s = session()
        let bodyFile = directory.appendingPathComponent("form.bin").path
        let head = try await form.writeBody(toFileAt: bodyFile, for: try s.makeRequest(.post, "post"))
        let response = try await s.uploadTask(with: head, from: .file(path: bodyFile)).response
        let echoed = try json(response)
        #expect((echoed["form"] as? [String: Any])?["key"] as? String == "value")
        #expect((echoed["files"] as? [String: Any])?["DataName"] as? String == "Data")
    }

    /// A 1 GiB file part streams with flat memory and arrives byte-exact (the sink hashes it).
    @Test func gigabyteFileUploadIsByteExactWithFlatMemory() async throws {
        let source = files.appendingPathComponent("1g.bin")
        var form = MultipartFormData()
        form.append("gigabyte", name: "name")
        try form.appendFile(at: source.path, name: "file", mimeType: "application/octet-stream")
        let s = session(Servers.sink) { $0.timeouts = Timeouts(request: .seconds(300)) }
        let before = residentBytes()
        let task = try s.upload(form, to: "gigabyte")
        var peak = before
        while task.state != .completed {
            peak = max(peak, residentBytes())
            try await Task.sleep(for: .milliseconds(50))
        }
        let echoed = try json(try await task.response)
        if boundsResidentMemory { #expect(peak - before < 64 << 20, "resident memory grew by \((peak - before) >> 20) MiB") }
        #expect(echoed["length"] as? Int == Int(form.contentLength))
        #expect(echoed["content_type"] as? String == form.contentType)
        #expect(echoed["sha256"] as? String == (try await formSHA256(form, source: source)))
    }

    // MARK: Helpers

    private func collectedForm(_ form: MultipartFormData) async throws -> Data {
        var unthrottled = form
        unthrottled.throttle = nil
        return try await unthrottled.makeBody().collect(upTo: 64 << 20)
    }

    /// SHA-256 of a form whose only large part is `source`: the bytes before and after it are
    /// written out and hashed around the file by `sha256sum`, so the test never holds 1 GiB.
    private func formSHA256(_ form: MultipartFormData, source: URL) async throws -> String {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = "--\(form.boundary)\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\ngigabyte\r\n"
            + "--\(form.boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"1g.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n"
        let head = directory.appendingPathComponent("head"), tail = directory.appendingPathComponent("tail")
        try Data(text.utf8).write(to: head)
        try Data("\r\n--\(form.boundary)--\r\n".utf8).write(to: tail)
        return try await shell("cat \"$1\" \"$2\" \"$3\" | sha256sum", arguments: [head.path, source.path, tail.path])
            .split(separator: " ").first.map(String.init) ?? ""
    }

    private func sha256(_ data: Data) async throws -> String {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("data")
        try data.write(to: file)
        return try await shell("sha256sum \"$1\"", arguments: [file.path]).split(separator: " ").first.map(String.init) ?? ""
    }

    private func shell(_ script: String, arguments: [String]) async throws -> String {
        String(decoding: try await runProcess("/bin/sh", ["-c", script, "sh"] + arguments).output, as: UTF8.self)
    }
}
