import CourierCore
import FoundationEssentials
import HTTPTypes

/// A private HTTP cache (RFC 9111), in memory or in a directory, used through its ``interceptor``.
///
/// Fresh responses (`max-age`, `Expires`, or a tenth of the time since `Last-Modified`, at most a day) are
/// answered without a request; stale ones with a validator are revalidated (`If-None-Match`,
/// `If-Modified-Since`) and a `304` refreshes them; `no-store`, `no-cache`, `must-revalidate`, `max-stale`,
/// `min-fresh`, `only-if-cached`, `Vary` and `Age` are honoured; a successful `POST`, `PUT`, `PATCH` or
/// `DELETE` removes what is stored for its URL (and its `Location` and `Content-Location` on the same host).
///
/// ```swift
/// let cache = try HTTPCache(.disk(directory: "/var/cache/myapp/http", maximumBytes: 50 << 20))
/// var configuration = SessionConfiguration()
/// configuration.networkInterceptors.insert(cache.interceptor, at: 0)
/// ```
/// Only bodies of a known length up to ``maximumEntrySize`` are stored; a body without a `Content-Length`
/// (chunked, or decoded by the transport) passes through unstored.
public final class HTTPCache: Sendable {
    /// Where entries live.
    public enum Storage: Sendable {
        /// In this process's memory, at most `maximumBytes`.
        case memory(maximumBytes: Int)
        /// Files in `directory` (made with mode 0700 if missing), at most `maximumBytes`; safe to share between
        /// processes.
        case disk(directory: String, maximumBytes: Int)
    }

    /// What the cache has done since it was made.
    public struct Statistics: Sendable, Hashable {
        /// Requests answered from the cache without a request.
        public var hits = 0
        /// Stored responses validated with the origin and confirmed by a `304`.
        public var validated = 0
        /// Requests the cache could not answer (sent on as they were, or validated and replaced).
        public var misses = 0
        /// Responses stored.
        public var stores = 0
    }

    let store: any CacheStore
    /// The largest body stored.
    public let maximumEntrySize: Int
    let clock: @Sendable () -> Date
    // Locked, not Mutex: ThreadSanitizer sees its pthread mutex, and not Mutex's futex (see Core's `Locked`).
    private let counters = Locked(Statistics())

    /// A cache in `storage`, storing bodies up to `maximumEntrySize` bytes.
    ///
    /// - Throws: Core's ``CourierCore/FileError`` when a disk cache's directory cannot be created.
    public convenience init(_ storage: Storage = .memory(maximumBytes: 10 << 20), maximumEntrySize: Int = 1 << 20) throws(FileError) {
        try self.init(storage, maximumEntrySize: maximumEntrySize, clock: { Date() })
    }

    /// A cache reading time from `clock` (tests).
    init(_ storage: Storage, maximumEntrySize: Int, clock: @escaping @Sendable () -> Date) throws(FileError) {
        switch storage {
        case .memory(let maximumBytes): store = MemoryCacheStore(maximumBytes: maximumBytes)
        case .disk(let directory, let maximumBytes): store = try DiskCacheStore(directory: directory, maximumBytes: maximumBytes)
        }
        self.maximumEntrySize = maximumEntrySize
        self.clock = clock
    }

    /// The interceptor that answers from and fills this cache: put it first among the session's network
    /// interceptors, so every redirect hop is cached by its own rules and other network interceptors see only
    /// what reaches the network.
    public var interceptor: CacheInterceptor { CacheInterceptor(cache: self) }

    /// What the cache has done so far.
    public var statistics: Statistics { counters.withLock { $0 } }

    /// The bytes stored.
    public var size: Int { store.size }

    /// Forgets every stored response.
    public func removeAll() { store.removeAll() }

    func count(_ update: (inout Statistics) -> Void) {
        counters.withLock { update(&$0) }
    }
}
