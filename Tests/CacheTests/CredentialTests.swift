@testable import CourierCache
import FoundationEssentials
import HTTPTypes
import Testing

/// A stored response answers only requests with the credentials of the request it answered
/// (`CachePolicy.credentialFields`), which it keeps as SHA-256 digests.
@Suite struct CredentialTests {
    private let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    private func request(_ fields: [HTTPField.Name: String] = [:]) -> HTTPRequest {
        var request = HTTPRequest(method: .get, scheme: "https", authority: "api.test", path: "/me")
        for (name, value) in fields { request.headerFields[name] = value }
        return request
    }

    /// A fresh entry (max-age=60) stored in answer to `storedFor`, with the response's `Vary`.
    private func entry(storedFor: HTTPRequest, vary: String? = nil) -> CacheEntry {
        var response = HTTPResponse(status: .ok)
        response.headerFields[.cacheControl] = "max-age=60"
        if let vary { response.headerFields[.vary] = vary }
        return CacheEntry(
            key: "GET https://api.test/me", response: response, body: Data("alice's data".utf8),
            vary: CachePolicy.varyValues(of: response, request: storedFor), requestTime: t0, responseTime: t0
        )
    }

    private func answers(_ entry: CacheEntry, _ request: HTTPRequest) -> Bool {
        if case .useStored = CachePolicy.decide(request, stored: entry, now: t0 + 1) { return true }
        return false
    }

    @Test func aStoredResponseAnswersOnlyTheSameAuthorization() {
        let alice = request([.authorization: "Bearer alice"])
        let stored = entry(storedFor: alice)
        #expect(answers(stored, alice))
        #expect(!answers(stored, request([.authorization: "Bearer bob"])))
        #expect(!answers(stored, request()), "an anonymous request got alice's response")
        #expect(!answers(stored, request([.authorization: "Bearer alice", .cookie: "session=1"])))
        let anonymous = entry(storedFor: request())
        #expect(answers(anonymous, request()))
        #expect(!answers(anonymous, alice), "alice got the anonymous response for her own")
    }

    @Test func aStoredResponseAnswersOnlyTheSameCookie() {
        let stored = entry(storedFor: request([.cookie: "session=alice"]))
        #expect(answers(stored, request([.cookie: "session=alice"])))
        #expect(!answers(stored, request([.cookie: "session=bob"])))
        #expect(!answers(stored, request()))
    }

    /// An entry recorded without the credential fields (as before they were recorded) is taken as stored without
    /// credentials: it answers no request that has them.
    @Test func anEntryWithoutRecordedCredentialsAnswersNoCredentialedRequest() {
        var old = entry(storedFor: request())
        old.vary = [:]
        #expect(answers(old, request()))
        #expect(!answers(old, request([.authorization: "Bearer alice"])))
        #expect(!answers(old, request([.cookie: "a=1"])))
    }

    /// Credentials are kept as digests, also when the response names them in `Vary`; other `Vary` fields as they are.
    @Test func credentialsAreKeptAsDigests() {
        let stored = entry(storedFor: request([.authorization: "Bearer alice", .accept: "application/json"]), vary: "Authorization, Accept")
        // sha256("Bearer alice"), by Python's hashlib.
        #expect(stored.vary["authorization"] == "sha256:9d7cce461e4b2f090a3d686b4ae72d25ea18e93573d2772bb52ff548e6262aa3")
        #expect(stored.vary["cookie"] == .some(nil))
        #expect(stored.vary["accept"] == "application/json")
        #expect(!stored.vary.values.contains { $0?.contains("alice") == true })
    }

    /// FIPS 180-4's examples and messages around the padding's boundaries, against Python's `hashlib`.
    @Test func sha256MatchesKnownDigests() {
        #expect(SHA256Digest.hex([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256Digest.hex("abc".utf8) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256Digest.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256Digest.hex([UInt8](repeating: 0x61, count: 1_000_000)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        let expected = [
            55: "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b",
            56: "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27",
            63: "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055",
            64: "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241",
            65: "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e",
            119: "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e",
            120: "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5",
        ]
        for (length, digest) in expected {
            // Byte i is (7i + 3) mod 256.
            #expect(SHA256Digest.hex((0..<length).map { UInt8(($0 * 7 + 3) % 256) }) == digest, "\(length) bytes")
        }
    }
}
