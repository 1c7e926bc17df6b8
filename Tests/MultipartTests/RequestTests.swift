import CourierCore
import CourierMultipart
import CourierRequestSerialization
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

@Suite struct RequestTests {
    private let post = HTTPRequest(method: .post, scheme: "http", authority: "mock.test", path: "/post")

    /// Checklist item 45: an empty form leaves the request as its serializer built it.
    @Test func emptyFormAddsNoMultipartHeaderAndNoBody() throws {
        let form = MultipartFormData()
        let serialized = try form.serialize(post)
        #expect(serialized.request.headerFields[.contentType] == nil)
        #expect(serialized.request.headerFields[.contentLength] == nil)
        #expect(serialized.body == nil)
    }

    /// Checklist item 46: GET and HEAD cannot carry a form, whatever their case.
    @Test func getAndHeadAreRefused() throws {
        var form = MultipartFormData()
        form.append("v", name: "k")
        for method in [HTTPRequest.Method.get, .head, HTTPRequest.Method("get")!] {
            var request = post
            request.method = method
            let error = #expect(throws: MultipartError.self) { try form.serialize(request) }
            #expect(error?.reason == .methodWithoutBody)
        }
        var put = post
        put.method = .put
        #expect(try form.serialize(put).body != nil)
    }

    /// The form's type replaces any other, as in AFNetworking.
    @Test func formContentTypeReplacesTheRequestsOwn() throws {
        var form = try MultipartFormData(boundary: fixedBoundary)
        form.append("v", name: "k")
        var request = post
        request.headerFields[.contentType] = "application/x-www-form-urlencoded"
        let serialized = try form.serialize(request)
        #expect(serialized.request.headerFields[.contentType] == "multipart/form-data; boundary=\(fixedBoundary)")
        #expect(serialized.request.headerFields[values: .contentType].count == 1)
    }

    /// Checklist item 50: the file holds the streamed bytes; the request keeps the headers only.
    @Test func writingTheBodyToAFileKeepsHeadersAndDropsTheBody() async throws {
        let source = try temporaryFile(patternData(300_000))
        defer { try? FileManager.default.removeItem(atPath: source) }
        var form = MultipartFormData()
        form.append("value", name: "key")
        try form.appendFile(at: source, name: "file")
        form.throttle = Throttle(packetSize: 1, delay: .seconds(60))  // ignored when writing a file

        let target = source + ".form"
        defer { try? FileManager.default.removeItem(atPath: target) }
        let head = try await form.writeBody(toFileAt: target, for: post)
        let written = try Data(contentsOf: URL(filePath: target))
        form.throttle = nil
        #expect(written == (try await bytes(of: form.makeBody())))
        #expect(head.headerFields[.contentType] == form.contentType)
        #expect(head.headerFields[.contentLength] == String(written.count))
    }

    @Test func writingToAnUnwritablePathIsAFileError() async throws {
        var form = MultipartFormData()
        form.append("v", name: "k")
        await #expect(throws: FileError.self) {
            _ = try await form.writeBody(toFileAt: "/nonexistent-courier/dir/form.bin", for: post)
        }
    }

    /// Checklist items 39 and 42 through a session: parameters first, sorted and unescaped,
    /// then the builder's parts; the serializer's default headers apply.
    @Test func sessionUploadSendsParametersThenParts() async throws {
        let transport = MockTransport(always: MockResponse(status: .ok))
        let configuration = SessionConfiguration(
            baseURL: URL(string: "http://mock.test/"),
            requestSerializer: HTTPRequestSerializer(defaultHeaderFields: [.userAgent: "Tests/1.0"])
        )
        let session = Session(configuration: configuration, transport: transport)
        let task = try session.upload(to: "post", parameters: ["user": ["name": "a b"], "n": nil, "key": "value"]) { form in
            form.append(Data("Data".utf8), name: "DataName", fileName: "DataFileName", mimeType: "data")
        }
        _ = try await task.response
        let sent = try #require(transport.requests.first)
        #expect(sent.head.headerFields[.userAgent] == "Tests/1.0")
        let contentType = try #require(sent.head.headerFields[.contentType])
        #expect(contentType.hasPrefix("multipart/form-data; boundary=Boundary+"))
        let boundary = String(contentType.dropFirst("multipart/form-data; boundary=".count))
        let text = String(decoding: try #require(sent.body), as: UTF8.self)
        let names = text.split(separator: "form-data; name=\"").dropFirst().map { $0.prefix { $0 != "\"" } }
        #expect(names == ["key", "n", "user[name]", "DataName"])
        #expect(text.contains("name=\"n\"\r\n\r\n\r\n--\(boundary)"))
        #expect(text.contains("name=\"user[name]\"\r\n\r\na b\r\n"))
        #expect(sent.head.headerFields[.contentLength] == String(text.utf8.count))
    }

    @Test func builderErrorsReachTheCallerAndNothingIsSent() throws {
        let transport = MockTransport(always: MockResponse(status: .ok))
        let session = Session(configuration: SessionConfiguration(baseURL: URL(string: "http://mock.test/")), transport: transport)
        let error = #expect(throws: CourierError.self) {
            _ = try session.upload(to: "post") { form in try form.appendFile(at: "/nonexistent-courier/f", name: "f") }
        }
        #expect(error?.stage == .requestSerialization)
        #expect((error?.underlyingError as? MultipartError)?.reason == .fileNotReachable)
        let getError = #expect(throws: CourierError.self) {
            _ = try session.upload(to: "get", method: .get) { form in form.append("v", name: "k") }
        }
        #expect((getError?.underlyingError as? MultipartError)?.reason == .methodWithoutBody)
        #expect(transport.requests.isEmpty)
    }
}

@Suite struct RetryTests {
    /// A retried upload re-sends the identical form, file part included.
    @Test func retrySendsTheIdenticalForm() async throws {
        let path = try temporaryFile(patternData(200_000))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let transport = MockTransport(sequence: [MockResponse(status: .serviceUnavailable), MockResponse(status: .ok)])
        var configuration = SessionConfiguration(baseURL: URL(string: "http://mock.test/"))
        configuration.retrier = RetryPolicy(retryLimit: 1, exponentialBackoffScale: 0, jitter: 0, retryableMethods: [.post])
        let session = Session(configuration: configuration, transport: transport)
        var form = MultipartFormData()
        form.append("value", name: "key")
        try form.appendFile(at: path, name: "file")
        let response = try await session.upload(form, to: "post").response
        #expect(response.status == .ok)
        let bodies = transport.requests.map(\.body)
        #expect(bodies.count == 2)
        #expect(bodies[0] != nil && bodies[0] == bodies[1])
        #expect(bodies[0]?.count == Int(form.contentLength))
    }

    /// A per-call option reaches an upload: a deadline ends a form sent to a server that never answers.
    @Test func uploadsTakeRequestOptions() async throws {
        let session = Session(
            configuration: SessionConfiguration(baseURL: URL(string: "http://mock.test")),
            transport: MockTransport(always: .text("late", delay: .seconds(300)))
        )
        var form = MultipartFormData()
        form.append("v", name: "k")
        let error = await #expect(throws: CourierError.self) {
            _ = try await session.upload(form, to: "post", options: RequestOptions(deadline: .milliseconds(200))).response
        }
        #expect(error?.kind == .timedOut)
        let built = await #expect(throws: CourierError.self) {
            _ = try await session.upload(to: "post", options: RequestOptions(deadline: .milliseconds(200))) { $0.append("v", name: "k") }.response
        }
        #expect(built?.kind == .timedOut)
    }
}
