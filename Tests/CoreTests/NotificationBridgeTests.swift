import Courier
import CourierTesting
import Foundation
import Testing

@Suite("NotificationCenter bridge", .serialized)
struct NotificationBridgeTests {
    /// Collects notifications with AFNetworking's names, with their objects.
    final class Observer: Sendable {
        let center = NotificationCenter()
        let seen = Box<[(String, ObjectIdentifier?)]>([])
        let tokens = Box<[Int]>([])

        init() {
            for name in [Notification.Name.courierTaskDidResume, .courierTaskDidSuspend, .courierTaskDidComplete] {
                _ = center.addObserver(forName: name, object: nil, queue: nil) { [seen] note in
                    let object = (note.object as? SessionTask).map(ObjectIdentifier.init)
                    seen.update { $0.append((note.name.rawValue, object)) }
                }
            }
        }
    }

    @Test func namesAreAFNetworkings() {
        #expect(Notification.Name.courierTaskDidResume.rawValue == "com.alamofire.networking.task.resume")
        #expect(Notification.Name.courierTaskDidSuspend.rawValue == "com.alamofire.networking.task.suspend")
        #expect(Notification.Name.courierTaskDidComplete.rawValue == "com.alamofire.networking.task.complete")
    }

    @Test func resumeSuspendCompleteArePostedWithTheTask() async throws {
        let observer = Observer()
        let session = Session(
            configuration: SessionConfiguration(eventListener: NotificationCenterEventListener(center: observer.center)),
            transport: MockTransport(always: .text("x", delay: .milliseconds(100)))
        )
        let task = session.dataTask(with: mockRequest())
        task.resume()
        task.resume()
        task.suspend()
        task.resume()
        _ = try await task.response
        let id = ObjectIdentifier(task.task)
        #expect(observer.seen.value.map(\.0) == [
            "com.alamofire.networking.task.resume", "com.alamofire.networking.task.suspend",
            "com.alamofire.networking.task.resume", "com.alamofire.networking.task.complete",
        ])
        #expect(observer.seen.value.allSatisfy { $0.1 == id })
    }

    @Test func completionCarriesTheErrorOnFailure() async throws {
        let center = NotificationCenter()
        let info = Box<[String]>([])
        _ = center.addObserver(forName: .courierTaskDidComplete, object: nil, queue: nil) { note in
            info.update { $0 = (note.userInfo?.keys.compactMap { $0 as? String } ?? []).sorted() }
        }
        let session = Session(
            configuration: SessionConfiguration(eventListener: NotificationCenterEventListener(center: center)),
            transport: MockTransport(always: .failure(TransportError(.cannotConnect, message: "refused")))
        )
        _ = try? await session.data(for: mockRequest())
        #expect(info.value == [CourierNotificationKey.error])
    }

    @Test func eachSessionPostsOnlyForItsOwnTasks() async throws {
        let observer = Observer()
        let bridged = Session(
            configuration: SessionConfiguration(eventListener: NotificationCenterEventListener(center: observer.center)),
            transport: MockTransport(always: .text("x"))
        )
        let silent = Session(transport: MockTransport(always: .text("y")))
        _ = try await silent.dataTask(with: mockRequest()).response
        let task = bridged.dataTask(with: mockRequest())
        _ = try await task.response
        #expect(observer.seen.value.count == 2)
        #expect(observer.seen.value.allSatisfy { $0.1 == ObjectIdentifier(task.task) })
    }

    @Test func downloadsAnnounceTheirFile() async throws {
        let center = NotificationCenter()
        let moved = Box<URL?>(nil), completed = Box<URL?>(nil)
        _ = center.addObserver(forName: .courierDownloadDidMoveFile, object: nil, queue: nil) { note in
            moved.value = note.userInfo?[CourierNotificationKey.assetPath] as? URL
        }
        _ = center.addObserver(forName: .courierTaskDidComplete, object: nil, queue: nil) { note in
            completed.value = note.userInfo?[CourierNotificationKey.assetPath] as? URL
        }
        let session = Session(
            configuration: SessionConfiguration(eventListener: NotificationCenterEventListener(center: center)),
            transport: MockTransport(always: .text("file"))
        )
        let target = try temporaryDirectory().appending(path: "download.txt")
        _ = try await session.downloadTask(with: mockRequest(), to: DownloadDestination(url: target)).response
        #expect(moved.value == target)
        #expect(completed.value == target)
    }

    @Test func aFailedMoveIsAnnounced() async throws {
        let center = NotificationCenter()
        let failed = Box(false)
        _ = center.addObserver(forName: .courierDownloadDidFailToMoveFile, object: nil, queue: nil) { note in
            failed.value = note.userInfo?[CourierNotificationKey.error] is CourierError
        }
        let session = Session(
            configuration: SessionConfiguration(eventListener: NotificationCenterEventListener(center: center)),
            transport: MockTransport(always: .text("file"))
        )
        _ = try? await session.downloadTask(with: mockRequest(), to: DownloadDestination(url: URL(filePath: "/nonexistent-courier/x/y"))).response
        #expect(failed.value)
    }
}
