@testable import CourierCLI
import CourierCore

/// The CLI's request items (`RequestItem.parse`, `ItemName.parse`, `ParameterTree`): any set of arguments
/// ends in parameters or a `CLIError`, never a crash. An item splits at a separator that really is in the
/// argument, its name never contains an unescaped separator, and `name:=json` values go through the JSON
/// value parser. Arguments are the input's lines.
enum CLIItemFuzz: FuzzTarget {
    static let name = "cli-item"

    static func run(_ input: FuzzInput) {
        let repetition: ParameterTree.Repetition = input.bool() ? .array : .set
        var tree = ParameterTree()
        for line in input.restSplit(at: 0x0A).prefix(64) {
            let argument = String(decoding: line, as: UTF8.self)
            let item: RequestItem
            do {
                item = try RequestItem.parse(argument)
            } catch {
                continue
            }
            precondition(item.argument == argument, "the item forgot its argument")
            precondition(!item.rawName.isEmpty, "an item with an empty name")
            precondition(argument.hasPrefix(item.rawName), "the name \(item.rawName) is not the argument's start")
            precondition(argument.hasSuffix(item.value), "the value \(item.value) is not the argument's end")
            _ = item.name
            guard item.kind == .data || item.kind == .rawJSON else { continue }
            let value: Parameters
            if item.kind == .rawJSON {
                guard let parsed = try? RawJSONValue.parse(item.value) else { continue }
                value = parsed
            } else {
                value = .string(item.value)
            }
            guard let name = try? ItemName.parse(item.rawName, item: argument) else { continue }
            try? tree.insert(value, at: name, item: argument)
        }
        _ = tree.parameters(repeatedNamesAs: repetition)
    }
}
