import CourierCore
import CourierResponseSerialization
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

/// Comma-separated values: one array of fields per line.
struct CSVResponseSerializer: ResponseSerializer {
    var validator = ResponseValidator(acceptableContentTypes: ["text/csv"])

    func serialize(_ response: DataResponse) throws -> [[String]] {
        if let error = validator.validate(response).error { throw error }
        let text = try TextEncoding(charset: response.head.charset ?? "utf-8")?.decode(response.data)
            ?? TextEncoding.utf8.decode(response.data)
        return text.split(whereSeparator: \.isNewline).map { line in
            line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
    }
}

/// The Swift examples of docs/response-serialization.md (Scripts/lib/check-doc-examples.py
/// checks that each appears here), run over a mock transport with httpbin's answers.
@Suite struct ResponseDocExamplesTests {
    private let session = Session(
        configuration: SessionConfiguration(baseURL: URL(string: "http://127.0.0.1:18080")),
        transport: MockTransport(routes: [
            "/json": MockResponse(headerFields: [.contentType: "application/json"], body: .bytes(Data(#"{"slideshow":{"title":"Sample Slide Show"}}"#.utf8))),
            "/status/406": MockResponse(status: .init(code: 406), headerFields: [.contentType: "application/json"], body: .bytes(Data(#"{"message":"Client did not request a supported media type."}"#.utf8))),
            "/report.csv": MockResponse(headerFields: [.contentType: "text/csv; charset=utf-8"], body: .bytes(Data("a,b\n1,\n".utf8))),
        ])
    )

    @Test func serializers() async throws {
        let document = try await session.get("json").value(using: JSONResponseSerializer())
        let title = document?["slideshow"]?["title"]?.stringValue      // "Sample Slide Show"
        #expect(title == "Sample Slide Show")
    }

    @Test func validation() async throws {
        do {
            _ = try await session.get("status/406").value(using: JSONResponseSerializer())
        } catch {
            if let failure = error.underlyingError as? ResponseValidationError {
                print(failure)                                   // Request failed: unacceptable (406)
                let problem = failure.serializedValue as? JSONValue?
                print(problem??["message"]?.stringValue ?? "")   // httpbin's explanation
            }
        }
        // What the example prints, checked:
        let error = await #expect(throws: CourierError.self) { _ = try await session.get("status/406").value(using: JSONResponseSerializer()) }
        let failure = try #require(error?.underlyingError as? ResponseValidationError)
        #expect(failure.description == "Request failed: unacceptable (406)")
        #expect((failure.serializedValue as? JSONValue?)??["message"]?.stringValue == "Client did not request a supported media type.")
        // Without a cast (issue 13): the kind and the status.
        #expect(error?.kind == .unacceptableStatus)
        #expect(error?.unacceptableStatus == .notAcceptable)
    }

    @Test func customSerializer() async throws {
        let rows = try await session.get("report.csv").value(using: CSVResponseSerializer())
        #expect(rows == [["a", "b"], ["1", ""]])
    }
}
