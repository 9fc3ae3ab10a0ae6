"""Markdown for task descriptions and comments, rendered so that nothing a person
typed runs or fetches anything (docs/tasks.md#markdown).

- Raw HTML is off: ``<script>`` and ``<img onerror=...>`` come out as text.
- Images are off: ``![x](http://...)`` never becomes an ``<img>``, so neither a
  browser nor the PDF renderer fetches a URL a user typed.
- Links are kept only for ``http``, ``https`` and ``mailto``; anything else
  (``javascript:``, ``data:``, relative paths) stays plain text. Kept links carry
  ``rel="nofollow noopener noreferrer"``.
- Bare ``http(s)://`` URLs become links (linkify), through the same scheme check and
  rel; ``www.example.com`` and bare email addresses stay text (no fuzzy guessing), so
  a typed word is never turned into a link someone did not write.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markupsafe import Markup, escape

from workspace.core.mentions import MENTION

#: The only link schemes kept.
SAFE_SCHEMES = ("http://", "https://", "mailto:")
LINK_REL = "nofollow noopener noreferrer"


def _validate_link(url: str) -> bool:
    return url.strip().lower().startswith(SAFE_SCHEMES)


def _link_open(self, tokens, idx, options, env):
    tokens[idx].attrSet("rel", LINK_REL)
    return self.renderToken(tokens, idx, options, env)


def _split_mentions(token: Token) -> list[Token]:
    """``token`` (inline text) as text and ``mention`` tokens."""
    out: list[Token] = []
    at = 0
    for found in MENTION.finditer(token.content):
        if found.start() > at:
            out.append(_text(token.content[at : found.start()]))
        mention = Token("mention", "", 0)
        mention.content = found.group(1).rstrip(".")
        out.append(mention)
        at = found.start() + 1 + len(mention.content)
    if at < len(token.content):
        out.append(_text(token.content[at:]))
    return out


def _text(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token


def _mentions(state: StateCore) -> None:
    """@handles in running text become ``mention`` tokens, so a reader sees who was
    called in; text inside links and code is left as it is."""
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        children: list[Token] = []
        in_link = 0
        for child in block.children:
            in_link += {"link_open": 1, "link_close": -1}.get(child.type, 0)
            if child.type == "text" and not in_link and "@" in child.content:
                children.extend(_split_mentions(child))
            else:
                children.append(child)
        block.children = children


def _mention(self, tokens, idx, options, env) -> str:
    return f'<span class="mention">@{escape(tokens[idx].content)}</span>'


def _build() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": True, "typographer": False})
    md.disable(["image", "html_inline", "html_block"])
    md.enable(["table", "strikethrough", "linkify"])
    md.linkify.set({"fuzzy_link": False, "fuzzy_email": False})
    md.validateLink = _validate_link
    md.add_render_rule("link_open", _link_open)
    # After linkify, so an address it made a link stays one.
    md.core.ruler.push("mentions", _mentions)
    md.add_render_rule("mention", _mention)
    return md


_MD = _build()


def render_markdown(text: str | None) -> Markup:
    """Safe HTML for ``text`` (an empty string for nothing)."""
    if not text:
        return Markup("")
    return Markup(_MD.render(text))  # raw HTML off, links and images vetted above
