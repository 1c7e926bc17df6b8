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
}
