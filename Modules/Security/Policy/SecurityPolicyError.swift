import FoundationEssentials

/// A security policy cannot be used where it was asked for: AFNetworking's "Invalid Security Policy"
/// exception, as a typed error.
public struct SecurityPolicyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// AFNetworking's exception name, `Invalid Security Policy`.
    public var name: String
    /// AFNetworking's reason, word for word.
    public var reason: String

    /// An error.
    public init(name: String = "Invalid Security Policy", reason: String) {
        self.name = name
        self.reason = reason
    }

    /// `Invalid Security Policy: <reason>`.
    public var description: String { "\(name): \(reason)" }
}

extension SecurityPolicy {
    /// Checks that this policy may serve a session with `baseURL`: a pinning policy needs a base URL
    /// whose scheme is https (AFNetworking's `AFHTTPSessionManager` guard, checklist item 87). A policy
    /// without pinning is accepted with any base URL.
    /// - Throws: ``SecurityPolicyError`` with AFNetworking's reason.
    public func validate(forBaseURL baseURL: URL?) throws(SecurityPolicyError) {
        guard pinningMode != .none, baseURL?.scheme?.lowercased() != "https" else { return }
        throw SecurityPolicyError(
            reason: "A security policy configured with `\(pinningMode.afName)` can only be applied on a manager with a secure base URL (i.e. https)"
        )
    }
}
