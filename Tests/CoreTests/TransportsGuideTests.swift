import CourierCore
import CourierResponseSerialization
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

// The Swift examples of docs/guide-transports.md, verbatim (Scripts/lib/check-doc-examples.py checks that each
// one appears here), compiled and run. Nothing here reaches the network: the transport serves a temporary
// directory, and the serializers run over MockTransport.

// MARK: A transport

/// Serves a directory on disk the way a static web server would, for fixtures and offline tests:
/// `GET /a/b.csv` answers with the file `root/a/b.csv`, `HEAD` with its head alone, and `PUT`
/// stores the request body there. Only the request's path is read, percent escapes as written.
struct DirectoryTransport: Transport {
    /// The directory served.
    let root: URL
    /// The most bytes one chunk of a response body holds.
    var chunkSize = 64 * 1024
    /// The largest request body a `PUT` may store.
    var maximumUploadSize = 16 * 1024 * 1024

    func send(_ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response {
        switch request.method {
        case .get, .head, .put: break
        default: throw TransportError(.unsupported, message: "DirectoryTransport serves GET, HEAD and PUT, not \(request.method)")
        }
        try await context.control.waitUntilRunning()           // waits while suspended, throws once cancelled
        let deadline = ExchangeDeadline(context.timeouts.request)  // read once, as the exchange starts
        context.requestSent(request)
        guard let path = localPath(of: request) else {
            return answer(.forbidden, to: request, context: context)
        }
        if request.method == .put {
            try await store(body ?? .empty, at: path, context: context, deadline: deadline)
            return answer(.created, to: request, context: context)
        }
        guard let file = try? Body(contentsOfFileAt: path, chunkSize: chunkSize), case .known(let size) = file.length else {
            return answer(.notFound, to: request, context: context)  // missing, a directory, or unreadable
        }
        let head = HTTPResponse(status: .ok, headerFields: [.contentType: Self.contentType(of: path), .contentLength: "\(size)"])
        context.responseHeadReceived(head)
        let chunks = FileChunks(file: request.method == .head ? .empty : file, context: context, deadline: deadline)
        return Response(head: head, body: Body(chunks, length: chunks.file.length, iterationBehavior: .single), request: request)
    }
}

/// A file's bytes as a response body: no chunk moves while the task is suspended, reading stops
/// once it is cancelled or past its time limit, and progress, then metrics, are reported.
struct FileChunks: AsyncSequence, Sendable {
    /// The file, read lazily.
    let file: Body
    /// The exchange's task, to report to and to obey.
    let context: RequestContext
    /// The exchange's total time limit.
    let deadline: ExchangeDeadline

    func makeAsyncIterator() -> Iterator { Iterator(chunks: self, file: file.makeAsyncIterator()) }

    /// Reads one chunk of the file per call.
    struct Iterator: AsyncIteratorProtocol {
        let chunks: FileChunks
        var file: Body.Iterator
        var delivered: Int64 = 0
        var ended = false

        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard !ended else { return nil }
            let context = chunks.context
            try await context.control.waitUntilRunning()
            try chunks.deadline.check()
            guard let chunk = try await file.next() else {
                ended = true
                context.metricsCollected(TransferMetrics(total: chunks.deadline.elapsed, bytesReceived: delivered))
                return nil
            }
            delivered += Int64(chunk.count)
            let total: Int64? = if case .known(let count) = chunks.file.length { count } else { nil }
            context.downloadProgress(TransferProgress(completed: delivered, total: total))
            return chunk
        }
    }
}

/// The total time limit of one exchange (``Timeouts/request``), counted from its start.
struct ExchangeDeadline: Sendable {
    /// When the exchange started.
    let start = ContinuousClock.now
    /// The limit; `nil` for none.
    let limit: Duration?

    init(_ limit: Duration?) { self.limit = limit }

    /// The time since the exchange started.
    var elapsed: Duration { ContinuousClock.now - start }

    /// Throws ``TransportError/Code/timedOut`` once the limit has passed.
    func check() throws(TransportError) {
        if let limit, elapsed >= limit {
            throw TransportError(.timedOut, message: "the exchange took longer than its \(limit) limit")
        }
    }
}

