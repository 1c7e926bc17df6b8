import CourierCore
import CourierMultipart
import FoundationEssentials
import HTTPTypes
import Testing

@Suite struct LayoutTests {
    /// Checklist item 41: AFNetworking's exact bytes for a field and a file part.
    @Test func fieldAndFilePartHaveAFNetworkingsExactBytes() async throws {
        var form = try MultipartFormData(boundary: fixedBoundary)
        form.append("value", name: "key")
        form.append(Data("Data".utf8), name: "DataName", fileName: "DataFileName", mimeType: "data")

        let expected = "--\(fixedBoundary)\r\nContent-Disposition: form-data; name=\"key\"\r\n\r\nvalue\r\n"
            + "--\(fixedBoundary)\r\nContent-Disposition: form-data; name=\"DataName\"; filename=\"DataFileName\"\r\n"
            + "Content-Type: data\r\n\r\nData\r\n--\(fixedBoundary)--\r\n"
        let body = try await bytes(of: form.makeBody())
        #expect(String(decoding: body, as: UTF8.self) == expected)
        #expect(body.count == 244)
        #expect(form.contentLength == 244)
        #expect(form.makeBody().length == .known(244))

        let serialized = try form.serialize(HTTPRequest(method: .post, scheme: "http", authority: "h", path: "/post"))
        #expect(serialized.request.headerFields[.contentLength] == "244")
        #expect(serialized.request.headerFields[.contentType] == "multipart/form-data; boundary=\(fixedBoundary)")
    }

    /// Checklist item 40: the boundary's shape, and a new one for every form.
    @Test func randomBoundaryIsBoundaryPlusSixteenUppercaseHexDigits() {
        var seen = Set<String>()
        for _ in 0..<200 {
            let form = MultipartFormData()
            let boundary = form.boundary
            #expect(boundary.hasPrefix("Boundary+"))
            let digits = boundary.dropFirst("Boundary+".count)
            #expect(digits.count == 16)
            #expect(digits.allSatisfy { ("0"..."9").contains($0) || ("A"..."F").contains($0) })
            #expect(form.contentType == "multipart/form-data; boundary=\(boundary)")
            seen.insert(boundary)
        }
        #expect(seen.count == 200)
    }

    /// Found by the multipart fuzz target (Tests/Fuzz/Corpus/multipart/regression-boundary-with-tspecials-unquoted):
    /// RFC 2046 boundaries may hold `'()+_,-./:=?` and spaces, which an RFC 2045 parameter must quote;
    /// unquoted, a parser reads `boundary=O(` as `O` or not at all.
    @Test func boundaryThatIsNotATokenIsQuoted() throws {
        #expect(try MultipartFormData(boundary: "O(").contentType == #"multipart/form-data; boundary="O(""#)
        #expect(try MultipartFormData(boundary: "simple boundary").contentType == #"multipart/form-data; boundary="simple boundary""#)
        #expect(try MultipartFormData(boundary: fixedBoundary).contentType == "multipart/form-data; boundary=\(fixedBoundary)")
        #expect(try MultipartFormData(boundary: "a-b_c.d'e+f").contentType == "multipart/form-data; boundary=a-b_c.d'e+f")
    }

    /// Found by the multipart fuzz target: NUL was dropped from names, so `a\0b` and `ab` were the same field.
    @Test func aNULInANameIsEscapedNotDropped() async throws {
        var form = try MultipartFormData(boundary: fixedBoundary)
        form.append("1", name: "a\0b")
        form.append(Data("2".utf8), name: "ab", fileName: "f\0.txt", mimeType: "text/plain")
        let text = String(decoding: try await bytes(of: form.makeBody()), as: UTF8.self)
        #expect(text.contains("name=\"a%00b\"\r\n"))
        #expect(text.contains("name=\"ab\"; filename=\"f%00.txt\"\r\n"))
        #expect(!text.utf8.contains(0))
    }

    /// Found by the multipart fuzz target: a boundary RFC 2046 does not allow (a quote, CR LF, a trailing space,
    /// more than 70 characters) made a body no parser can split; it is refused when the form is made.
    @Test func aBoundaryRFC2046DoesNotAllowIsRefused() throws {
        for boundary in ["", #"a"b\c"#, "a\r\nb", "ends in space ", String(repeating: "b", count: 71), "é", "a;b", "a\u{0}"] {
            let error = #expect(throws: MultipartError.self, "\(boundary.debugDescription)") { try MultipartFormData(boundary: boundary) }
            #expect(error?.reason == .invalidBoundary)
        }
        let longest = String(repeating: "b", count: 69) + "'"
        #expect(try MultipartFormData(boundary: longest).boundary == longest)
        #expect(try MultipartFormData(boundary: "0aZ'()+_,-./:=? x").boundary == "0aZ'()+_,-./:=? x")
    }

