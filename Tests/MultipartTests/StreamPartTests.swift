import CourierCore
import CourierMultipart
import FoundationEssentials
import Testing

/// Chunks from memory, for stream parts.
private struct Chunks: AsyncSequence, Sendable {
    let chunks: [[UInt8]]
    func makeAsyncIterator() -> AsyncStream<ArraySlice<UInt8>>.Iterator {
        AsyncStream { continuation in
            for chunk in chunks { continuation.yield(ArraySlice(chunk)) }
            continuation.finish()
        }.makeAsyncIterator()
    }
}

@Suite struct StreamPartTests {
    @Test func streamPartNeedsAKnownLength() {
        var form = MultipartFormData()
        let body = Body(Chunks(chunks: [[1, 2]]), length: .unknown, iterationBehavior: .multiple)
        let error = #expect(throws: MultipartError.self) {
            try form.append(body, name: "s", fileName: "s.bin", mimeType: "application/octet-stream")
        }
        #expect(error?.reason == .unknownLength)
    }

    @Test func streamPartIsSentInPlace() async throws {
        var form = try MultipartFormData(boundary: fixedBoundary)
        let body = Body(Chunks(chunks: [[0x61, 0x62], [0x63]]), length: .known(3), iterationBehavior: .multiple)
        try form.append(body, name: "s", fileName: "s.txt", mimeType: "text/plain")
        form.append("after", name: "tail")
        let text = String(decoding: try await bytes(of: form.makeBody()), as: UTF8.self)
        #expect(text == "--\(fixedBoundary)\r\nContent-Disposition: form-data; name=\"s\"; filename=\"s.txt\"\r\nContent-Type: text/plain\r\n\r\nabc\r\n--\(fixedBoundary)\r\nContent-Disposition: form-data; name=\"tail\"\r\n\r\nafter\r\n--\(fixedBoundary)--\r\n")
    }

    @Test func streamThatLiesAboutItsLengthFailsTheRead() async throws {
        for (announced, chunks) in [(Int64(5), [[UInt8(1), 2, 3]]), (Int64(2), [[UInt8(1), 2, 3]])] {
            var form = MultipartFormData()
            let body = Body(Chunks(chunks: chunks), length: .known(announced), iterationBehavior: .multiple)
            try form.append(body, name: "liar", fileName: "l", mimeType: "x/y")
            let error = await #expect(throws: MultipartError.self) { _ = try await bytes(of: form.makeBody()) }
            #expect(error?.reason == .lengthMismatch)
            #expect(error?.partName == "liar")
        }
    }

    @Test func singlePassStreamMakesTheFormSinglePass() throws {
        var form = MultipartFormData()
        let body = Body(Chunks(chunks: [[1]]), length: .known(1), iterationBehavior: .single)
        try form.append(body, name: "once", fileName: "o", mimeType: "x/y")
        #expect(form.makeBody().iterationBehavior == .single)
    }

    /// Checklist item 49: a second read (307 redirect, auth retry) gives identical bytes.
    @Test func formBodyReplaysIdentically() async throws {
        let path = try temporaryFile(patternData(50_000))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var form = MultipartFormData()
        form.append("v", name: "k")
        try form.appendFile(at: path, name: "f")
        let segmentBody = form.makeBody()
        #expect(segmentBody.segments != nil)
        #expect(segmentBody.iterationBehavior == .multiple)
        let first = try await bytes(of: segmentBody)
        #expect(try await bytes(of: segmentBody) == first)

        try form.append(Body(Chunks(chunks: [[9, 9]]), length: .known(2), iterationBehavior: .multiple), name: "s", fileName: "s", mimeType: "x/y")
        let streamBody = form.makeBody()
        #expect(streamBody.segments == nil)
        let again = try await bytes(of: streamBody)
        #expect(try await bytes(of: streamBody) == again)
        #expect(Int64(again.count) == form.contentLength)
    }
}
