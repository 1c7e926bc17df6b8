@testable import CourierCache
import CourierCore
import Foundation
import HTTPTypes

/// The cache's readers of server bytes (`CacheControl`, the freshness and age rules of `CachePolicy`, the disk
/// store's file format): any `Cache-Control`, `Date`, `Expires`, `Last-Modified` and `Age` a server sends gives a
/// lifetime and an age within bounds and a decision that keeps the RFC's promises (no stored answer for a
/// `no-store` request, a validation only with a validator); any file in a cache directory reads as an entry or as
/// nothing, and an entry survives its own file format.
enum CacheFuzz: FuzzTarget {
    static let name = "cache"
    private static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func run(_ input: FuzzInput) {
        let names = ["Cache-Control", "Date", "Expires", "Last-Modified", "Age", "ETag", "Vary", "Pragma"]
        var fields: [CacheEntry.Field] = []
        for _ in 0..<input.int(in: 0...8) {
            let value = input.string(upTo: 48).filter { $0 != "\r" && $0 != "\n" }
            fields.append(.init(name: names[input.int(in: 0...(names.count - 1))], value: value))
        }
        let requestControl = input.string(upTo: 40).filter { $0 != "\r" && $0 != "\n" }
        let elapsed = TimeInterval(input.int(in: 0...100_000))
        let entry = CacheEntry(
            key: "GET https://a.test/", status: [200, 301, 404, 302][input.int(in: 0...3)], reasonPhrase: "", fields: fields,
            body: Data(input.bytes(upTo: 64)), vary: [:], requestTime: now, responseTime: now
        )
        let lifetime = CachePolicy.freshnessLifetime(of: entry)
        precondition(lifetime >= 0 && lifetime.isFinite, "lifetime \(lifetime) from \(fields)")
        let age = CachePolicy.age(of: entry, now: now + elapsed)
        precondition(age >= elapsed && age.isFinite, "age \(age) after \(elapsed) s from \(fields)")

        var request = HTTPRequest(method: .get, scheme: "https", authority: "a.test", path: "/")
        if !requestControl.isEmpty { request.headerFields[.cacheControl] = requestControl }
        let control = CacheControl(request.headerFields[values: .cacheControl])
        switch CachePolicy.decide(request, stored: entry, now: now + elapsed) {
        case .useStored:
            precondition(!control.noStore && !control.noCache, "a stored answer to \(requestControl)")
        case .validate(_, let conditions):
            precondition(!conditions.isEmpty && (entry.value("ETag") != nil || entry.value("Last-Modified") != nil), "validation without a validator")
        case .network, .unsatisfiable:
            break
        }

        // The disk format: an entry reads back as itself; arbitrary bytes read as an entry or nothing.
        // One directory per process: two fuzzers of this target at once (a long run beside the test suite's
        // bounded one) sharing a directory read each other's entries under the same key, and the round trip
        // below failed for a reason that was not the store's.
        let directory = FileManager.default.temporaryDirectory.path + "/courier-fuzz-cache-\(ProcessInfo.processInfo.processIdentifier)"
        if let store = try? DiskCacheStore(directory: directory, maximumBytes: 1 << 20) {
            store.store(entry)
            if let read = store.entry(for: entry.key) {
                precondition(read == entry, "the disk store changed \(entry) into \(read)")
            }
            store.remove(entry.key)
        }
        _ = DiskCacheStore.decode(Data(input.rest()))
    }
}
