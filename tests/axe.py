"""axe-core in the browser tests, one way: injected over the DevTools protocol (which
the pages' Content-Security-Policy does not block), its serious and critical findings
as one line each (tests/browser_assets/README.md). A test module may not import
another, so the browser tests share this instead of each keeping a copy."""

from __future__ import annotations

from pathlib import Path

AXE = Path(__file__).resolve().parent / "browser_assets" / "axe.min.js"
#: The impacts that fail a page.
BLOCKING = ("serious", "critical")


def axe_problems(page, *, injected: bool = False) -> list[str]:
    """The page's serious and critical findings, each with up to four of its nodes;
    ``injected``: the context already loads axe into every page (an init script), which
    saves sending it each time."""
    if not injected:
        page.evaluate(AXE.read_text(encoding="utf-8"))
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{v['impact']} {v['id']}: {v['help']} -> "
        + "; ".join(str(n["target"]) for n in v["nodes"][:4])
        for v in result["violations"]
        if v["impact"] in BLOCKING
    ]


def check_page(page, width: int) -> None:
    """At ``width`` px: no blocking axe finding, and no sideways scroll (a phone's 390
    px included)."""
    page.set_viewport_size({"width": width, "height": 900})
    page.wait_for_load_state("networkidle")
    assert axe_problems(page) == []
    scroll = page.locator("html").evaluate("el => el.scrollWidth")
    assert scroll <= width, f"the page scrolls sideways at {width} px ({scroll})"
