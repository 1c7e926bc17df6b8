/// `camelCase` names to `snake_case` (``ParametersEncoder/KeyEncodingStrategy/convertToSnakeCase``).
///
/// A word starts at a capital that follows a non-capital (`userName` → `user_name`, `a1B` →
/// `a1_b`), or at the last capital of a run when a lowercase letter follows it
/// (`myURLValue` → `my_url_value`); then everything is lowercased. Underscores already there
/// are kept. This matches `JSONEncoder`'s `convertToSnakeCase` on the usual names.
enum SnakeCase {
    static func convert(_ name: String) -> String {
        let characters = Array(name)
        guard characters.contains(where: \.isUppercase) else { return name }
        var result = ""
        result.reserveCapacity(name.utf8.count + 4)
        for index in characters.indices {
            let character = characters[index]
            if index > 0, character.isUppercase, startsWord(at: index, in: characters) {
                result.append("_")
            }
            result.append(contentsOf: character.lowercased())
        }
        return result
    }

    /// True when the capital at `index` starts a word.
    private static func startsWord(at index: Int, in characters: [Character]) -> Bool {
        let previous = characters[index - 1]
        if previous == "_" { return false }
        if !previous.isUppercase { return true }
        let next = index + 1
        return next < characters.count && characters[next].isLowercase
    }
}
