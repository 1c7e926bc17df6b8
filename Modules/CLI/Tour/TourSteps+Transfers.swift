import CourierCore
import CourierCurl
import CourierSecurity
import Foundation
import HTTPTypes

extension TourStep {
    /// A download task streaming into a file, with a progress bar fed by its progress handler.
    static func download(server: String) -> TourStep {
        TourStep(
            title: "Download with progress",
            explanation: "A download task streams 100 KiB, sent by httpbin over about two seconds, into a temporary file that is moved into place at the end; its progress handler drives the bar. (-d on the command line, -c to resume.)",
            command: "courier -d --progress \(server)/range/102400 duration==2"
        ) { context in
            let session = context.session()
            let directory = FileManager.default.temporaryDirectory.appending(path: "courier-tour-\(getpid())")
            defer { try? FileManager.default.removeItem(at: directory) }
            let reporter = ProgressReporter(stream: .output, style: ProgressReporter.style(for: .output), prefix: TourNarrator.indent)
            let task = session.downloadTask(
                with: try context.request("/range/102400?duration=2&chunk_size=4096"),
                to: .suggested(in: directory)
            )
            reporter.start(total: nil)
            task.onDownloadProgress { progress in reporter.update(completed: progress.completed, total: progress.total) }
            let response: DownloadResponse
            do {
                response = try await task.resume().response
            } catch {
                reporter.abandon()
                throw error
            }
            reporter.finish()
            let bytes = try Data(contentsOf: response.fileURL)
            context.say("← \(response.status.code), saved as \(response.fileURL.lastPathComponent) (\(bytes.count) bytes)")
            guard bytes.count == 102_400 else { throw TourFailure("the file has \(bytes.count) bytes, expected 102400") }
            // httpbin's /range body is the alphabet repeated: every byte is where it should be.
            for (index, byte) in bytes.enumerated() where byte != UInt8(ascii: "a") + UInt8(index % 26) {
                throw TourFailure("byte \(index) is \(byte), expected \(UInt8(ascii: "a") + UInt8(index % 26))")
            }
        }
    }

    /// Following redirects, with the history of hops.
    static func redirects(server: String) -> TourStep {
        TourStep(
            title: "Redirect history",
            explanation: "Core's redirect stage follows redirects itself (curl never does), so every hop passes the interceptors, is reported to listeners and lands in the response's history. Past the limit the call fails with a RedirectError (exit status 6 on the command line).",
            command: "courier -v \(server)/redirect/3"
        ) { context in
            let session = context.session()
            let response = try await session.data(for: try context.request("/redirect/3"))
            for (index, hop) in response.history.enumerated() {
                let location = hop.response.headerFields[.location] ?? "?"
                context.say("hop \(index + 1): GET \(hop.request.path ?? "") → \(hop.response.status.code), Location: \(location)")
            }
            context.say("final: GET \(response.request.path ?? "") → \(TourContext.status(response.head))")
            guard response.history.count == 3, response.status.code == 200 else {
                throw TourFailure("expected 3 hops and a 200, got \(response.history.count) hops and a \(response.status.code)")
            }
            let limited = context.session { $0.redirectPolicy = RedirectPolicy(maximumRedirects: 2) }
            do {
                _ = try await limited.data(for: try context.request("/redirect/3"))
                throw TourFailure("a limit of 2 redirects let 3 through")
            } catch let error as CourierError {
                guard let redirect = error.underlyingError as? RedirectError, redirect.reason == .tooManyRedirects else { throw error }
                context.say("with at most 2 redirects: \(redirect)")
            }
        }
    }

    /// Suspending and resuming a running task, with its lifecycle events.
    static func suspendResume(server: String) -> TourStep {
        TourStep(
            title: "Suspend and resume",
            explanation: "A data task on a slow body (40 bytes over two seconds) is suspended once bytes flow, which pauses the curl transfer, and resumed a second later. An event listener prints each lifecycle event as it happens: what AFNetworking posted as notifications.",
            command: nil
        ) { context in
            let listener = LifecycleListener(narrator: context.narrator)
            let session = context.session { $0.eventListener = listener }
            let task = session.dataTask(with: try context.request("/drip?numbytes=40&duration=2&delay=0"))
            task.resume()
            let deadline = ContinuousClock.now + .seconds(10)
            while task.downloadProgress.completed == 0 {
                // A task that ended early (the server is down) reports its own error.
                if task.state == .completed { _ = try await task.response }
                guard ContinuousClock.now < deadline else { task.cancel(); throw TourFailure("no byte arrived within 10 s") }
                try await Task.sleep(for: .milliseconds(10))
            }
            task.suspend()
            // Bytes already handed to the curl thread may still land; count from a moment later.
            try await Task.sleep(for: .milliseconds(100))
            let before = task.downloadProgress.completed
            try await Task.sleep(for: .seconds(1))
            let during = task.downloadProgress.completed - before
            listener.note("still suspended after 1 s: " + ByteFormatting.count(during, "byte", "bytes") + " arrived meanwhile")
            task.resume()
            let response = try await task.response
            guard during == 0 else { throw TourFailure("\(during) bytes arrived while the task was suspended") }
            guard response.data.count == 40 else { throw TourFailure("the body has \(response.data.count) bytes, expected 40") }
        }
    }