extension DirectoryTransport {
    /// Reads the request body chunk by chunk, as a socket would send it, and writes it to `path`.
    func store(_ body: Body, at path: String, context: RequestContext, deadline: ExchangeDeadline) async throws {
        let total: Int64? = if case .known(let count) = body.length { count } else { nil }
        var bytes = Data()
        for try await chunk in body {
            try await context.control.waitUntilRunning()
            try deadline.check()
            guard bytes.count + chunk.count <= maximumUploadSize else {
                throw TransportError(.sendFailed, message: "the body is larger than DirectoryTransport's \(maximumUploadSize)-byte limit")
            }
            bytes.append(contentsOf: chunk)
            context.uploadProgress(TransferProgress(completed: Int64(bytes.count), total: total))
        }
        do {
            let file = URL(filePath: path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try bytes.write(to: file, options: .atomic)
        } catch {
            throw FileError(operation: .write, path: path, reason: "\(error)")
        }
    }

    /// The file a request's path names under ``root``, or `nil` when the path would climb out of it.
    func localPath(of request: HTTPRequest) -> String? {
        let segments = (request.path ?? "/").prefix { $0 != "?" }.split(separator: "/")
        guard !segments.contains("..") else { return nil }
        return segments.reduce(root) { $0.appending(path: String($1)) }.path(percentEncoded: false)
    }

    /// A response with a status and no body, as a server answers when it has nothing to send.
    func answer(_ status: HTTPResponse.Status, to request: HTTPRequest, context: RequestContext) -> Response {
        let head = HTTPResponse(status: status, headerFields: [.contentLength: "0"])
        context.responseHeadReceived(head)
        return Response(head: head, request: request)
    }

    /// The `Content-Type` of a file, by its extension.
    static func contentType(of path: String) -> String {
        switch path.split(separator: ".").last ?? "" {
        case "csv": "text/csv; charset=utf-8"
        case "json": "application/json"
        case "txt": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
    }
}

// MARK: Serializers

/// Something that is not the CSV this guide reads and writes. Its kind comes from the stage that
/// threw it: invalid request when serializing parameters, serialization failed when reading a body.
struct CSVError: Error, Sendable, CustomStringConvertible {
    /// What is wrong.
    let description: String
}

/// RFC 4180 text: fields separated by commas, quoted when they hold a comma, a quote or a line
/// break, records ending in CRLF.
enum CSV {
    /// One record, its line break included.
    static func record(_ fields: [String]) -> String {
        let escaped = fields.map { field -> String in
            guard field.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return field }
            return "\"" + field.replacing("\"", with: "\"\"") + "\""
        }
        return escaped.joined(separator: ",") + "\r\n"
    }
}

/// Writes an array of dictionaries as a CSV body: a header record of ``columns``, then one record
/// per dictionary with its values in the same order (a missing key is an empty field).
struct CSVRequestSerializer: RequestSerializer {
    /// The columns, in order.
    let columns: [String]

    func serialize(_ request: HTTPRequest, parameters: Parameters?) throws -> SerializedRequest {
        guard let parameters else { return SerializedRequest(request: request, body: nil) }
        guard case .array(let rows) = parameters else {
            throw CSVError(description: "CSV parameters are an array of dictionaries, one per record")
        }
        var text = CSV.record(columns)
        for row in rows {
            guard case .dictionary(let values) = row else {
                throw CSVError(description: "a CSV record is a dictionary from column to value")
            }
            text += CSV.record(try columns.map { try Self.field(values[$0] ?? .null) })
        }
        var request = request
        if request.headerFields[.contentType] == nil {
            request.headerFields[.contentType] = "text/csv; charset=utf-8"
        }
        return SerializedRequest(request: request, body: Body(text))
    }

    /// A scalar as a field; lists and dictionaries have no place in CSV.
    static func field(_ value: Parameters) throws -> String {
        switch value {
        case .null: return ""
        case .bool(let value): return "\(value)"
        case .int(let value): return "\(value)"
        case .double(let value): return "\(value)"
        case .string(let value): return value
        default: throw CSVError(description: "a CSV field is a string, a number or a boolean")
        }
    }
}

extension CSV {
    /// The records of `text`; a line break inside quotes belongs to the field.
    static func records(in text: String) throws(CSVError) -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var field = ""
        var quoted = false
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            index = text.index(after: index)
            if quoted {
                if character != "\"" {
                    field.append(character)
                } else if index < text.endIndex, text[index] == "\"" {
                    field.append("\"")               // a doubled quote is one quote
                    index = text.index(after: index)
                } else {
                    quoted = false
                }
            } else if character == "\"" {
                quoted = true
            } else if character == "," {
                record.append(field)
                field = ""
            } else if character == "\n" || character == "\r\n" {  // "\r\n" is one Character
                records.append(record + [field])
                record = []
                field = ""
            } else {
                field.append(character)
            }
        }
        guard !quoted else { throw CSVError(description: "a quoted field is never closed") }
        if !record.isEmpty || !field.isEmpty { records.append(record + [field]) }
        return records
    }
}

