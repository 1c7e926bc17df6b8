import Courier
import CourierCurl
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// behaviour-spec §4 F items 93-97 and redirects over the wire.
@Suite("Redirects and progress")
struct RedirectAndProgressTests {
    @Test func redirectsAreFollowedWithFullHistory() async throws {
        let response = try await session().get("redirect/3").response
        #expect(response.status == .ok)
        #expect(response.history.count == 3)
        #expect(response.history.allSatisfy { $0.response.status.code == 302 })
        #expect(response.request.path == "/get")
    }

    @Test func hookIsCalledOncePerHop() async throws {  // item 93
        let calls = Box<[Int]>([])
        let s = session { configuration in
            configuration.redirectPolicy = RedirectPolicy { proposal in
                calls.update { $0.append(proposal.response.status.code) }
                return .follow
            }
        }
        let response = try await s.get("redirect/1").response
        #expect(calls.value == [302])
        #expect(response.status == .ok)
        #expect(try json(response)["url"] as? String == "\(Servers.httpbin)/get")
    }

    @Test func refusingHookReturnsTheRedirect() async throws {  // item 94
        let s = session { $0.redirectPolicy = RedirectPolicy { _ in .refuse } }
        let response = try await s.get("redirect/1").response
        #expect(response.status.code == 302)
        #expect(response.head.headerFields[.location] != nil)
    }

    @Test func a307ResendsTheBody() async throws {
        let target = "\(Servers.httpbin)/post".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let request = try session().makeRequest(.post, "redirect-to?url=\(target)&status_code=307", headers: [.contentType: "text/plain"])
        let response = try await session().data(for: request, body: Body("again"))
        #expect(response.history.count == 1)
        #expect(try json(response)["data"] as? String == "again")
    }

    @Test func dripReportsProgressToCompletion() async throws {  // item 95
        let seen = Box<[TransferProgress]>([])
        let task = try session().get("drip?numbytes=2000&duration=1&delay=0")
        task.onDownloadProgress { progress in seen.update { $0.append(progress) } }
        let response = try await task.response
        #expect(response.data.count == 2000)
        #expect(await eventually { seen.value.last?.fractionCompleted == 1.0 })
        let values = seen.value
        #expect(values.count >= 2)
        #expect(values.dropLast().last.map { $0.completed > 0 && $0.fractionCompleted < 1 } == true)
    }

    @Test func downloadTaskReachesFullProgress() async throws {  // item 96
        let directory = try temporaryDirectory()
        let task = session().downloadTask(
            with: try session().makeRequest(.get, "bytes/102400"),
            to: DownloadDestination(url: directory.appendingPathComponent("bytes.bin"))
        )
        let response = try await task.response
        #expect(try Data(contentsOf: response.fileURL).count == 102_400)
        #expect(task.downloadProgress.fractionCompleted == 1.0)
    }

    @Test func uploadReachesFullProgress() async throws {  // items 97, 112
        let payload = Data(String(repeating: "AFNetworking", count: 1667).utf8)
        #expect(payload.count == 20_004)
        let reported = Box<TransferProgress?>(nil)
        let request = try session().makeRequest(.post, "post", headers: [.contentType: "application/octet-stream"])
        let task = session().uploadTask(with: request, from: .data(payload))
        task.onUploadProgress { progress in reported.value = progress }
        _ = try await task.response
        #expect(task.uploadProgress == TransferProgress(completed: 20_004, total: 20_004))
        #expect(await eventually { reported.value?.fractionCompleted == 1.0 })
    }

    @Test func metricsAreReportedOncePerExchange() async throws {  // item 104
        let recorder = RecordingEventListener()
        let s = session { $0.eventListener = recorder }
        _ = try await s.get("get").response
        let metrics = recorder.events(of: .metricsCollected)
        #expect(metrics.count == 1)
        #expect(metrics.first?.metrics?.bytesReceived ?? 0 > 0)
        #expect(recorder.names(excluding: RecordingEventListener.progressKinds) == [
            "taskCreated", "taskResumed", "requestSent", "responseHeadReceived", "metricsCollected", "taskCompleted",
        ])
    }
}
