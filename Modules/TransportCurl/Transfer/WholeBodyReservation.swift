import Synchronization

/// How much room a transfer reserves, on its caller's thread, for a body that will arrive whole: as much as the loop's
/// last such body needed, rounded up.
///
/// Why on the caller's thread: a small body's buffer is handed to the caller, who frees it. Made on the curl thread,
/// every such buffer (the storage object and its bytes) was allocated on one thread and freed on another, which glibc's
/// allocator pays for on both sides (the curl thread's cache for those sizes stays empty; the callers' frees go back to
/// its arena under a lock), and the curl thread caps the rate of small requests. Reserved by the caller before the
/// request leaves, the buffer is allocated and freed on the callers' side, and libcurl's write callback only copies
/// into it. A server's answers to one kind of request are mostly of a size, so the last one is the guess.
///
/// Shared by a loop's transfers: written on the loop thread when a body arrives whole, read by callers as they make
/// transfers. A relaxed atomic: a stale guess costs at most a buffer that grows, as it would without one.
final class WholeBodyReservation: Sendable {
    /// Bodies larger than this are not reserved for: they come in several writes and grow their buffer anyway, and a
    /// caller should not hold a large buffer for a response that may be small.
    static let largest = 16 * 1024
    /// The reservation is rounded up to this, so that answers a few bytes longer than the last still fit.
    static let granule = 512

    private let bytes = Atomic<Int>(0)

    init() {}

    /// The capacity to reserve for the next body, at most `limit` (the transport's `responseBufferSize`, past which a
    /// body streams); 0 for none.
    func capacity(limit: Int) -> Int {
        min(bytes.load(ordering: .relaxed), limit)
    }

    /// A body of `count` bytes arrived whole: the next transfer reserves for one of its size. Loop thread.
    func arrivedWhole(count: Int) {
        record(Self.reservation(forBodyOf: count))
    }

    /// A body streamed (it outgrew the early buffer, or its head came before it): the next transfer reserves nothing.
    /// Loop thread.
    func streamed() {
        record(0)
    }

    /// The room to reserve after a body of `count` bytes: `count` rounded up to ``granule``, or 0 for an empty body or
    /// one larger than ``largest``.
    static func reservation(forBodyOf count: Int) -> Int {
        guard count > 0, count <= largest else { return 0 }
        return (count + granule - 1) / granule * granule
    }

    /// Whether a body of `count` bytes may be handed over in `reserved` bytes of room (0: none was reserved): unless
    /// it leaves a ``granule`` or more unused, as a body smaller than the last one may. Such a body is copied into a
    /// buffer of its size, so that the room a caller keeps with a body stays under a granule.
    static func fits(count: Int, reserved: Int) -> Bool {
        reserved - count < granule
    }

    /// Stores only a change: most bodies repeat the last size, and a store would take the line the callers read from
    /// their caches each time.
    private func record(_ reservation: Int) {
        if bytes.load(ordering: .relaxed) != reservation { bytes.store(reservation, ordering: .relaxed) }
    }
}
