import CourierCore
import CourierMultipart
import FoundationEssentials
import Testing

@Suite struct ThrottleTests {
    /// Checklist item 47: AFNetworking's constants.
    @Test func suggestedValuesAreAFNetworkings() {
        #expect(Throttle.suggestedPacketSize == 16_384)
        #expect(Throttle.suggestedDelay == .milliseconds(200))
        #expect(Throttle.mobileNetwork == Throttle(packetSize: 16_384, delay: .milliseconds(200)))
        #expect(Throttle(packetSize: 0, delay: .zero).packetSize == 1)
    }

    /// Checklist item 47: no read larger than the packet, same bytes, pauses between packets.
    @Test func throttledBodyIsChunkedAndPausedButIdentical() async throws {
        let path = try temporaryFile(patternData(100_000))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var form = MultipartFormData()
        form.append("value", name: "key")
        try form.appendFile(at: path, name: "file")
        let plain = try await bytes(of: form.makeBody())

        form.throttle = Throttle(packetSize: 16_384, delay: .milliseconds(5))
        let body = form.makeBody()
        #expect(body.segments == nil)
        #expect(body.length == .known(form.contentLength))
        var received = Data()
        var packets = 0
        let clock = ContinuousClock()
        let started = clock.now
        for try await chunk in body {
            #expect(chunk.count <= 16_384)
            packets += 1
            received.append(contentsOf: chunk)
        }
        #expect(received == plain)
        #expect(packets >= 7)
        // Each pause is a sleep of at least the delay: a lower bound, never an upper one.
        #expect(clock.now - started >= .milliseconds(5) * (packets - 1))
    }

    /// A zero delay caps the packet size without a sleep per packet, and a cancelled read still stops.
    @Test func aZeroDelayOnlyCapsPackets() async throws {
        var form = MultipartFormData()
        form.append(patternData(10_000), name: "data")
        let plain = try await bytes(of: form.makeBody())
        form.throttle = Throttle(packetSize: 7, delay: .zero)
        var received = Data()
        for try await chunk in form.makeBody() {
            #expect(chunk.count <= 7)
            received.append(contentsOf: chunk)
        }
        #expect(received == plain)

        let body = form.makeBody()
        let reader = Task {
            var iterator = body.makeAsyncIterator()
            _ = try await iterator.next()
            withUnsafeCurrentTask { $0?.cancel() }
            while try await iterator.next() != nil {}
        }
        await #expect(throws: CancellationError.self) { try await reader.value }
    }
}
