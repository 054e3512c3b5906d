"""A default stated in the parenthesis after an option's name, with its type: "`template` (string, default
`treemap`) - Which diagram type to use", "`projectRoot` (string | RegExp, default `process.cwd()`) - …" (a plugin's
README lists its options so). Read by ``core.statements``' ``statement`` and ``states_default``."""

from __future__ import annotations

import re

__all__ = ["paren_default"]

# The value runs to the parenthesis's close, so it may hold spaces and a call's "()" (the words after "default" in
# such a parenthesis are the value, not prose). "default" opens the parenthesis or a comma-separated part of it:
# "(see the default list)" states none.
_PAREN_DEFAULT = re.compile(r"\((?:(?:[^()\n]|\(\))*?[,;]\s*)?default\s+(?P<value>(?:[^()\n]|\(\))+?)\)", re.I)
# Only right after the name the text opens with: a parenthesis further in is prose ("… (default on Windows) …").
_NAMED_PAREN = re.compile(r"^\s*(?:[-*+]\s+)?`?[A-Za-z_$][\w$.]*`?\s*(?=\()")


def paren_default(text: str) -> re.Match[str] | None:
    """The parenthesis stating the default of the name ``text`` opens with (its ``value`` group), or None."""
    named = _NAMED_PAREN.match(text)
    return _PAREN_DEFAULT.match(text, named.end()) if named else None
