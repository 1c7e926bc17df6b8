import CourierCore

extension XMLError: CourierErrorKindProviding {
    /// ``CourierError/Kind/tooLarge`` for a body past its bound, ``CourierError/Kind/serializationFailed``
    /// for anything else (a malformed, truncated or refused document).
    public var courierErrorKind: CourierError.Kind {
        reason == .tooLarge ? .tooLarge : .serializationFailed
    }
}
