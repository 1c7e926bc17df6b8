// courier-fuzz: every fuzz target of Courier in one libFuzzer binary. The target is named by the environment
// variable COURIER_FUZZ_TARGET (an environment variable rather than an argument because libFuzzer's -fork and
// -jobs modes start the binary again with their own arguments). Run it through Scripts/fuzz.sh.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// libFuzzer's entry point for a program that has its own `main` (SwiftPM names every executable's entry point
/// itself, so libFuzzer's `main` cannot be used).
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// One input to the selected target. Also libFuzzer's own entry point: its archive's `main` (which the linker
/// pulls in even though SwiftPM points `main` at this file) refers to it.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzTargets.selected?.run(FuzzInput(UnsafeRawBufferPointer(start: data, count: count)))
    return 0
}

let name = getenv("COURIER_FUZZ_TARGET").map { String(cString: $0) } ?? ""
guard let target = FuzzTargets.named(name) else {
    let names = FuzzTargets.all.map { $0.name }.joined(separator: " ")
    let message = "courier-fuzz: set COURIER_FUZZ_TARGET to one of: \(names)\n"
    _ = message.withCString { write(2, $0, strlen($0)) }
    exit(2)
}
FuzzTargets.selected = target

var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(runFuzzerDriver(&argc, &argv) { data, count in testOneInput(data, count) })
