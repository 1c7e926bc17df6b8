@testable import CourierCLI
import CourierCore
import Testing

@Suite("Progress bar")
struct ProgressTests {
    @Test(arguments: [
        (Int64(0), "0 B"), (1, "1 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (1536, "1.5 KiB"),
        (1_048_575, "1.0 MiB"), (2_000_000, "1.9 MiB"), (1_073_741_824, "1.0 GiB"), (5_368_709_120_000, "4.9 TiB"),
    ])
    func sizes(bytes: Int64, text: String) {
        #expect(ByteFormatting.size(bytes) == text)
    }

    @Test func ratesAndClocks() {
        #expect(ByteFormatting.rate(2_411_724.8) == "2.3 MiB/s")
        #expect(ByteFormatting.rate(512) == "512 B/s")
        #expect(ByteFormatting.rate(nil) == "-- B/s")
        #expect(ByteFormatting.rate(.infinity) == "-- B/s")
        #expect(ByteFormatting.clock(seconds: 0) == "0:00")
        #expect(ByteFormatting.clock(seconds: 0.2) == "0:01")
        #expect(ByteFormatting.clock(seconds: 59) == "0:59")
        #expect(ByteFormatting.clock(seconds: 61) == "1:01")
        #expect(ByteFormatting.clock(seconds: 3_725) == "1:02:05")
        #expect(ByteFormatting.clock(seconds: nil) == "--:--")
        #expect(ByteFormatting.clock(seconds: 1e9) == "--:--")
        #expect(ByteFormatting.elapsed(seconds: 0.045) == "45 ms")
        #expect(ByteFormatting.elapsed(seconds: 1.25) == "1.3s")
        #expect(ByteFormatting.elapsed(seconds: 125) == "2:05")
        #expect(ByteFormatting.count(1, "byte", "bytes") == "1 byte")
        #expect(ByteFormatting.count(40, "byte", "bytes") == "40 bytes")
    }

    @Test func aKnownTotalShowsPercentBarRateAndETA() {
        let bar = ProgressBar(completed: 753_664, total: 2_000_000, rate: 1_258_291, elapsed: 0.6)
        #expect(bar.render(width: 80) == " 37% [===========>                  ] 736.0 KiB / 1.9 MiB  1.2 MiB/s  ETA 0:01")
        #expect(bar.eta(total: 2_000_000) == Double(2_000_000 - 753_664) / 1_258_291)
    }

    @Test func withoutARateTheETAIsUnknown() {
        let bar = ProgressBar(completed: 0, total: 100, rate: nil, elapsed: 0)
        #expect(bar.render(width: 60) == "  0% [>                    ] 0 B / 100 B  -- B/s  ETA --:--")
    }

    @Test func anUnknownTotalBouncesAndShowsTheElapsedTime() {
        let bar = ProgressBar(completed: 5 * 1024 * 1024, total: nil, rate: 1024 * 1024, elapsed: 5)
        #expect(bar.render(width: 60) == "[              <=>             ] 5.0 MiB  1.0 MiB/s  5.0s")
    }

    @Test func theFinalLineSummarises() {
        var bar = ProgressBar(completed: 2_000_000, total: 2_000_000, rate: 2_500_000, elapsed: 0.8)
        bar.finished = true
        #expect(bar.render(width: 80) == "100% [==============================] 1.9 MiB  2.4 MiB/s  done in 800 ms")
    }

    @Test func aNarrowTerminalDropsTheBar() {
        let bar = ProgressBar(completed: 512, total: 1024, rate: 100, elapsed: 1)
        #expect(bar.render(width: 40) == " 50% 512 B / 1.0 KiB  100 B/s  ETA 0:06")
    }

    @Test func barsFillInProportion() {
        #expect(ProgressBar.bar(fraction: 0, width: 10) == ">         ")
        #expect(ProgressBar.bar(fraction: 0.5, width: 10) == "=====>    ")
        #expect(ProgressBar.bar(fraction: 1, width: 10) == "==========")
        #expect(ProgressBar.bouncer(elapsed: 0, width: 8) == "<=>     ")
        #expect(ProgressBar.bouncer(elapsed: 5 / 8, width: 8) == "     <=>")
        #expect(ProgressBar.bouncer(elapsed: 6 / 8, width: 8) == "    <=> ")
    }

    @Test func theRateFollowsASlidingWindow() {
        var meter = RateMeter(window: 3)
        #expect(meter.bytesPerSecond == nil)
        meter.record(bytes: 0, at: 0)
        meter.record(bytes: 1000, at: 1)
        #expect(meter.bytesPerSecond == 1000)
        for second in 2...10 { meter.record(bytes: Int64(1000 + (second - 1) * 100), at: Double(second)) }
        // Only the last three-odd seconds count: 100 bytes a second now.
        #expect(meter.bytesPerSecond == 100)
    }

    @Test func theBarIsOnByDefaultOnlyForBigBodiesBesideATerminal() {
        let big = Body.Length.known(2 * 1024 * 1024)
        #expect(ProgressPolicy.isOn(explicit: nil, length: big, stderrIsTerminal: true, bodyGoesToTerminal: false))
        #expect(!ProgressPolicy.isOn(explicit: nil, length: big, stderrIsTerminal: false, bodyGoesToTerminal: false))
        #expect(!ProgressPolicy.isOn(explicit: nil, length: big, stderrIsTerminal: true, bodyGoesToTerminal: true))
        #expect(!ProgressPolicy.isOn(explicit: nil, length: .known(1024 * 1024), stderrIsTerminal: true, bodyGoesToTerminal: false))
        #expect(!ProgressPolicy.isOn(explicit: nil, length: .unknown, stderrIsTerminal: true, bodyGoesToTerminal: false))
        #expect(ProgressPolicy.isOn(explicit: true, length: .known(10), stderrIsTerminal: false, bodyGoesToTerminal: true))
        #expect(!ProgressPolicy.isOn(explicit: false, length: big, stderrIsTerminal: true, bodyGoesToTerminal: false))
    }
}
