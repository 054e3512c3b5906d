"""What the pages draw, kept out of the library (``core/`` holds no HTML, plotly or pyvis).

Two kinds of module live here:

- pure builders the tests call directly, without Streamlit: :mod:`views.network` (the community network, pyvis
  through our own Jinja template in ``views/templates``), :mod:`views.hierarchy` (the plotly sunburst),
  :mod:`views.tree` (a document's element tree), :mod:`views.charts` (latency and evaluation charts),
  :mod:`views.reports` (report search, sort and exports) and :mod:`views.answers` (cited answers as markdown);
- Streamlit pieces the pages share: :mod:`views.ui` (cached resources, the sidebar, empty states) and
  :mod:`views.report_parts` (the parts of the Community reports page).

Document text is untrusted everywhere here: HTML comes only out of autoescaping Jinja templates, markdown through
``escape_markdown``, plotly text through ``html.escape``.
"""
