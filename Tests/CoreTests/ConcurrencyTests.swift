import CourierCore
import CourierTesting
import Dispatch
import FoundationEssentials
import HTTPTypes
import Testing

@Suite("Concurrency")
struct ConcurrencyTests {
    @Test func thousandConcurrentTasksOnOneSession() async throws {
        let transport = MockTransport { request in .text(request.path) }
        let (session, recorder) = recordingSession(transport)
        let results = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<1000 {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        return (index, try await session.data(for: mockRequest(.get, "/\(index)")).text)
                    }
                    return (index, try await session.dataTask(with: mockRequest(.get, "/\(index)")).response.text)
                }
            }
            var collected: [Int: String] = [:]
            for try await (index, text) in group { collected[index] = text }
            return collected
        }
        #expect(results.count == 1000)
        #expect(results.allSatisfy { "/\($0.key)" == $0.value })
        #expect(recorder.events(of: .taskCompleted).count == 1000)
        #expect(Set(recorder.events(of: .taskCreated).map(\.task.id)).count == 1000)
        #expect(session.tasks.isEmpty)
    }

    @Test func stateQueriesAndControlsFromManyThreads() async throws {
        let transport = MockTransport(always: .chunks(Array(repeating: Data(count: 64), count: 20), interval: .milliseconds(2)))
        let (session, recorder) = recordingSession(transport)
        let tasks = (0..<50).map { _ in session.dataTask(with: mockRequest()) }
        DispatchQueue.concurrentPerform(iterations: 400) { index in
            let task = tasks[index % tasks.count]
            switch index % 4 {
            case 0: task.resume()
            case 1: _ = (task.state, task.downloadProgress, task.task.currentRequest, task.task.response)
            case 2: task.suspend()
            default: task.resume()
            }
        }
        for task in tasks { task.resume() }
        for task in tasks {
            #expect(try await task.response.data.count == 1280)
            #expect(task.state == .completed)
        }
        for task in tasks {
            let names = recorder.names(for: task.task, excluding: RecordingEventListener.progressKinds)
            #expect(names.first == "taskCreated")
            #expect(names.last == "taskCompleted")
            let resumes = names.filter { $0 == "taskResumed" }.count
            let suspends = names.filter { $0 == "taskSuspended" }.count
            #expect(resumes == suspends + 1)
        }
    }

    @Test func concurrentCancelAndResumeNeverDoubleComplete() async throws {
        let transport = MockTransport(always: .text("x", delay: .milliseconds(5)))
        let (session, recorder) = recordingSession(transport)
        let tasks = (0..<200).map { _ in session.dataTask(with: mockRequest()) }
        DispatchQueue.concurrentPerform(iterations: 600) { index in
            let task = tasks[index % tasks.count]
            if index % 3 == 1 { task.cancel() } else { task.resume() }
        }
        for task in tasks {
            _ = try? await task.response
            #expect(task.state == .completed)
            let terminal = recorder.names(for: task.task).filter { $0 == "taskCompleted" || $0 == "taskFailed" }
            #expect(terminal.count == 1)
        }
    }
}
