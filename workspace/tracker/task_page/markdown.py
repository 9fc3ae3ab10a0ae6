"""Markdown for task descriptions and comments, rendered so that nothing a person
typed runs or fetches anything (docs/tasks.md#markdown).

- Raw HTML is off: ``<script>`` and ``<img onerror=...>`` come out as text.
- Images are off: ``![x](http://...)`` never becomes an ``<img>``, so neither a
  browser nor the PDF renderer fetches a URL a user typed.
- Links are kept only for ``http``, ``https`` and ``mailto``; anything else
  (``javascript:``, ``data:``, relative paths) stays plain text. Kept links carry
  ``rel="nofollow noopener noreferrer"``.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markupsafe import Markup

#: The only link schemes kept.
SAFE_SCHEMES = ("http://", "https://", "mailto:")
LINK_REL = "nofollow noopener noreferrer"


def _validate_link(url: str) -> bool:
    return url.strip().lower().startswith(SAFE_SCHEMES)


def _link_open(self, tokens, idx, options, env):
    tokens[idx].attrSet("rel", LINK_REL)
    return self.renderToken(tokens, idx, options, env)


def _build() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.disable(["image", "html_inline", "html_block"])
    md.enable(["table", "strikethrough"])
    md.validateLink = _validate_link
    md.add_render_rule("link_open", _link_open)
    return md


_MD = _build()


def render_markdown(text: str | None) -> Markup:
    """Safe HTML for ``text`` (an empty string for nothing)."""
    if not text:
        return Markup("")
    return Markup(_MD.render(text))  # raw HTML off, links and images vetted above