    /// Transfer metrics of a new and a reused connection.
    static func timing(server: String) -> TourStep {
        TourStep(
            title: "Timing metrics",
            explanation: "CurlTransport measures every exchange (TransferMetrics from curl's timers). Two requests in a row on a new transport: the first opens a connection, the second reuses it, so it has no DNS or connect phase.",
            command: "courier --timing \(server)/get"
        ) { context in
            var configuration = SessionConfiguration(baseURL: URL(string: server))
            configuration.timeouts = Timeouts(connect: .seconds(10), request: .seconds(30))
            let session = Session(configuration: configuration, transport: try CurlTransport())
            for attempt in ["first request", "second request"] {
                let response = try await session.data(for: try context.request("/get"))
                guard let metrics = response.metrics else { throw TourFailure("the \(attempt) has no metrics") }
                context.say("\(attempt): \(TourContext.status(response.head))")
                context.say(TimingReport.format(metrics).split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
            }
        }
    }

    /// HTTPS trusting a private CA, the refusal without it, a pinned request and a refused pin.
    static func tls(server: String, caFile: String) -> TourStep {
        TourStep(
            title: "HTTPS: a private CA, pinning, and refusals",
            explanation: "CurlTransport trusts the CA certificates of a PEM file instead of the system store (--cacert on the command line); without it the same request is refused: exit status 7. Then CourierSecurity's SecurityPolicy judges the server inside the TLS handshake: pinning the CA's public key passes, a pin the chain does not have is refused before a byte of the request is sent, and the error lists the chain's real pins.",
            command: "courier --cacert \(caFile) --pin-key \(caFile) \(server)/get"
        ) { context in
            var configuration = CurlTransport.Configuration()
            configuration.certificateAuthorityFile = caFile
            let trusting = Session(transport: try CurlTransport(configuration: configuration))
            guard let url = URL(string: server + "/get") else { throw TourFailure("bad URL \(server)/get") }
            let response = try await trusting.data(for: HTTPRequest(method: .get, url: url))
            let metrics = response.metrics
            context.say("with the CA: \(TourContext.status(response.head)) over \(metrics?.httpVersion ?? "?"), TLS handshake done at \(TimingReport.milliseconds(metrics?.secureConnection))")
            guard response.status.code == 200 else { throw TourFailure("expected 200, got \(response.status.code)") }

            let systemOnly = Session(transport: context.transport)
            do {
                _ = try await systemOnly.data(for: HTTPRequest(method: .get, url: url))
                throw TourFailure("the system trust store accepted a certificate of a private CA")
            } catch let error as CourierError {
                guard ExitStatus.code(for: error) == ExitStatus.tlsFailure else { throw error }
                context.say("without it: refused, \(error.underlyingError)")
            }

            // Pinned: the CA's public key, with the CA as the only anchor.
            var pinned = try TrustOptions(caFile: caFile, pinnedKeys: [caFile]).policy()
            let pinnedSession = Session(configuration: SessionConfiguration(trustEvaluator: pinned), transport: context.transport)
            let pinnedResponse = try await pinnedSession.data(for: HTTPRequest(method: .get, url: url))
            guard pinnedResponse.status.code == 200 else { throw TourFailure("pinned: expected 200, got \(pinnedResponse.status.code)") }
            context.say("pinned to \(pinned.pinnedPublicKeys.first.map { "\($0)" } ?? "?"): \(TourContext.status(pinnedResponse.head))")

            // Refused: a pin no certificate of the chain has.
            pinned.pinnedPublicKeys = [PublicKeyPin(subjectPublicKeyInfo: Array("not this server's key".utf8))]
            let refusing = Session(configuration: SessionConfiguration(trustEvaluator: pinned), transport: context.transport)
            do {
                _ = try await refusing.data(for: HTTPRequest(method: .get, url: url))
                throw TourFailure("a server whose chain has no pinned key was trusted")
            } catch let error as CourierError {
                guard let trust = error.underlyingError as? TrustError, ExitStatus.code(for: error) == ExitStatus.tlsFailure else { throw error }
                context.say("pinned to another key: refused in the handshake (exit status 7), error \(trust.code)")
                if let chain = trust.serverTrust?.certificateChain {
                    context.say("the chain's real pins, as the error lists them: \(SecurityPolicy.pinDescription(ofChain: chain))")
                }
            }
        }
    }
}