    /// Checklist item 44: a form-data part carries only its disposition.
    @Test func formDataPartHasOnlyADispositionHeader() async throws {
        var form = try MultipartFormData(boundary: fixedBoundary)
        form.append(Data([0, 1, 2]), name: "raw")
        let body = try await bytes(of: form.makeBody())
        var expected = Data("--\(fixedBoundary)\r\nContent-Disposition: form-data; name=\"raw\"\r\n\r\n".utf8)
        expected.append(contentsOf: [0, 1, 2])
        expected.append(Data("\r\n--\(fixedBoundary)--\r\n".utf8))
        #expect(body == expected)
    }

    @Test func customHeaderPartKeepsItsHeadersInOrder() async throws {
        var form = try MultipartFormData(boundary: fixedBoundary)
        var headers = HTTPFields()
        headers[HTTPField.Name("Content-Disposition")!] = "form-data; name=\"doc\""
        headers[HTTPField.Name("Content-Transfer-Encoding")!] = "binary"
        headers[.contentType] = "text/plain"
        form.append(headers: headers, body: Data("x".utf8))
        let text = String(decoding: try await bytes(of: form.makeBody()), as: UTF8.self)
        #expect(text == "--\(fixedBoundary)\r\nContent-Disposition: form-data; name=\"doc\"\r\nContent-Transfer-Encoding: binary\r\nContent-Type: text/plain\r\n\r\nx\r\n--\(fixedBoundary)--\r\n")
    }

    /// Names are escaped as browsers escape them, never injected raw.
    @Test func quotesAndLineBreaksInNamesAreEscaped() async throws {
        var form = try MultipartFormData(boundary: fixedBoundary)
        form.append(Data("v".utf8), name: "a\"b\r\nX-Injected: 1", fileName: "évil\".txt\n", mimeType: "text/plain")
        let text = String(decoding: try await bytes(of: form.makeBody()), as: UTF8.self)
        #expect(text.contains("name=\"a%22b%0D%0AX-Injected: 1\"; filename=\"évil%22.txt%0A\"\r\n"))
        #expect(!text.contains("\r\nX-Injected"))
    }

    /// The length is exact for every mix of parts, before a byte is read.
    @Test func contentLengthMatchesTheBytesForMixedParts() async throws {
        let path = try temporaryFile(patternData(70_001), name: "mixed.bin")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var form = MultipartFormData()
        form.append("ü", name: "unicode")
        try form.appendFile(at: path, name: "file")
        try form.append(Body(patternData(1234)), name: "stream", fileName: "s.bin", mimeType: "application/octet-stream")
        form.append(Data(), name: "empty")
        let body = try await bytes(of: form.makeBody())
        #expect(Int64(body.count) == form.contentLength)
        #expect(form.partCount == 4)
    }
}

@Suite struct HeaderInjectionTests {
    /// A MIME type holding CR LF (one Swift Character) cannot add a header or end the block.
    @Test func lineBreaksInATypeAreDropped() async throws {
        var form = try MultipartFormData(boundary: fixedBoundary)
        form.append(Data("v".utf8), name: "f", fileName: "f.txt", mimeType: "text/plain\r\nX-Evil: 1\r\n\r\n--\(fixedBoundary)\r\n")
        let text = String(decoding: try await bytes(of: form.makeBody()), as: UTF8.self)
        #expect(!text.contains("\r\nX-Evil"))
        // No delimiter at the start of a line but the form's own first one.
        #expect(!text.contains("\r\n--\(fixedBoundary)\r\n"))
        #expect(Int64(text.utf8.count) == form.contentLength)
    }

    @Test func negativeStreamLengthsAreRefused() {
        var form = MultipartFormData()
        let body = Body(AsyncStream<ArraySlice<UInt8>> { $0.finish() }, length: .known(-1), iterationBehavior: .single)
        #expect(throws: MultipartError.self) { try form.append(body, name: "s", fileName: "s", mimeType: "x/y") }
    }

    @Test func throttledBodiesAskTransportsForSmallReads() {
        var form = MultipartFormData()
        form.append("v", name: "k")
        form.throttle = .mobileNetwork
        #expect(form.makeBody().maximumReadSize == 16_384)
        form.throttle = nil
        #expect(form.makeBody().maximumReadSize == nil)
    }

    @Test func largeDataPartsAreNotMergedButSentWhole() async throws {
        let big = patternData(300_000)
        var form = try MultipartFormData(boundary: fixedBoundary)
        form.append(big, name: "big", fileName: "big.bin", mimeType: "application/octet-stream")
        let body = form.makeBody()
        #expect(body.segments?.count == 3)
        let received = try await bytes(of: body)
        #expect(Int64(received.count) == form.contentLength)
        #expect(Array(received).firstRange(of: Array(big)) != nil)
    }
}
