"""Versions of a document: stable element keys across versions, element-by-element diffs, and valid-from dates.

Pure functions over lists of :class:`core.elements.Element`; nothing here reads or writes the store.
"""

from core.versions.dates import (
    ACCEPTED_RANGE,
    DateError,
    ValidFrom,
    check_date_range,
    check_not_before,
    parse_date,
    resolve_valid_from,
    version_as_of,
)
from core.versions.diff import Change, as_json, diff_elements, word_diff
from core.versions.matching import ElementMatch, VersionMatch, match_versions, normalize_text

__all__ = [
    "ACCEPTED_RANGE",
    "Change",
    "DateError",
    "ElementMatch",
    "ValidFrom",
    "VersionMatch",
    "as_json",
    "check_date_range",
    "check_not_before",
    "diff_elements",
    "match_versions",
    "normalize_text",
    "parse_date",
    "resolve_valid_from",
    "version_as_of",
    "word_diff",
]
