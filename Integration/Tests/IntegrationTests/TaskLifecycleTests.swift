import Courier
import CourierCurl
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// behaviour-spec §4 F items 91, 98-106 and G 109-113 over the curl transport.
@Suite("Task lifecycle")
struct TaskLifecycleTests {
    @Test func dataTaskCompletesOnTheCompletionQueue() async throws {  // items 91, 106
        let queue = DispatchQueue(label: "it.completion")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let s = session { $0.completionQueue = queue }
        let task = try s.get("get")
        let onQueue = await withCheckedContinuation { continuation in
            task.onCompletion { _ in continuation.resume(returning: DispatchQueue.getSpecific(key: key) == true) }
        }
        #expect(onQueue)
        #expect(task.state == .completed)
        #expect(try json(try await task.response)["url"] != nil)
    }

    @Test func downloadIsMovedAndAnnounced() async throws {  // item 98
        let center = NotificationCenter()
        let announced = Box<(ObjectIdentifier?, URL?)>((nil, nil))
        _ = center.addObserver(forName: .courierDownloadDidMoveFile, object: nil, queue: nil) { note in
            announced.value = ((note.object as? SessionTask).map(ObjectIdentifier.init), note.userInfo?[CourierNotificationKey.assetPath] as? URL)
        }
        let s = session { $0.eventListener = NotificationCenterEventListener(center: center) }
        let destination = try temporaryDirectory().appendingPathComponent(UUID().uuidString)
        let task = s.downloadTask(with: try s.makeRequest(.get, "bytes/1024"), to: DownloadDestination(url: destination))
        let response = try await task.response
        #expect(response.fileURL == destination)
        #expect(announced.value.0 == ObjectIdentifier(task.task))
        #expect(announced.value.1 == destination)
    }

    @Test func missingDirectoryIsAnnouncedAsAFailedMove() async throws {  // item 99
        let center = NotificationCenter()
        let failed = Box(false)
        _ = center.addObserver(forName: .courierDownloadDidFailToMoveFile, object: nil, queue: nil) { _ in failed.value = true }
        let s = session { $0.eventListener = NotificationCenterEventListener(center: center) }
        let task = s.downloadTask(with: try s.makeRequest(.get, "bytes/10"), to: DownloadDestination(url: URL(fileURLWithPath: "/a/b/c")))
        await #expect { _ = try await task.response } throws: { ($0 as? CourierError)?.stage == .download }
        #expect(failed.value)
    }

    @Test func sessionLevelDestinationWins() async throws {  // item 100
        let directory = try temporaryDirectory()
        let chosen = directory.appendingPathComponent("session-level")
        let s = session { $0.downloadDestination = { _, _ in chosen } }
        let response = try await s.downloadTask(with: try s.makeRequest(.get, "bytes/64"), to: .suggested(in: directory)).response
        #expect(response.fileURL == chosen)
    }

