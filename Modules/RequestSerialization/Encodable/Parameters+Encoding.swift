import CourierCore

extension Parameters {
    /// The parameter tree of any `Encodable` value, by `encoder`'s strategies.
    ///
    /// ```swift
    /// struct Page: Encodable { let number: Int; let size: Int }
    /// let parameters = try Parameters(encoding: Page(number: 2, size: 50))   // ["number": 2, "size": 50]
    /// ```
    ///
    /// - Throws: what ``ParametersEncoder/encode(_:)`` throws.
    public init<Value: Encodable>(encoding value: Value, with encoder: ParametersEncoder = ParametersEncoder()) throws {
        self = try encoder.encode(value)
    }
}
