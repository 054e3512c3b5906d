"""Our HTML pages (the document tree, the community network) in an iframe sandboxed with ``allow-scripts`` only.

``st.iframe`` and ``components.html`` give every frame ``allow-scripts allow-same-origin`` (and popups, forms,
downloads): with both, a frame's script runs with the app's origin and could remove its own sandbox, and Chromium
warns about exactly that. Our pages need scripts (vis.js, scrolling to a hit) but nothing of the app's origin: no
cookies, storage, or parent access. So a small component of our own (trusted, static code; the page travels only as
data, assigned to ``srcdoc``) creates the frame with ``sandbox="allow-scripts"``: an opaque origin, no popups, no
top navigation, no forms.

A page may ask for one rerun once its frame has loaded (``rerun_when_loaded``): the component listens to the
``load`` event of its own ``<iframe>`` element, so nothing travels from the sandboxed page to the app.
"""

from __future__ import annotations

import streamlit as st

SANDBOX = "allow-scripts"

_JS = """
export default function ({ parentElement, data, setTriggerValue }) {
  let frame = parentElement.querySelector("iframe");
  if (!frame) {
    frame = document.createElement("iframe");
    frame.setAttribute("sandbox", "SANDBOX");
    frame.style.width = "100%";
    frame.style.border = "0";
    frame.addEventListener("load", () => {
      const onLoad = frame.hkeOnLoad;
      frame.hkeOnLoad = null;
      if (onLoad) { onLoad(); }
    });
    parentElement.appendChild(frame);
  }
  frame.setAttribute("title", data.title);
  frame.style.height = data.height + "px";
  const loaded = () => setTriggerValue("loaded", true);
  if (frame.srcdoc !== data.html) {
    frame.hkeOnLoad = data.rerun_when_loaded ? loaded : null;
    frame.srcdoc = data.html;
  } else if (data.rerun_when_loaded) {
    loaded();  // this page is already in the frame
  }
}
""".replace("SANDBOX", SANDBOX)

_component = st.components.v2.component("hke_sandboxed_page", js=_JS)


def _ignore() -> None:
    """The rerun is what a load trigger is for; nothing to do in the callback."""


def sandboxed_page(html: str, *, height: int, title: str, key: str, rerun_when_loaded: bool = False) -> None:
    """Show ``html`` (a whole page built by an autoescaping template) in a frame of ``height`` pixels.

    ``title`` names the frame for screen readers (and for tests: ``iframe[title=…]``). With ``rerun_when_loaded``,
    the script reruns once the frame has loaded ``html`` (its scripts have run).
    """
    # A fixed height: a frame that grows after layout would move what the user is about to click.
    data = {"html": html, "height": int(height), "title": title, "rerun_when_loaded": rerun_when_loaded}
    _component(data=data, key=key, height=int(height), on_loaded_change=_ignore)
