import CourierCore
import CourierXML
import Foundation
import HTTPTypes

extension TourStep {
    /// CourierXML: the DOM with XPath, SAX events while the body arrives, and a refused attack.
    static func xml(server: String) -> TourStep {
        TourStep(
            title: "XML: DOM, XPath and streaming",
            explanation: "CourierXML parses with libxml2, safely by default: entity declarations, external entities and DTDs are refused, nothing is ever fetched. XMLDocumentResponseSerializer validates like AFNetworking's (application/xml or text/xml) and gives a document to query with XPath; XMLStream hands SAX events over while the body is still arriving, in constant memory. --pretty formats XML on the command line.",
            command: "courier --pretty \(server)/xml"
        ) { context in
            let session = context.session()
            let document = try await session.get("xml").value(using: XMLDocumentResponseSerializer())
            let titles = try document.xpath("//slide/title").nodes.map(\.stringValue)
            context.say("GET /xml → <\(document.root.name.localName)> with \(titles.count) slide titles by XPath: \(titles.joined(separator: " | "))")
            guard titles.contains("Overview") else { throw TourFailure("the XPath query found \(titles)") }

            let response = try await session.send(try context.request("/xml"))
            var elements = 0
            try await XMLStream.parse(response) { event in
                if case .startElement = event { elements += 1 }
            }
            context.say("the same document streamed: \(elements) start-element events")

            let bomb = Data(#"<?xml version="1.0"?><!DOCTYPE b [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><b>&b;</b>"#.utf8)
            do {
                _ = try XMLDocument(data: bomb)
                throw TourFailure("an entity-expansion document was accepted")
            } catch let error as XMLError {
                context.say("an entity-expansion (billion laughs) document is refused: \(error)")
            }
        }
    }
}