    @Test(arguments: ["data", "upload", "download"])
    func resumeSuspendResumeIsAnnounced(kind: String) async throws {  // items 101, 102
        let center = NotificationCenter()
        let names = Box<[String]>([])
        for name in [Notification.Name.courierTaskDidResume, .courierTaskDidSuspend] {
            _ = center.addObserver(forName: name, object: nil, queue: nil) { note in names.update { $0.append(note.name.rawValue) } }
        }
        let s = session { $0.eventListener = NotificationCenterEventListener(center: center) }
        let other = session { $0.eventListener = NotificationCenterEventListener(center: NotificationCenter()) }
        _ = try await other.get("get").response
        let request = try s.makeRequest(kind == "upload" ? .post : .get, kind == "upload" ? "delay/1" : "delay/1")
        let task: SessionTask
        switch kind {
        case "data": task = s.dataTask(with: request).task
        case "upload": task = s.uploadTask(with: request, from: .data(Data("x".utf8))).task
        default: task = s.downloadTask(with: request, to: .suggested(in: try temporaryDirectory())).task
        }
        task.resume()
        task.suspend()
        task.resume()
        task.resume()
        #expect(names.value == [
            "com.alamofire.networking.task.resume", "com.alamofire.networking.task.suspend", "com.alamofire.networking.task.resume",
        ])
        #expect(await eventually { task.state == .completed })
    }

    @Test func invalidatingCancelsRunningTasks() async throws {  // item 105
        let s = session()
        // The server answers after 10 s, twice the sanitized run's prompt bound.
        let task = try s.get("delay/10")
        #expect(await eventually { task.task.response == nil && task.state == .running })
        try await Task.sleep(for: .milliseconds(100))
        s.invalidate(cancelingTasks: true)
        let (_, elapsed) = await timed {
            await #expect { _ = try await task.response } throws: { ($0 as? CourierError)?.isCancellation == true }
        }
        #expect(elapsed < TimeBounds.prompt)
    }

    @Test func cancelEndsPromptly() async throws {  // item 106
        let task = try session().get("delay/10")
        try await Task.sleep(for: .milliseconds(200))
        let (_, elapsed) = await timed {
            task.cancel()
            await #expect { _ = try await task.response } throws: { ($0 as? CourierError)?.isCancellation == true }
        }
        #expect(elapsed < TimeBounds.prompt)
    }

    @Test func requestTimeoutIsATimeout() async throws {  // item 106
        let s = session { $0.timeouts = Timeouts(request: .seconds(1)) }
        let (_, elapsed) = await timed {
            await #expect { _ = try await s.get("delay/3").response } throws: { transportCode($0) == .timedOut }
        }
        #expect(elapsed >= .milliseconds(900) && elapsed < TimeBounds.limit(.seconds(1)))
    }

    @Test func swiftTaskCancellationCancelsTheTransfer() async throws {
        let s = session()
        let caller = Task { try await s.data(for: try s.makeRequest(.get, "delay/10")) }
        try await Task.sleep(for: .milliseconds(200))
        let (_, elapsed) = await timed {
            caller.cancel()
            await #expect { _ = try await caller.value } throws: { ($0 as? CourierError)?.isCancellation == true }
        }
        #expect(elapsed < TimeBounds.prompt)
    }

    @Test func restConveniencesHitHttpbin() async throws {  // items 109, 111
        let s = session()
        #expect(try await s.get("get").response.status == .ok)
        let head = try await s.head("get").response
        #expect(head.status == .ok && head.data.isEmpty)
        #expect(try await s.get("status/204").response.status.code == 204)
        #expect(try await s.get("status/404").response.status.code == 404)
        #expect(Session(transport: sharedTransport) !== Session(transport: sharedTransport))  // item 113
    }
}

/// behaviour-spec item 107 against httpbin's Basic-auth endpoint.
@Suite("Authentication challenge")
struct ChallengeTests {
    func session(_ handler: @escaping ChallengeInterceptor.Handler) -> Session {
        IntegrationTests.session { $0.interceptors = [ChallengeInterceptor(handler: handler)] }
    }

    @Test func credentialForTheRealmSucceeds() async throws {
        let response = try await session { challenge in
            challenge.realm == "Fake Realm" ? .useCredential(user: "user", password: "passwd") : .performDefaultHandling
        }.get("basic-auth/user/passwd").response
        #expect(response.status == .ok)
        #expect(try json(response)["authenticated"] as? Bool == true)
    }

    @Test func handlerErrorFailsTheTask() async throws {
        struct Refused: Error {}
        await #expect {
            _ = try await session { _ in .fail(Refused()) }.get("basic-auth/user/passwd").response
        } throws: { ($0 as? CourierError)?.underlyingError is Refused }
    }

    @Test func defaultHandlingIsA401() async throws {
        let response = try await session { _ in .performDefaultHandling }.get("basic-auth/user/passwd").response
        #expect(response.status == .unauthorized)
    }
}
