import CourierCore
import CourierTesting
import FoundationEssentials
import HTTPTypes

/// A request to the mock host.
func mockRequest(_ method: HTTPRequest.Method = .get, _ path: String = "/", headers: HTTPFields = [:]) -> HTTPRequest {
    HTTPRequest(method: method, scheme: "http", authority: "mock.test", path: path, headerFields: headers)
}

/// A session over `transport` recording its events.
func recordingSession(
    _ transport: any Transport,
    configure: (inout SessionConfiguration) -> Void = { _ in }
) -> (Session, RecordingEventListener) {
    let recorder = RecordingEventListener()
    var configuration = SessionConfiguration(eventListener: recorder)
    configure(&configuration)
    return (Session(configuration: configuration, transport: transport), recorder)
}

/// Polls `condition` until it holds or `timeout` passes; returns whether it held.
/// The bound is generous: it only matters when the condition never holds. Under ThreadSanitizer every
/// suite starts at once (about 960 tests, some making a thousand tasks) and keeps the cooperative pool's
/// two threads busy for about 40 s, while a test's chain of hops waits behind that work: two clean-clone
/// runs failed a 30 s wait so (`SessionTests`, `EventOrderTests`, in the runs at `ec25e68` and `a466333`).
/// So 30 s plain and 150 s under a sanitizer.
func eventually(
    timeout: Duration = TimeBounds.isSanitized ? .seconds(150) : .seconds(30),
    _ condition: @Sendable () -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}

/// A value several threads can set.
final class Box<Value: Sendable>: Sendable {
    private let storage: Locked<Value>
    init(_ value: Value) { storage = Locked(value) }
    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
    func update(_ body: (inout Value) -> Void) { storage.withLock { body(&$0) } }
}

/// A fresh temporary directory.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appending(path: "courier-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
