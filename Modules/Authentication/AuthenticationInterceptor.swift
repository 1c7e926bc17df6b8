import CourierCore
import HTTPTypes

/// Authenticates every call with a credential that expires, refreshing it once for everyone
/// (Alamofire's `AuthenticationInterceptor`).
///
/// Before a call, a credential that ``AuthenticationCredential/requiresRefresh`` is refreshed; when
/// the server refuses a call (``Authenticator/didRequest(_:failWithAuthenticationError:)``, a `401`
/// by default) the credential it carried is refreshed and the call is sent once more. While a refresh
/// runs, every other call waits for it: a hundred calls that meet an expired token cause one refresh.
/// A refusal of a credential that has been replaced since the call left is answered with the newer one,
/// not another refresh. A failed refresh fails the calls that waited for it with
/// ``AuthenticationError/Code/refreshFailed``; more refreshes than the ``RefreshWindow`` allows fail with
/// ``AuthenticationError/Code/excessiveRefresh``. A call whose body can be read only once is not sent
/// again: it gets the refusal.
///
/// Add it to the application interceptors, so it runs once per call around retries and redirects
/// (the redirect stage drops `Authorization` on a hop to another origin):
///
/// ```swift
/// let auth = AuthenticationInterceptor(authenticator: OAuthAuthenticator(tokens: tokens), credential: saved)
/// configuration.interceptors = [auth]
/// let me = try await Session(configuration: configuration, transport: transport).get("me", as: User.self)
/// auth.setCredential(nil)   // sign out: later calls fail with .missingCredential
/// ```
public final class AuthenticationInterceptor<Authenticating: Authenticator>: Interceptor {
    /// The credential type.
    public typealias Credential = Authenticating.Credential
    private typealias Waiter = CheckedContinuation<GenerationalCredential<Credential>, any Error>
    private typealias Machine = CredentialStateMachine<Credential, Waiter>

    private struct State: Sendable {
        var machine: Machine
        var nextCallID = 0
    }

    /// Applies and refreshes the credential.
    public let authenticator: Authenticating
    private let state: Locked<State>
    private let origin = ContinuousClock.now
    /// Bytes of a refused response's body read so its connection can be reused.
    private static var drainLimit: Int { 64 * 1024 }

    /// An interceptor for `authenticator`, starting with `credential` (none: calls fail with
    /// ``AuthenticationError/Code/missingCredential`` until ``setCredential(_:)``).
    public init(authenticator: Authenticating, credential: Credential? = nil, refreshWindow: RefreshWindow = RefreshWindow()) {
        self.authenticator = authenticator
        state = Locked(State(machine: Machine(credential: credential, window: refreshWindow)))
    }

    /// The credential calls use now: the one given, or the latest refresh's.
    public var credential: Credential? {
        state.withLock { $0.machine.current?.credential }
    }

    /// Replaces the credential (a sign-in), or removes it with `nil` (a sign-out). It wins over a
    /// refresh still running: calls waiting for that refresh get this credential.
    public func setCredential(_ credential: Credential?) {
        state.withLock { $0.machine.setCredential(credential) }
    }

    /// Sends `request` with the current credential, refreshing it first when it requires it, and once
    /// more with a fresh one when the server refuses it.
    public func intercept(
        _ request: HTTPRequest,
        body: Body?,
        context: RequestContext,
        next: InterceptorNext
    ) async throws -> Response {
        let first = try await obtainCredential { machine, id, waiter, now in machine.credentialForCall(id: id, waiter: waiter, now: now) }
        let response = try await send(request, body: body, with: first, context: context, next: next)
        guard authenticator.didRequest(request, failWithAuthenticationError: response.head),
              body?.iterationBehavior != .single else { return response }
        await response.body.drain(upTo: Self.drainLimit)
        let second = try await obtainCredential { machine, id, waiter, now in
            machine.authenticationFailed(generation: first.generation, id: id, waiter: waiter, now: now)
        }
        return try await send(request, body: body, with: second, context: context, next: next)
    }

    private func send(
        _ request: HTTPRequest, body: Body?, with current: Machine.Current, context: RequestContext, next: InterceptorNext
    ) async throws -> Response {
        var authenticated = request
        authenticator.apply(current.credential, to: &authenticated)
        return try await next(authenticated, body: body, context: context)
    }

    /// Asks the state machine through `decide`, and performs its answer: the credential at once,
    /// a failure, or a wait for a refresh (started here when the machine says so). A cancelled
    /// caller stops waiting; the refresh goes on for the others.
    private func obtainCredential(
        _ decide: @escaping @Sendable (inout Machine, Int, Waiter, Duration) -> Machine.Action
    ) async throws -> Machine.Current {
        let id = state.withLock { state -> Int in
            state.nextCallID += 1
            return state.nextCallID
        }
        // Take the lock once more after waking: the continuation hands the credential over inside the
        // uninstrumented concurrency runtime, where ThreadSanitizer cannot see the order the lock gives it.
        defer { state.withLock { _ in } }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                let now = origin.duration(to: .now)
                let action = state.withLock { decide(&$0.machine, id, waiter, now) }
                switch action {
                case .use(let current): waiter.resume(returning: current)
                case .fail(let error): waiter.resume(throwing: error)
                case .startRefresh(let current): refresh(current)
                case .wait: break
                }
                // Cancelled before it was waiting, so the handler below found nothing to take out.
                if Task.isCancelled { stopWaiting(id) }
            }
        } onCancel: {
            stopWaiting(id)
        }
    }

    private func stopWaiting(_ id: Int) {
        state.withLock { $0.machine.removeWaiter(id: id) }?.resume(throwing: CancellationError())
    }

    /// Runs the refresh in a task of its own, so no waiting caller's cancellation ends it for the others.
    private func refresh(_ current: Machine.Current) {
        Task { [authenticator] in
            do {
                let fresh = try await authenticator.refresh(current.credential)
                let (outcome, waiters) = state.withLock { $0.machine.refreshSucceeded(fresh, refreshed: current.generation) }
                for waiter in waiters {
                    switch outcome {
                    case .use(let current): waiter.resume(returning: current)
                    case .fail(let error): waiter.resume(throwing: error)
                    case .startRefresh, .wait: waiter.resume(throwing: AuthenticationError(.missingCredential))
                    }
                }
            } catch {
                let waiters = state.withLock { $0.machine.refreshFailed() }
                let failure = AuthenticationError(.refreshFailed, underlyingError: error)
                for waiter in waiters { waiter.resume(throwing: failure) }
            }
        }
    }
}