/// Reads a `text/csv` response as records of fields, after the checks every Courier serializer
/// makes (a 2xx status, the content type, the size bound, the charset), done by the
/// `StringResponseSerializer` it wraps.
struct CSVRecordsSerializer: ResponseSerializer {
    /// Validates the response and decodes its text.
    var text = StringResponseSerializer(validator: ResponseValidator(acceptableContentTypes: ["text/csv"]))

    func serialize(_ response: DataResponse) throws -> [[String]] {
        try CSV.records(in: try text.serialize(response))
    }
}

// MARK: Tests

@Suite struct TransportsGuideTests {
    /// A fresh directory holding `greeting.txt`.
    private func makeFixtures() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appending(path: "courier-guide-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("hello, disk".utf8).write(to: directory.appending(path: "greeting.txt"))
        return directory
    }

    @Test func pluggingTheTransportIntoASession() async throws {
        let directory = try makeFixtures()
        defer { try? FileManager.default.removeItem(at: directory) }

        let fixtures = Session(
            configuration: SessionConfiguration(baseURL: URL(string: "http://fixtures.local")),
            transport: DirectoryTransport(root: directory)
        )
        let greeting = try await fixtures.data(.get, "greeting.txt")   // <directory>/greeting.txt
        print(greeting.status, greeting.text)                          // 200 OK hello, disk

        #expect(greeting.status == .ok)
        #expect(greeting.text == "hello, disk")
        #expect(greeting.head.headerFields[.contentType] == "text/plain; charset=utf-8")
        #expect(greeting.metrics?.bytesReceived == 11)

        let head = try await fixtures.data(.head, "greeting.txt")
        #expect(head.head.headerFields[.contentLength] == "11")
        #expect(head.data.isEmpty)
        #expect(try await fixtures.data(.get, "missing.txt").status == .notFound)

        // A request you build yourself may have any scheme: the session's URL building takes http and https only.
        let local = try await fixtures.data(for: HTTPRequest(method: .get, scheme: "file", authority: nil, path: "/greeting.txt"))
        #expect(local.text == "hello, disk")

        let refused = await #expect(throws: CourierError.self) { try await fixtures.data(.delete, "greeting.txt") }
        #expect(refused?.stage == .transport)
        #expect((refused?.underlyingError as? TransportError)?.code == .unsupported)
    }

