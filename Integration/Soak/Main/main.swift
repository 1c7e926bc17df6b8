import CourierCurl
import CourierSoakKit
import Foundation

// courier-soak: many requests of every kind against the local servers, every outcome checked, the
// process's memory, descriptors and threads sampled each second and judged flat (SoakOptions.usage,
// Scripts/soak.sh, docs/reliability.md "Soak").

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(status)
}

/// The whole run, in a function so everything it made is released before the program exits: values
/// of top-level code would still be alive in `exit`'s frame, and LeakSanitizer would report them.
func soak() async -> Int32 {
    let options: SoakOptions
    do {
        options = try SoakOptions.parse(Array(CommandLine.arguments.dropFirst()))
    } catch {
        if let message = error.message { fail("courier-soak: \(message)\n\(SoakOptions.usage)", status: 2) }
        print(SoakOptions.usage)
        exit(0)
    }

    let servers: SoakServers
    do { servers = try SoakServers.fromEnvironment() } catch { fail("courier-soak: \(error)", status: 2) }

    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("courier-soak-\(getpid())")
    let client: SoakClient
    do {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        client = try SoakClient(servers: servers, scratch: scratch)
    } catch {
        fail("courier-soak: cannot start: \(error)", status: 2)
    }

    print("courier-soak: \(options.requests) requests, \(options.concurrency) in flight, seed \(options.seed), \(CurlTransport.libcurlVersion)")
    let tally = SoakTally()
    let sampler = ResourceSampler { tally.completed }
    let start = ContinuousClock.now
    sampler.start()
    let finishedInTime = await SoakDriver.run(client, options: options, tally: tally)
    let elapsed = ContinuousClock.now - start
    let samples = sampler.stop()

    // Files left behind: the session's download .part files and, in the scratch directory, downloads the
    // exercises did not delete.
    let leftovers = client.leftoverPartFiles(downloadsRan: (tally.passed[.download] ?? 0) > 0)
        + ((try? FileManager.default.contentsOfDirectory(atPath: scratch.path)) ?? []).map { scratch.path + "/" + $0 }
    try? FileManager.default.removeItem(at: scratch)
    await client.shutdown()
    await CurlTransport.shutdownAll()

    if let path = options.samplesPath {
        do { try SampleTable.tsv(samples).write(toFile: path, atomically: true, encoding: .utf8) } catch {
            fail("courier-soak: cannot write \(path): \(error)", status: 1)
        }
    }
    let verdict = FlatnessVerdict.judge(
        samples, requests: options.requests, warmUpFraction: options.warmUpFraction, warmUpSeconds: options.warmUpSeconds
    )
    let report = SoakReport(
        options: options, seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
        tally: tally, finishedInTime: finishedInTime, leftovers: leftovers, samples: samples, verdict: verdict
    )
    print(report.text)
    return report.exitStatus
}

let status = await soak()
// LeakSanitizer checks at exit and, finding a leak, ends the process without flushing stdio.
fflush(nil)
exit(status)
