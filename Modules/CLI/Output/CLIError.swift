/// A failure of the command line itself, before or around the exchange: a bad argument, an
/// unreadable file, an item that makes no sense. It prints as `courier: error: <message>` and
/// exits with ``exitCode`` (1 unless said otherwise).
struct CLIError: Error, Equatable, CustomStringConvertible {
    /// What happened, one line.
    var message: String
    /// What to do about it, when there is something to say.
    var hint: String?
    /// The process's exit status.
    var exitCode: Int32

    init(_ message: String, hint: String? = nil, exitCode: Int32 = ExitStatus.failure) {
        self.message = message
        self.hint = hint
        self.exitCode = exitCode
    }

    var description: String { message }
}