    @Test func serializersPluggedIntoASession() async throws {
        let directory = try makeFixtures()
        defer { try? FileManager.default.removeItem(at: directory) }

        var configuration = SessionConfiguration(baseURL: URL(string: "http://fixtures.local"))
        configuration.requestSerializer = CSVRequestSerializer(columns: ["name", "score"])
        let scores = Session(configuration: configuration, transport: DirectoryTransport(root: directory))

        let stored = try await scores.data(.put, "scores.csv", parameters: [
            ["name": "Ada", "score": 3],
            ["name": "Hopper, Grace", "score": 5],
        ])
        let records = try await scores.value(.get, "scores.csv", using: CSVRecordsSerializer())
        // [["name", "score"], ["Ada", "3"], ["Hopper, Grace", "5"]]

        #expect(stored.status == .created)
        #expect(records == [["name", "score"], ["Ada", "3"], ["Hopper, Grace", "5"]])
        let onDisk = try Data(contentsOf: directory.appending(path: "scores.csv"))
        #expect(String(decoding: onDisk, as: UTF8.self) == "name,score\r\nAda,3\r\n\"Hopper, Grace\",5\r\n")

        // Parameters the serializer refuses: nothing is sent, and the kind comes from the stage.
        let refused = await #expect(throws: CourierError.self) {
            try await scores.data(.put, "bad.csv", parameters: ["name": "not a list"])
        }
        #expect(refused?.kind == .invalidRequest)
        #expect(refused?.underlyingError is CSVError)
        #expect(!FileManager.default.fileExists(atPath: directory.appending(path: "bad.csv").path(percentEncoded: false)))
    }

    @Test func theTransportAlone() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("hello, disk".utf8).write(to: directory.appending(path: "greeting.txt"))

        let request = HTTPRequest(method: .get, scheme: "http", authority: "fixtures.local", path: "/greeting.txt")
        let recorder = RecordingEventListener()
        let context = RequestContext(request: request, listener: recorder)
        let response = try await DirectoryTransport(root: directory).send(request, body: nil, context: context)

        #expect(response.status == .ok)
        #expect(try await response.body.collect(upTo: 1024) == Data("hello, disk".utf8))
        #expect(recorder.names(excluding: [.downloadProgress]) == ["requestSent", "responseHeadReceived", "metricsCollected"])
        #expect(context.task.downloadProgress == TransferProgress(completed: 11, total: 11))

        // The rest of this test is not in the guide: the statuses a server would give, and a PUT.
        let escape = HTTPRequest(method: .get, scheme: "http", authority: "fixtures.local", path: "/../greeting.txt")
        let forbidden = try await DirectoryTransport(root: directory).send(escape, body: nil, context: RequestContext(request: escape))
        #expect(forbidden.status == .forbidden)

        let put = HTTPRequest(method: .put, scheme: "http", authority: "fixtures.local", path: "/notes/today.txt?draft=1")
        let putContext = RequestContext(request: put, kind: .upload)
        let created = try await DirectoryTransport(root: directory).send(put, body: Body("written"), context: putContext)
        #expect(created.status == .created)
        #expect(putContext.task.uploadProgress == TransferProgress(completed: 7, total: 7))
        #expect(try Data(contentsOf: directory.appending(path: "notes/today.txt")) == Data("written".utf8))

        let small = DirectoryTransport(root: directory, maximumUploadSize: 4)
        let tooLarge = await #expect(throws: TransportError.self) {
            try await small.send(put, body: Body("written"), context: RequestContext(request: put, kind: .upload))
        }
        #expect(tooLarge?.code == .sendFailed)
    }

    @Test func suspendedThenCancelled() async throws {
        let directory = try makeFixtures()
        defer { try? FileManager.default.removeItem(at: directory) }
        let request = HTTPRequest(method: .get, scheme: "http", authority: "fixtures.local", path: "/greeting.txt")

        let context = RequestContext(request: request)
        let response = try await DirectoryTransport(root: directory, chunkSize: 4).send(request, body: nil, context: context)
                context.task.suspend()                                 // no chunk may move now
        let reading = Task { try await response.body.collect(upTo: 1024) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(context.task.downloadProgress.completed == 0)
        context.task.cancel()                                  // and the read ends, suspended or not
        await #expect(throws: CancellationError.self) { try await reading.value }
    }

    @Test func suspendedThenResumed() async throws {
        let directory = try makeFixtures()
        defer { try? FileManager.default.removeItem(at: directory) }
        let request = HTTPRequest(method: .get, scheme: "http", authority: "fixtures.local", path: "/greeting.txt")

        let context = RequestContext(request: request)
        let response = try await DirectoryTransport(root: directory, chunkSize: 4).send(request, body: nil, context: context)
        context.task.suspend()
        let reading = Task { try await response.body.collect(upTo: 1024) }
        try await Task.sleep(for: .milliseconds(50))
        #expect(context.task.downloadProgress.completed == 0)
        context.task.resume()
        #expect(try await reading.value == Data("hello, disk".utf8))
        #expect(context.task.downloadProgress.completed == 11)
    }

    @Test func swiftTaskCancellationEndsTheRead() async throws {
        let directory = try makeFixtures()
        defer { try? FileManager.default.removeItem(at: directory) }
        let request = HTTPRequest(method: .get, scheme: "http", authority: "fixtures.local", path: "/greeting.txt")

        let context = RequestContext(request: request)
        let response = try await DirectoryTransport(root: directory, chunkSize: 4).send(request, body: nil, context: context)
        context.task.suspend()
        let reading = Task { try await response.body.collect(upTo: 1024) }
        reading.cancel()
        await #expect(throws: CancellationError.self) { try await reading.value }
        #expect(context.task.downloadProgress.completed == 0)
    }

    @Test func pastItsTimeLimit() async throws {
        let directory = try makeFixtures()
        defer { try? FileManager.default.removeItem(at: directory) }
        let request = HTTPRequest(method: .get, scheme: "http", authority: "fixtures.local", path: "/greeting.txt")

        let hurried = RequestContext(request: request, timeouts: Timeouts(request: .zero))
        let late = try await DirectoryTransport(root: directory).send(request, body: nil, context: hurried)
        let error = await #expect(throws: TransportError.self) { try await late.body.collect(upTo: 1024) }
        #expect(error?.code == .timedOut)
    }

    @Test func theRequestSerializerOverMockTransport() async throws {
        let transport = MockTransport(always: .status(.created))
        let session = Session(
            configuration: SessionConfiguration(
                baseURL: URL(string: "https://api.example.com"),
                requestSerializer: CSVRequestSerializer(columns: ["name", "score"])
            ),
            transport: transport
        )
        _ = try await session.data(.post, "scores", parameters: [["name": "Ada", "score": 3], ["name": "Lin"]])
        #expect(transport.requests[0].text == "name,score\r\nAda,3\r\nLin,\r\n")
        #expect(transport.requests[0].head.headerFields[.contentType] == "text/csv; charset=utf-8")

        // Not in the guide: a content type the caller chose stays, and nil parameters send no body.
        _ = try await session.data(.post, "scores", parameters: [], headers: [.contentType: "text/csv; header=present"])
        #expect(transport.requests[1].head.headerFields[.contentType] == "text/csv; header=present")
        #expect(transport.requests[1].text == "name,score\r\n")
        _ = try await session.data(.post, "scores")
        #expect(transport.requests[2].body == nil)
        let nested = await #expect(throws: CourierError.self) {
            try await session.data(.post, "scores", parameters: [["name": ["first": "Ada"]]])
        }
        #expect(nested?.stage == .requestSerialization)
        #expect(transport.requests.count == 3)
    }

    @Test func theResponseSerializerOverMockTransport() async throws {
        let csv = MockResponse(headerFields: [.contentType: "text/csv"], body: .bytes(Data("name,score\r\n\"Lovelace, Ada\",3\r\n".utf8)))
        let broken = MockResponse(headerFields: [.contentType: "text/csv"], body: .bytes(Data("\"never closed".utf8)))
        let session = Session(
            configuration: SessionConfiguration(baseURL: URL(string: "https://api.example.com")),
            transport: MockTransport(routes: ["/scores": csv, "/broken": broken])
        )
        #expect(try await session.value(.get, "scores", using: CSVRecordsSerializer()) == [["name", "score"], ["Lovelace, Ada", "3"]])
        let missing = await #expect(throws: CourierError.self) { try await session.value(.get, "nowhere", using: CSVRecordsSerializer()) }
        #expect(missing?.kind == .unacceptableStatus)
        let malformed = await #expect(throws: CourierError.self) { try await session.value(.get, "broken", using: CSVRecordsSerializer()) }
        #expect(malformed?.kind == .serializationFailed)

        // Not in the guide: the wrong content type, and the session's default serializer.
        let jsonAPI = Session(configuration: SessionConfiguration(baseURL: URL(string: "https://api.example.com")), transport: MockTransport(always: .json("[]")))
        let json = await #expect(throws: CourierError.self) { try await jsonAPI.value(.get, "scores", using: CSVRecordsSerializer()) }
        #expect(json?.kind == .unacceptableContentType)
        let byDefault = Session(
            configuration: SessionConfiguration(baseURL: URL(string: "https://api.example.com"), responseSerializer: CSVRecordsSerializer()),
            transport: MockTransport(always: csv)
        )
        #expect(try await byDefault.get("scores").value() as? [[String]] == [["name", "score"], ["Lovelace, Ada", "3"]])
    }

    @Test func csvRoundTrips() throws {
        let fields = ["plain", "with, comma", "with \"quotes\"", "two\nlines", ""]
        #expect(try CSV.records(in: CSV.record(fields) + CSV.record(["x"])) == [fields, ["x"]])
        #expect(try CSV.records(in: "a,b\nc,d") == [["a", "b"], ["c", "d"]])
        #expect(try CSV.records(in: "") == [])
    }
}
