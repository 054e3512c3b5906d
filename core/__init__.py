"""Hierarchical Knowledge Explorer: the library under the app and the CLI.

Nothing in this package imports Streamlit; pages and the CLI are thin views over it.
"""

import os as _os

# unstructured and its dependencies phone home unless told not to; set before any of them imports.
_os.environ.setdefault("SCARF_NO_ANALYTICS", "true")
_os.environ.setdefault("DO_NOT_TRACK", "true")
_os.environ.setdefault("ANONYMIZED_TELEMETRY", "false")

__version__ = "0.1.0"
