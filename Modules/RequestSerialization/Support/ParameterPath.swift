/// Where a writer is in a ``CourierCore/Parameters`` tree, for error messages:
/// `parameters["user"]["tags"][0]`.
struct ParameterPath: CustomStringConvertible {
    private enum Component {
        case key(String)
        case index(Int)
    }

    private var components: [Component] = []

    /// Steps into the value under `key`.
    mutating func push(key: String) { components.append(.key(key)) }

    /// Steps into the element at `index`.
    mutating func push(index: Int) { components.append(.index(index)) }

    /// Steps back out.
    mutating func pop() { components.removeLast() }

    /// `parameters` followed by a subscript per step.
    var description: String {
        var text = "parameters"
        for component in components {
            switch component {
            case .key(let key): text += "[\"\(key)\"]"
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }
}
