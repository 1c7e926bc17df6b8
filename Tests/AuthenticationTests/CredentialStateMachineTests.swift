@testable import CourierAuthentication
import Testing

/// The single-flight rules without tasks, clocks or locks (`CredentialStateMachine`).
@Suite struct CredentialStateMachineTests {
    struct Token: AuthenticationCredential, Equatable {
        var value: String
        var expired = false
        var requiresRefresh: Bool { expired }
    }

    typealias Machine = CredentialStateMachine<Token, String>

    private func used(_ action: Machine.Action) -> GenerationalCredential<Token>? {
        if case .use(let current) = action { return current }
        return nil
    }

    private func failure(_ action: Machine.Action) -> AuthenticationError.Code? {
        if case .fail(let error) = action { return error.code }
        return nil
    }

    private func refreshing(_ action: Machine.Action) -> GenerationalCredential<Token>? {
        if case .startRefresh(let current) = action { return current }
        return nil
    }

    private func waits(_ action: Machine.Action) -> Bool {
        if case .wait = action { return true }
        return false
    }

    @Test func aValidCredentialIsUsedAsItIs() {
        var machine = Machine(credential: Token(value: "a"), window: RefreshWindow())
        let current = used(machine.credentialForCall(id: 1, waiter: "one", now: .zero))
        #expect(current?.credential.value == "a" && current?.generation == 0)
        #expect(!machine.isRefreshing)
    }

    @Test func noCredentialFailsTheCall() {
        var machine = Machine(credential: nil, window: RefreshWindow())
        #expect(failure(machine.credentialForCall(id: 1, waiter: "one", now: .zero)) == .missingCredential)
        #expect(failure(machine.authenticationFailed(generation: 0, id: 2, waiter: "two", now: .zero)) == .missingCredential)
    }

    @Test func anExpiredCredentialStartsOneRefreshAndEveryoneElseWaits() {
        var machine = Machine(credential: Token(value: "old", expired: true), window: RefreshWindow())
        #expect(refreshing(machine.credentialForCall(id: 1, waiter: "first", now: .zero))?.credential.value == "old")
        for id in 2...100 {
            #expect(waits(machine.credentialForCall(id: id, waiter: "call \(id)", now: .zero)))
        }
        // A refusal arriving meanwhile waits too, whatever generation it carried.
        #expect(waits(machine.authenticationFailed(generation: 0, id: 101, waiter: "refused", now: .zero)))
        let (outcome, waiters) = machine.refreshSucceeded(Token(value: "new"), refreshed: 0)
        #expect(waiters == ["first"] + (2...100).map { "call \($0)" } + ["refused"])
        #expect(used(outcome)?.credential.value == "new")
        #expect(used(outcome)?.generation == 1)
        #expect(!machine.isRefreshing)
        #expect(used(machine.credentialForCall(id: 102, waiter: "later", now: .zero))?.credential.value == "new")
    }

    @Test func aRefusalOfAnOlderGenerationUsesTheNewerCredential() {
        var machine = Machine(credential: Token(value: "a"), window: RefreshWindow())
        let sent = used(machine.credentialForCall(id: 1, waiter: "one", now: .zero))!
        #expect(refreshing(machine.authenticationFailed(generation: sent.generation, id: 1, waiter: "one", now: .zero)) != nil)
        _ = machine.refreshSucceeded(Token(value: "b"), refreshed: sent.generation)
        // A second call sent with "a" comes back refused after the refresh: no second refresh.
        let retried = used(machine.authenticationFailed(generation: sent.generation, id: 2, waiter: "two", now: .seconds(1)))
        #expect(retried?.credential.value == "b")
    }

    @Test func aFailedRefreshReleasesTheWaitersAndKeepsTheCredential() {
        var machine = Machine(credential: Token(value: "a", expired: true), window: RefreshWindow())
        _ = machine.credentialForCall(id: 1, waiter: "one", now: .zero)
        _ = machine.credentialForCall(id: 2, waiter: "two", now: .zero)
        #expect(machine.refreshFailed() == ["one", "two"])
        #expect(!machine.isRefreshing && machine.current?.credential.value == "a")
        // The next call may try again.
        #expect(refreshing(machine.credentialForCall(id: 3, waiter: "three", now: .seconds(1))) != nil)
    }

    @Test func theWindowBoundsRefreshesAndSlides() {
        var machine = Machine(credential: Token(value: "t0"), window: RefreshWindow(interval: .seconds(10), maximumRefreshes: 3))
        var generation = 0
        for second in 0..<3 {
            let now = Duration.seconds(second)
            #expect(refreshing(machine.authenticationFailed(generation: generation, id: second, waiter: "w", now: now)) != nil)
            generation = used(machine.refreshSucceeded(Token(value: "t\(second + 1)"), refreshed: generation).0)!.generation
        }
        #expect(failure(machine.authenticationFailed(generation: generation, id: 9, waiter: "w", now: .seconds(9))) == .excessiveRefresh)
        // Ten seconds after the first refresh it no longer counts.
        #expect(refreshing(machine.authenticationFailed(generation: generation, id: 10, waiter: "w", now: .seconds(10))) != nil)
    }

    @Test func aSignInOrSignOutWinsOverARunningRefresh() {
        var machine = Machine(credential: Token(value: "old", expired: true), window: RefreshWindow())
        _ = machine.credentialForCall(id: 1, waiter: "one", now: .zero)
        machine.setCredential(Token(value: "signed in"))
        let (outcome, waiters) = machine.refreshSucceeded(Token(value: "refreshed"), refreshed: 0)
        #expect(waiters == ["one"] && used(outcome)?.credential.value == "signed in")

        _ = machine.authenticationFailed(generation: machine.current!.generation, id: 2, waiter: "two", now: .seconds(1))
        machine.setCredential(nil)
        let (signedOut, _) = machine.refreshSucceeded(Token(value: "refreshed"), refreshed: 1)
        #expect(failure(signedOut) == .missingCredential)
        #expect(machine.current == nil)
    }

    @Test func aCancelledWaiterIsTakenOutOnce() {
        var machine = Machine(credential: Token(value: "a", expired: true), window: RefreshWindow())
        _ = machine.credentialForCall(id: 1, waiter: "one", now: .zero)
        _ = machine.credentialForCall(id: 2, waiter: "two", now: .zero)
        #expect(machine.removeWaiter(id: 2) == "two")
        #expect(machine.removeWaiter(id: 2) == nil)
        #expect(machine.refreshFailed() == ["one"])
    }
}
