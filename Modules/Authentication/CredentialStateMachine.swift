/// The single-flight rules of ``AuthenticationInterceptor`` as a pure value: which credential a call
/// uses, when a refresh starts, who waits for it, and what each waiter gets when it ends. The
/// interceptor performs the actions (starts the refresh, resumes waiters); this type touches no clock,
/// task or lock, so every interleaving can be unit-tested.
///
/// A credential carries a generation, bumped by every successful refresh and every
/// ``setCredential(_:)``. A call remembers the generation it was sent with, so a rejection of an
/// older generation is answered with the current credential instead of another refresh.
struct CredentialStateMachine<Credential: AuthenticationCredential, Waiter> {
    typealias Current = GenerationalCredential<Credential>

    /// What the caller must do now.
    enum Action {
        /// Send with this credential.
        case use(Current)
        /// Start refreshing this credential; the caller was added to the waiters and gets the outcome.
        case startRefresh(Current)
        /// A refresh is running; the caller was added to the waiters.
        case wait
        /// Fail the call.
        case fail(AuthenticationError)
    }

    private(set) var current: Current?
    private(set) var isRefreshing = false
    /// The calls waiting for the running refresh, in the order they came.
    private var waiters: [(id: Int, waiter: Waiter)] = []
    private var nextGeneration = 1
    /// When the refreshes counted by the window started, oldest first.
    private var refreshStarts: [Duration] = []
    let window: RefreshWindow

    init(credential: Credential?, window: RefreshWindow) {
        self.window = window
        if let credential { current = Current(credential: credential, generation: 0) }
    }

    /// The credential for a new call at time `now` (any monotonic reading: only differences count).
    /// `id` names the caller should it have to wait.
    mutating func credentialForCall(id: Int, waiter: Waiter, now: Duration) -> Action {
        if isRefreshing { return enqueue(id, waiter) }
        guard let current else { return .fail(AuthenticationError(.missingCredential)) }
        guard current.credential.requiresRefresh else { return .use(current) }
        return beginRefresh(of: current, id: id, waiter: waiter, now: now)
    }

    /// A call sent with generation `generation` was refused by the server.
    mutating func authenticationFailed(generation: Int, id: Int, waiter: Waiter, now: Duration) -> Action {
        if isRefreshing { return enqueue(id, waiter) }
        guard let current else { return .fail(AuthenticationError(.missingCredential)) }
        // Someone refreshed (or set a credential) since this call left: try the newer one first.
        guard current.generation == generation else { return .use(current) }
        return beginRefresh(of: current, id: id, waiter: waiter, now: now)
    }

    /// The refresh of generation `refreshed` produced `credential`. It becomes current, unless
    /// ``setCredential(_:)`` replaced that generation meanwhile (a sign-in or a sign-out is newer than
    /// any refresh). Every waiter gets what is current then, or fails when that is nothing.
    mutating func refreshSucceeded(_ credential: Credential, refreshed: Int) -> (Action, [Waiter]) {
        if current?.generation == refreshed {
            current = Current(credential: credential, generation: takeGeneration())
        }
        let outcome: Action = current.map { .use($0) } ?? .fail(AuthenticationError(.missingCredential))
        return (outcome, endRefresh())
    }

    /// The refresh threw: every waiter fails with ``AuthenticationError/Code/refreshFailed``; the
    /// credential stays, so a later call may try again (within the window).
    mutating func refreshFailed() -> [Waiter] {
        endRefresh()
    }

    /// Replaces the credential (a sign-in; `nil` signs out), as a new generation.
    mutating func setCredential(_ credential: Credential?) {
        current = credential.map { Current(credential: $0, generation: takeGeneration()) }
    }

    /// Takes the waiter `id` out (its call was cancelled); `nil` when it is not waiting.
    mutating func removeWaiter(id: Int) -> Waiter? {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return waiters.remove(at: index).waiter
    }

    private mutating func enqueue(_ id: Int, _ waiter: Waiter) -> Action {
        waiters.append((id, waiter))
        return .wait
    }

    private mutating func beginRefresh(of current: Current, id: Int, waiter: Waiter, now: Duration) -> Action {
        let interval = window.interval
        refreshStarts.removeAll { now - $0 >= interval }
        guard refreshStarts.count < window.maximumRefreshes else {
            return .fail(AuthenticationError(.excessiveRefresh))
        }
        refreshStarts.append(now)
        isRefreshing = true
        _ = enqueue(id, waiter)
        return .startRefresh(current)
    }

    private mutating func endRefresh() -> [Waiter] {
        isRefreshing = false
        defer { waiters = [] }
        return waiters.map(\.waiter)
    }

    private mutating func takeGeneration() -> Int {
        defer { nextGeneration += 1 }
        return nextGeneration
    }
}
extension CredentialStateMachine: Sendable where Waiter: Sendable {}

/// A credential and its generation: which refresh or sign-in made it.
struct GenerationalCredential<Credential: AuthenticationCredential>: Sendable {
    var credential: Credential
    var generation: Int
}
