import Glibc
import Testing
@testable import CourierCLI
import CourierReachability

@Suite struct ReachabilityCommandTests {
    func parse(_ arguments: [String]) -> ReachabilityCommand? {
        if case .command(let command) = CourierMain.parse(ReachabilityCommand.self, arguments) { return command }
        return nil
    }

    @Test func parsesTargetAndWatch() throws {
        let plain = try #require(parse([]))
        #expect(plain.target == nil && !plain.watch)
        let watching = try #require(parse(["example.com", "--watch"]))
        #expect(watching.target == "example.com" && watching.watch)
        #expect(parse(["a", "b"]) == nil)
    }

    @Test func watchLinesAreTimeStamped() {
        setenv("TZ", "UTC", 1)
        tzset()
        let time = timespec(tv_sec: 1_700_000_000, tv_nsec: 7_000_000)
        #expect(WatchLine.format(.reachable(via: .wired, interface: "eth0"), at: time)
            == "2023-11-14T22:13:20.007+0000 reachable via wired (eth0)")
        #expect(WatchLine.format(.notReachable, at: timespec(tv_sec: 0, tv_nsec: 999_999_999))
            == "1970-01-01T00:00:00.999+0000 not reachable")
    }
}
