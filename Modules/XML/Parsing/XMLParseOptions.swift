/// How CourierXML parses: the few choices that are safe to offer.
///
/// What is never offered: entity expansion, loading an external DTD or entity, network access,
/// DTD default attributes, validation, XInclude, lifting libxml2's size limits
/// (`XML_PARSE_HUGE`). See docs/xml.md.
///
/// ```swift
/// var options = XMLParseOptions()
/// options.allowsExternalDTDReference = true   // accept <!DOCTYPE x SYSTEM "x.dtd">; it is still never loaded
/// let document = try XMLDocument(data: body, options: options)
/// ```
public struct XMLParseOptions: Sendable, Hashable {
    /// Whether a document type declaration that names an external DTD
    /// (`<!DOCTYPE html PUBLIC "…" "http://…">`) is accepted. The DTD is never fetched either way;
    /// when accepted, a reference to an entity only that DTD could declare (`&nbsp;`) is still
    /// refused, since it cannot be resolved. Default `false`: refused with
    /// ``XMLError/Reason/externalEntityRefused``.
    public var allowsExternalDTDReference: Bool

    /// Options; the defaults refuse everything external.
    public init(allowsExternalDTDReference: Bool = false) {
        self.allowsExternalDTDReference = allowsExternalDTDReference
    }
}
