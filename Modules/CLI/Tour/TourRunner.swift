import CourierCore
import CourierCurl
import Foundation
import HTTPTypes

/// Runs `courier tour`: each step in turn, narrated, with a check mark or the error; the exit
/// status is 0 only when every step worked.
struct TourRunner {
    let command: TourCommand

    func run() async -> Int32 {
        let narrator = TourNarrator()
        let context: TourContext
        do {
            context = try makeContext(narrator: narrator)
        } catch {
            CourierMain.report(error)
            return ExitStatus.code(for: error)
        }
        let steps = Self.steps(for: context)
        narrator.plain("Courier tour: httpbin at \(context.server)")
        narrator.plain("\(CurlTransport.libcurlVersion)")
        var failed: [String] = []
        for (index, step) in steps.enumerated() {
            narrator.heading(index + 1, of: steps.count, step.title)
            narrator.paragraph(step.explanation)
            if let line = step.command { narrator.command(line) }
            let start = ContinuousClock.now
            do {
                try await step.run(context)
                narrator.success("done in \(ByteFormatting.elapsed(seconds: Self.seconds(ContinuousClock.now - start)))")
            } catch {
                narrator.failure(ErrorReport.oneLine(ErrorReport.describe(error).message))
                failed.append(step.title)
            }
        }
        narrator.plain("")
        if context.tls == nil {
            narrator.plain("(HTTPS step skipped: pass --tls-server URL --ca FILE to run it)")
        }
        if failed.isEmpty {
            narrator.plain("All \(steps.count) steps worked.")
            return ExitStatus.success
        }
        narrator.plain("\(failed.count) of \(steps.count) steps failed: \(failed.joined(separator: ", ")).")
        return ExitStatus.failure
    }

    private func makeContext(narrator: TourNarrator) throws -> TourContext {
        var server = try RequestLine.target(command.server).absoluteString
        while server.hasSuffix("/") { server.removeLast() }
        var tls: (String, String)?
        switch (command.tlsServer, command.ca) {
        case (let tlsServer?, let ca?):
            var url = try RequestLine.target(tlsServer).absoluteString
            while url.hasSuffix("/") { url.removeLast() }
            tls = (url, ca)
        case (nil, nil):
            tls = nil
        default:
            throw CLIError("--tls-server and --ca go together")
        }
        var sse = try command.sseServer.map { try RequestLine.target($0).absoluteString }
        while sse?.hasSuffix("/") == true { sse?.removeLast() }
        return TourContext(server: server, tls: tls, sse: sse, transport: try CurlTransport(), narrator: narrator)
    }

    static func steps(for context: TourContext) -> [TourStep] {
        var steps: [TourStep] = [
            .query(server: context.server),
            .json(server: context.server),
            .form(server: context.server),
            .multipart(server: context.server),
            .jsonNulls(server: context.server),
            .image(server: context.server),
            .xml(server: context.server),
            .download(server: context.server),
            .redirects(server: context.server),
            .suspendResume(server: context.server),
            .timing(server: context.server),
            .authentication(server: context.server),
            .cookies(server: context.server),
            .cache(server: context.server),
            .lineStream(server: context.server),
        ]
        if let sse = context.sse { steps.append(.serverSentEvents(server: sse)) }
        if let tls = context.tls { steps.append(.tls(server: tls.server, caFile: tls.caFile)) }
        return steps
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
