import CourierCore
import CourierMultipart
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

/// The Swift examples of docs/multipart.md, verbatim (Scripts/check-doc-examples.py checks that
/// each one appears here), run over a mock transport that echoes the request body.
@Suite struct DocExamplesTests {
    private let transport = MockTransport { request in MockResponse(status: .ok, body: .bytes(request.body ?? Data())) }
    private let session: Session

    init() {
        session = Session(configuration: SessionConfiguration(baseURL: URL(string: "http://127.0.0.1:18080")), transport: transport)
    }

    @Test func buildingAForm() async throws {
        let reportPath = try temporaryFile(Data("report".utf8), name: "report.pdf")
        let transport = self.transport
        var form = MultipartFormData()
        form.append("Ada Lovelace", name: "name")                        // a text field
        form.append(Data("{\"v\":1}".utf8), name: "meta", fileName: "meta.json", mimeType: "application/json")
        try form.appendFile(at: reportPath, name: "report")              // filename and type from the path
        let session = Session(configuration: SessionConfiguration(baseURL: URL(string: "http://127.0.0.1:18080")), transport: transport)
        let response = try await session.upload(form, to: "post").response
        let text = String(decoding: response.data, as: UTF8.self)
        #expect(text.contains("name=\"report\"; filename=\"report.pdf\"\r\nContent-Type: application/pdf\r\n\r\nreport"))
        #expect(response.data.count == Int(form.contentLength))
    }

    @Test func parametersAndTheSession() async throws {
        let task = try session.upload(to: "post", parameters: ["user": ["name": "Ada"], "tags": ["a", "b"]]) { form in
            form.append(Data("Data".utf8), name: "DataName", fileName: "DataFileName", mimeType: "data")
        }
        // parts: tags[] = a, tags[] = b, user[name] = Ada, DataName (file)
        let response = try await task.response
        let names = String(decoding: response.data, as: UTF8.self).split(separator: "form-data; name=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        #expect(names == ["tags[]", "tags[]", "user[name]", "DataName"])
    }

    @Test func theBytesOnTheWire() async throws {
        var fixed = try MultipartFormData(boundary: "Boundary+0123456789ABCDEF")
        fixed.append("value", name: "key")
        fixed.append(Data("Data".utf8), name: "DataName", fileName: "DataFileName", mimeType: "data")
        let bytes = try await fixed.makeBody().collect(upTo: 1024)
        // bytes.count == 244 == fixed.contentLength
        #expect(bytes.count == 244)
        #expect(fixed.contentLength == 244)
    }

    @Test func mimeTypes() {
        let png = MIMETypes.system.type(forPath: "/tmp/photo.PNG")          // "image/png"
        let cer = MIMETypes.builtIn.type(forExtension: "cer")              // "application/x-x509-ca-cert"
        let other = MIMETypes.system.type(forExtension: "no-such-ext")     // "application/octet-stream"
        #expect(png == "image/png")
        #expect(cer == "application/x-x509-ca-cert")
        #expect(other == "application/octet-stream")
    }

    @Test func throttling() {
        var slow = MultipartFormData()
        slow.append(Data(count: 100_000), name: "blob", fileName: "blob.bin", mimeType: "application/octet-stream")
        slow.throttle = .mobileNetwork                     // 16 KiB, then 0.2 s (AFNetworking's 3G suggestion)
        slow.throttle = Throttle(packetSize: 32_768, delay: .milliseconds(50))
        #expect(slow.throttle == Throttle(packetSize: 32_768, delay: .milliseconds(50)))
        #expect(slow.makeBody().segments == nil)
    }

    @Test func writingToAFile() async throws {
        var form = MultipartFormData()
        form.append("value", name: "key")
        let formPath = try temporaryFile(Data(), name: "form.bin")
        let head = try await form.writeBody(toFileAt: formPath, for: try session.makeRequest(.post, "post"))
        let uploaded = try await session.uploadTask(with: head, from: .file(path: formPath)).response
        #expect(uploaded.data == (try await form.makeBody().collect(upTo: 1024)))
        #expect(head.headerFields[.contentType] == form.contentType)
    }
}
