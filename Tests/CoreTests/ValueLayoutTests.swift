@testable import CourierCore
import FoundationEssentials
import HTTPTypes
import Testing

/// The values a call holds across its suspension points keep their large parts by reference (the async frames that
/// hold them are allocated per call), and still behave as values: a copy changed is a copy apart.
@Suite("Values held by reference")
struct ValueLayoutTests {
    let request = HTTPRequest(method: .get, scheme: "http", authority: "example.com", path: "/a")

    @Test func anErrorIsOneReferenceAndAValue() {
        #expect(MemoryLayout<CourierError>.size == 8)
        let original = CourierError(stage: .transport, request: request, underlyingError: TransportError(.timedOut, message: "late"))
        var copy = original
        copy.stage = CourierError.Stage.redirect
        copy.response = HTTPResponse(status: .badGateway)
        copy.responseBody = Data("late".utf8)
        copy.underlyingError = CancellationError()
        #expect(original.stage == CourierError.Stage.transport && original.response == nil && original.responseBody == nil && original.isTimeout)
        #expect(copy.stage == CourierError.Stage.redirect && copy.response?.status == .badGateway && copy.responseBody == Data("late".utf8))
        #expect(copy.isCancellation && copy.request == request)
    }

    /// Wrapping fills in only what the error lacks, and keeps what it has (its resume data too).
    @Test func wrappingFillsInWhatIsMissingOnly() throws {
        var inner = CourierError(stage: .download, underlyingError: TransportError(.timedOut, message: "late"))
        let file = URL(fileURLWithPath: "/tmp/partial")
        inner.resumeData = ResumeData(request: request, partialFileURL: file, bytesWritten: 10, validator: "\"v\"")
        let wrapped = CourierError.wrapping(inner, stage: .transport, request: request, response: HTTPResponse(status: .ok))
        #expect(wrapped.stage == CourierError.Stage.download)
        #expect(wrapped.request == request && wrapped.response?.status == .ok)
        #expect(wrapped.resumeData?.bytesWritten == 10)
        #expect(inner.request == nil && inner.response == nil)
        let again = CourierError.wrapping(wrapped, stage: .transport, request: HTTPRequest(method: .post, scheme: "http", authority: "other", path: "/"))
        #expect(again.request == request)
    }

    @Test func responsesHoldTheirMetricsByReference() {
        #expect(MemoryLayout<Response>.size <= 64)
        #expect(MemoryLayout<DataResponse>.size <= 64)
        let metrics = TransferMetrics(total: .microseconds(900), bytesReceived: 600, httpVersion: "HTTP/1.1")
        var response = Response(head: HTTPResponse(status: .ok), metrics: metrics)
        let copy = response
        response.metrics?.bytesReceived = 1
        #expect(copy.metrics == metrics)
        #expect(response.metrics?.bytesReceived == 1)
        response.metrics = nil
        #expect(response.metrics == nil && copy.metrics == metrics)

        var data = DataResponse(request: request, head: HTTPResponse(status: .ok), data: Data(), metrics: metrics)
        let dataCopy = data
        data.metrics?.httpVersion = "HTTP/2"
        #expect(dataCopy.metrics?.httpVersion == "HTTP/1.1" && data.metrics?.httpVersion == "HTTP/2")
        #expect(DataResponse(request: request, head: HTTPResponse(status: .ok), data: Data()).metrics == nil)
    }

    /// A transport that reports its metrics to the task, as CourierCurl does, and answers with a whole body.
    struct MeasuringTransport: Transport {
        static let metrics = TransferMetrics(total: .microseconds(700), bytesReceived: 2, httpVersion: "HTTP/1.1")

        func send(_ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response {
            context.metricsCollected(Self.metrics)
            return Response(head: HTTPResponse(status: .ok), wholeBody: Data("hi".utf8), request: request)
        }
    }

    /// A data call's response reads the metrics its task was given, and a change to them is the response's own.
    @Test func aDataResponseReadsItsTasksMetrics() async throws {
        let session = Session(transport: MeasuringTransport())
        let task = session.dataTask(with: request)
        task.resume()
        var response = try await task.response
        #expect(response.metrics == MeasuringTransport.metrics && response.data == Data("hi".utf8))
        let copy = response
        response.metrics?.httpVersion = "HTTP/2"
        #expect(response.metrics?.httpVersion == "HTTP/2")
        #expect(copy.metrics == MeasuringTransport.metrics && task.task.metrics == MeasuringTransport.metrics)
        response.metrics = nil
        #expect(response.metrics == nil && task.task.metrics == MeasuringTransport.metrics)
    }

    /// Metrics and history share one reference: setting either keeps the other, and copies stay apart.
    @Test func metricsAndHistoryAreKeptTogetherAndApart() {
        let metrics = TransferMetrics(total: .microseconds(900), bytesReceived: 600, httpVersion: "HTTP/1.1")
        let hop = RedirectHop(request: request, response: HTTPResponse(status: .found))
        var response = Response(head: HTTPResponse(status: .ok), metrics: metrics)
        response.history = [hop]
        #expect(response.metrics == metrics && response.history.count == 1)
        let copy = response
        response.metrics = nil
        #expect(response.metrics == nil && response.history.count == 1)
        response.history = []
        #expect(response.history.isEmpty && response.metrics == nil)
        #expect(copy.metrics == metrics && copy.history.count == 1)
    }

    /// A body that came whole is bytes until asked for: a replayable body of them each time, the bytes themselves for
    /// a buffering call (checked against its bound), and a body set later replaces them.
    @Test func aWholeBodyIsBytesUntilAskedFor() async throws {
        let bytes = Data("{\"id\":1}".utf8)
        var response = Response(head: HTTPResponse(status: .ok), wholeBody: bytes, request: request)
        #expect(try response.bufferedBytes(upTo: 100) == bytes)
        #expect(throws: BodyError.tooLarge(limit: 3)) { try response.bufferedBytes(upTo: 3) }
        #expect(response.body.length == .known(Int64(bytes.count)) && response.body.iterationBehavior == .multiple)
        #expect(try await response.body.collect(upTo: 100) == bytes)
        #expect(try await response.body.collect(upTo: 100) == bytes)
        #expect(response.history.isEmpty && response.metrics == nil && response.request == request)

        response.body = Body(Data("other".utf8))
        #expect(try response.bufferedBytes(upTo: 100) == Data("other".utf8))
        response.body = Body(AsyncStream<ArraySlice<UInt8>> { $0.finish() }, length: .unknown, iterationBehavior: .single)
        #expect(try response.bufferedBytes(upTo: 100) == nil)
    }
}
