import ArgumentParser
import CourierCurl

/// `courier`'s command line: picks the command, parses its arguments, runs it, and turns every
/// outcome into an exit status and at most a one-line error (CLI.md's format).
///
/// It lives in the `CourierCLI` library rather than in the executable so that the tests and the fuzz
/// targets (Tests/Fuzz) can reach the parsers behind it; the `courier` executable (Modules/CLIMain)
/// only calls `run` and exits.
package enum CourierMain {
    /// Runs `courier` with `arguments` (without the program name) and returns the exit status. Every
    /// transport is shut down before it returns, so the caller may `exit` at once.
    package static func run(_ arguments: [String]) async -> Int32 {
        let status: Int32
        if arguments.first == "reachability" {
            switch parse(ReachabilityCommand.self, Array(arguments.dropFirst())) {
            case .command(let command): status = await ReachabilityRunner(command: command).run()
            case .exit(let code): status = code
            }
        } else if arguments.first == "tour" {
            switch parse(TourCommand.self, Array(arguments.dropFirst())) {
            case .command(let command): status = await TourRunner(command: command).run()
            case .exit(let code): status = code
            }
        } else {
            switch parse(RequestCommand.self, arguments) {
            case .command(let command): status = await RequestRunner(command: command).run()
            case .exit(let code): status = code
            }
        }
        // Every transport's thread ends, closing its TLS connections, before `exit` runs OpenSSL's
        // clean-up: a thread still inside OpenSSL then could crash the process after its work was done.
        await CurlTransport.shutdownAll()
        // Output the commands did not check themselves (help, the tour, reachability) that could not be written
        // fails the run all the same; a failure already reported left a status other than 0.
        if status == ExitStatus.success {
            do throws(CLIError) {
                try Console.checkOutput()
            } catch {
                report(error)
                return ExitStatus.failure
            }
        }
        return status
    }

    /// A parsed command, or the status to exit with at once.
    enum Parsed<Command> {
        case command(Command)
        case exit(Int32)
    }

    /// Parses `arguments` as `Command`. Help and `--version` print to stdout and exit 0; a parse
    /// error prints `courier: error: …` and exits 1.
    static func parse<Command: ParsableCommand>(_ type: Command.Type, _ arguments: [String]) -> Parsed<Command> {
        do {
            return .command(try Command.parse(arguments))
        } catch {
            if Command.exitCode(for: error) == .success {
                Console.out(Command.fullMessage(for: error) + "\n")
                return .exit(ExitStatus.success)
            }
            let message = Command.message(for: error)
                .split(separator: "\n").first.map(String.init) ?? "invalid arguments"
            report(CLIError(
                message.hasPrefix("Error: ") ? String(message.dropFirst(7)) : message,
                hint: "see 'courier\(subcommandName(Command.self)) --help'"
            ))
            return .exit(ExitStatus.failure)
        }
    }

    /// " tour" or " reachability" for a subcommand, "" for the request command.
    static func subcommandName<Command: ParsableCommand>(_ type: Command.Type) -> String {
        type == RequestCommand.self ? "" : " " + (type.configuration.commandName ?? "")
    }

    /// Prints `error`'s report lines on stderr, escaped when stderr is a terminal.
    static func report(_ error: any Error) {
        let terminal = Console.Stream.error.isTerminal
        for line in ErrorReport.lines(for: error, terminal: terminal) { Console.errorLine(line) }
    }
}
