import CourierCore

extension MultipartError: CourierErrorKindProviding {
    /// ``CourierError/Kind/fileFailed`` for a file part that cannot be read, ``CourierError/Kind/other``
    /// for a stream part that delivered another length than it announced (the request was under way),
    /// ``CourierError/Kind/invalidRequest`` for a form that cannot be sent as asked.
    public var courierErrorKind: CourierError.Kind {
        switch reason {
        case .fileNotReachable: .fileFailed
        case .lengthMismatch: .other
        default: .invalidRequest
        }
    }
}
