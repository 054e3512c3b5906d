"""Our HTML pages (the document tree, the community network) in an iframe sandboxed with ``allow-scripts`` only.

``st.iframe`` and ``components.html`` give every frame ``allow-scripts allow-same-origin`` (and popups, forms,
downloads): with both, a frame's script runs with the app's origin and could remove its own sandbox, and Chromium
warns about exactly that. Our pages need scripts (vis.js, scrolling to a hit) but nothing of the app's origin: no
cookies, storage, or parent access. So a small component of our own (trusted, static code; the page travels only as
data, assigned to ``srcdoc``) creates the frame with ``sandbox="allow-scripts"``: an opaque origin, no popups, no
top navigation, no forms.
"""

from __future__ import annotations

import streamlit as st

SANDBOX = "allow-scripts"

_JS = """
export default function ({ parentElement, data }) {
  let frame = parentElement.querySelector("iframe");
  if (!frame) {
    frame = document.createElement("iframe");
    frame.setAttribute("sandbox", "SANDBOX");
    frame.style.width = "100%";
    frame.style.border = "0";
    parentElement.appendChild(frame);
  }
  frame.setAttribute("title", data.title);
  frame.style.height = data.height + "px";
  if (frame.srcdoc !== data.html) {
    frame.srcdoc = data.html;
  }
}
""".replace("SANDBOX", SANDBOX)

_component = st.components.v2.component("hke_sandboxed_page", js=_JS)


def sandboxed_page(html: str, *, height: int, title: str, key: str) -> None:
    """Show ``html`` (a whole page built by an autoescaping template) in a frame of ``height`` pixels.

    ``title`` names the frame for screen readers (and for tests: ``iframe[title=…]``).
    """
    # A fixed height: a frame that grows after layout would move what the user is about to click.
    _component(data={"html": html, "height": int(height), "title": title}, key=key, height=int(height))
