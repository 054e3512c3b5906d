"""Front matter: the flat ``key: value`` lines of a leading ``---`` block, read the way the loader skips it."""

from __future__ import annotations


def parse_front_matter(text: str) -> dict[str, str]:
    """Return the ``key: value`` lines of a leading ``---`` front matter block, or ``{}``.

    Detection follows mdit-py-plugins' front matter rule (opening line of 3+ dashes at the very start,
    closed by a dash line at least as long or by ``...``), so a block the loader skips is exactly a block
    this reads. Only flat ``key: value`` lines are read (no PyYAML): nested/indented lines, list items and
    comments are ignored, and one pair of surrounding quotes is removed from values.
    """
    text = text.removeprefix("\ufeff")
    if not text.startswith("---"):
        return {}
    lines = text.splitlines()
    opening = lines[0].rstrip()
    marker_len = len(opening) - len(opening.lstrip("-"))
    if marker_len < 3:
        return {}
    body: list[str] | None = None
    for index in range(1, len(lines)):
        line = lines[index]
        stripped = line.strip()
        indent = len(line) - len(line.lstrip(" "))
        if line.startswith("...") and not line[3:].strip():
            body = lines[1:index]
            break
        if indent < 4 and stripped.startswith("-") and len(stripped) >= marker_len and not stripped.strip("-"):
            body = lines[1:index]
            break
    if body is None:  # unclosed: markdown-it does not treat it as front matter either
        return {}
    result: dict[str, str] = {}
    for line in body:
        if not line or line[0] in " \t#-" or ":" not in line:
            continue
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        if key:
            result[key] = value
    return result
