import CourierCore
import FoundationEssentials

extension Session {
    /// A session whose TLS servers are judged by `securityPolicy` during the handshake (it becomes the
    /// configuration's ``CourierCore/SessionConfiguration/trustEvaluator``).
    ///
    /// ```swift
    /// let session = try Session(configuration: SessionConfiguration(baseURL: URL(string: "https://api.example.com")),
    ///                           transport: try CurlTransport(), securityPolicy: policy)
    /// ```
    /// - Throws: ``SecurityPolicyError`` when the policy pins and the base URL is not https (or absent),
    ///   as AFNetworking's `AFHTTPSessionManager` refuses it (checklist item 87).
    public convenience init(
        configuration: SessionConfiguration = SessionConfiguration(),
        transport: any Transport,
        securityPolicy: SecurityPolicy
    ) throws(SecurityPolicyError) {
        try securityPolicy.validate(forBaseURL: configuration.baseURL)
        var configuration = configuration
        configuration.trustEvaluator = securityPolicy
        self.init(configuration: configuration, transport: transport)
    }
}
