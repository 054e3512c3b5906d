"""SQL that finds and repairs stored dates outside the range Python reads (``core.versions.ACCEPTED_RANGE``).

Postgres keeps ``timestamptz`` values from 4713 BC on; psycopg reads back years 1 to 9999 only, so one such date in
a collection made every read of it fail. Dates are checked before they are written; a row written before that
check is repaired by clamping each such date to the nearest edge of the range: clamping keeps every document's
versions in date order (a version's ``valid_to`` is the next one's ``valid_from``, clamped alike), where a NULL
would reopen a closed version. ``%(earliest)s`` and ``%(latest)s`` are the edges.
"""

from __future__ import annotations


def _outside(column: str) -> str:
    return f"({column} < %(earliest)s::timestamptz OR {column} > %(latest)s::timestamptz)"


def _clamped(column: str) -> str:
    return (f"{column} = CASE WHEN {column} < %(earliest)s::timestamptz THEN %(earliest)s::timestamptz "
            f"WHEN {column} > %(latest)s::timestamptz THEN %(latest)s::timestamptz ELSE {column} END")


_VERSION_DATES = ("valid_from", "valid_to", "retired_at")
_VERSION_OUTSIDE = " OR ".join(_outside(c) for c in _VERSION_DATES)

VERSIONS_TABLE_EXISTS = "SELECT to_regclass('hke_document_versions') IS NOT NULL"

# The collections whose versions hold such a date (the rows of a version share its dates, so the versions tell).
COLLECTIONS_TO_REPAIR = f"""
SELECT DISTINCT v.collection_id, c.name FROM hke_document_versions v JOIN hke_collections c ON c.id = v.collection_id
WHERE {_VERSION_OUTSIDE} ORDER BY c.name
"""  # noqa: S608 - fixed fragments, no user text

NEEDS_REPAIR = f"""
SELECT EXISTS (SELECT 1 FROM hke_document_versions WHERE collection_id = %(collection_id)s AND ({_VERSION_OUTSIDE}))
"""  # noqa: S608 - fixed fragments, no user text

REPAIR_VERSIONS = f"""
UPDATE hke_document_versions SET {", ".join(_clamped(c) for c in _VERSION_DATES)}
WHERE collection_id = %(collection_id)s AND ({_VERSION_OUTSIDE})
"""  # noqa: S608 - fixed fragments, no user text

REPAIR_ELEMENTS = f"UPDATE {{elements}} SET {_clamped('valid_from')} WHERE {_outside('valid_from')}"  # noqa: S608

REPAIR_HISTORY = f"""
UPDATE {{history}} SET {_clamped('valid_from')}, {_clamped('valid_to')}
WHERE {_outside('valid_from')} OR {_outside('valid_to')}
"""  # noqa: S608 - fixed fragments, no user text
