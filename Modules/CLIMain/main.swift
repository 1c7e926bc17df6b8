import CourierCLI
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// `courier`'s entry point. Everything else is in the CourierCLI library (Modules/CLI).
exit(await CourierMain.run(Array(CommandLine.arguments.dropFirst())))
