#!/usr/bin/env python3
"""Fails when a ```swift example of a guide in docs/ is not inside its test file.

Each guide's examples are copied into a test that compiles and runs them; this check keeps the
two from drifting apart. An example matches when its lines (leading and trailing spaces ignored)
appear one after another in the test file, its `import` lines anywhere in it (a test file imports at
its top, not inside the test).

Usage: check-doc-examples.py [ROOT]
"""
import re
import sys
from pathlib import Path

# guide → the test file that holds its examples
GUIDES = {
    "docs/multipart.md": "Tests/MultipartTests/DocExamplesTests.swift",
    "docs/parameters.md": "Tests/RequestSerializationTests/DocExamplesTests.swift",
    "docs/response-serialization.md": "Tests/ResponseSerializationTests/DocExamplesTests.swift",
    "docs/security.md": "Tests/SecurityTests/DocExamplesTests.swift",
    "docs/xml.md": "Tests/XMLTests/DocExamplesTests.swift",
    "docs/reachability.md": "Tests/ReachabilityTests/DocExamplesTests.swift",
    "docs/guide-middleware.md": "Tests/CoreTests/MiddlewareGuideTests.swift",
    "README.md": "Tests/GuideTests/ReadmeTests.swift",
    "docs/authentication.md": "Tests/AuthenticationTests/DocExamplesTests.swift",
    "docs/streaming.md": "Tests/StreamingTests/DocExamplesTests.swift",
    "docs/cookies.md": "Tests/CookiesTests/DocExamplesTests.swift",
    "docs/cache.md": "Tests/CacheTests/DocExamplesTests.swift",
    "docs/guide-transports.md": "Tests/CoreTests/TransportsGuideTests.swift",
    "docs/guide-modules.md": "Tests/GuideTests/ModulesGuideTests.swift",
    "docs/observability.md": "Tests/ObservabilityGuideTests/DocExamplesTests.swift",
    "docs/openapi.md": "Integration/Tests/IntegrationTests/OpenAPIClientTests.swift",
}


def swift_blocks(text):
    return re.findall(r"```swift\n(.*?)```", text, flags=re.S)


def normalized(lines):
    return [line.strip() for line in lines if line.strip()]


def contains(haystack, needle):
    width = len(needle)
    return any(haystack[i:i + width] == needle for i in range(len(haystack) - width + 1))


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    failures = []
    checked = 0
    for guide, test in GUIDES.items():
        guide_path, test_path = root / guide, root / test
        if not guide_path.exists():
            continue
        if not test_path.exists():
            failures.append(f"{guide}: its examples belong in {test}, which does not exist")
            continue
        test_lines = normalized(test_path.read_text().splitlines())
        for number, block in enumerate(swift_blocks(guide_path.read_text()), start=1):
            checked += 1
            lines = normalized(block.splitlines())
            # An example's imports open the test file, not the test that runs its code: they need only be there.
            imports = [line for line in lines if line.startswith("import ")]
            code = [line for line in lines if not line.startswith("import ")]
            if not all(line in test_lines for line in imports) or not contains(test_lines, code):
                first = normalized(block.splitlines())[:1]
                failures.append(f"{guide}: swift example {number} ({first[0] if first else 'empty'}…) is not in {test}")
    for failure in failures:
        print(f"check-doc-examples: {failure}", file=sys.stderr)
    if failures:
        return 1
    print(f"check-doc-examples: {checked} examples found in their tests")
    return 0


if __name__ == "__main__":
    sys.exit(main())
