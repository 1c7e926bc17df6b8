import CourierCore
@_spi(Testing) import CourierCurl
import Foundation
import HTTPTypes
import Testing

/// Bodies whose sizes change from one call to the next through one transport, which reserves room for each small body
/// on the caller's thread from the size of the one before (`WholeBodyReservation`): every body arrives byte-exact
/// whether it is smaller than the room reserved, larger, empty, or too large to be whole. httpbin's `/range/N` is the
/// oracle: N bytes of the alphabet, repeated.
@Suite("Body sizes in sequence")
struct BodySizeSequenceTests {
    /// Below, at and past the 512-byte granule and the 16 KiB bound, repeats, a body after a larger one and after a
    /// smaller one, and one past the response buffer of ``aSmallResponseBufferStreamsWhatItCannotHold()``.
    static let sizes = [600, 600, 5_000, 100, 20_000, 1, 16_384, 16_385, 600, 70_000, 512, 513, 600, 99_000, 3]

    static func expected(_ count: Int) -> Data {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz".utf8)
        return Data((0..<count).map { alphabet[$0 % alphabet.count] })
    }

    func fetch(_ count: Int, from session: Session) async throws {
        let response = try await session.get("range/\(count)").response
        #expect(response.status == .ok)
        #expect(response.data == Self.expected(count), "\(count) bytes: got \(response.data.count)")
    }

    @Test func bodiesOfChangingSizesArriveByteExactOneAfterAnother() async throws {
        let session = session(transport: try transport { _ in })
        for count in Self.sizes { try await fetch(count, from: session) }
        // Responses without a body between bodies: a HEAD request and a 204.
        for count in Self.sizes.reversed() {
            let head = try await session.head("range/\(count)").response
            #expect(head.data.isEmpty)
            let empty = try await session.get("status/204").response
            #expect(empty.status == .noContent && empty.data.isEmpty)
            try await fetch(count, from: session)
        }
    }

    @Test func bodiesOfChangingSizesArriveByteExactSideBySide() async throws {
        let session = session(transport: try transport { _ in })
        try await withThrowingTaskGroup(of: Void.self) { group in
            for round in 0..<6 {
                for (index, count) in Self.sizes.enumerated() {
                    // Each caller reads the reservation another caller's body just set.
                    group.addTask { try await fetch(Self.sizes[(index + round) % Self.sizes.count] + count % 7, from: session) }
                }
                try await group.waitForAll()
            }
        }
    }

    /// The guess itself, against nginx (`/json`: 600 bytes): a body that arrived whole sets it; the answer to a HEAD
    /// and a 204 leave it; a body past 16 KiB clears it. nginx may send a head and its body in two writes, and a
    /// head that comes a pass before its body streams the body (and clears the guess), so `/json` is fetched until
    /// one arrives whole: a transport that never reserved would never get there.
    @Test func aWholeBodySetsTheReservationAndOnlyABodyChangesIt() async throws {
        let client = try transport { _ in }
        let nginx = session(Servers.nginx, transport: client)
        #expect(client.wholeBodyReservation == 0, "a new transport reserves nothing")
        var fetches = 0
        repeat {
            fetches += 1
            let response = try await nginx.get("json").response
            #expect(response.data.count == 600)
        } while client.wholeBodyReservation != 1024 && fetches < 50
        #expect(client.wholeBodyReservation == 1024, "600 bytes rounded up to the 512-byte granule, after \(fetches) fetches")
        let head = try await nginx.head("json").response
        #expect(head.data.isEmpty)
        let empty = try await session(transport: client).get("status/204").response
        #expect(empty.status == .noContent)
        #expect(client.wholeBodyReservation == 1024, "a HEAD and a 204 carry no body to size the next by")
        let range = try await nginx.get("files/256m.bin", headers: [.range: "bytes=0-19999"]).response
        #expect(range.status == .partialContent && range.data.count == 20_000)
        #expect(client.wholeBodyReservation == 0, "past 16 KiB nothing is reserved")
        await client.shutdown()
    }

    @Test func aSmallResponseBufferStreamsWhatItCannotHold() async throws {
        let session = session(transport: try transport { $0.responseBufferSize = 4096 })
        for count in [3_000, 9_000, 3_000, 4_096, 4_097, 600, 50_000, 600] { try await fetch(count, from: session) }
    }
}
