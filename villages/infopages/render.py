"""Markdown → HTML for information pages, with a table of contents and anchors.

Headings are Markdown's (`#`, `##`, …) and also the community's 【…】 lines: a line
that starts with 【 and has its 】 becomes a heading one level below the last
Markdown heading (or a top-level section where there is none).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import markdown
from markdown.extensions.toc import slugify_unicode

_HEADING = re.compile(r"^(#{1,6})\s")
_BRACKET = re.compile(r"^【[^】]+】.*$")
_FENCE = re.compile(r"^(```|~~~)")


@dataclass(frozen=True)
class TocEntry:
    level: int  # 1 = top-level section of the page
    anchor: str
    title: str


@dataclass(frozen=True)
class Rendered:
    html: str
    toc: list[TocEntry]


def bracket_headings(text: str) -> str:
    """Turn 【…】 lines into Markdown headings, leaving code blocks alone."""
    out: list[str] = []
    level = 1  # the last Markdown heading's level (# = 1)
    seen_heading = False
    fenced = False
    for line in text.splitlines():
        stripped = line.strip()
        if _FENCE.match(stripped):
            fenced = not fenced
        if not fenced:
            if m := _HEADING.match(stripped):
                level, seen_heading = len(m.group(1)), True
            elif _BRACKET.match(stripped):
                depth = min(level + 1, 6) if seen_heading else 1
                out.extend(["", "#" * depth + " " + stripped, ""])
                continue
        out.append(line)
    return "\n".join(out)


def render(text: str) -> Rendered:
    """The page body (headings shifted so that `#` is an <h2>) and its table of contents."""
    md = markdown.Markdown(
        extensions=["toc", "tables", "sane_lists", "nl2br"],
        extension_configs={"toc": {"slugify": slugify_unicode, "baselevel": 2, "permalink": False}},
    )
    html = md.convert(bracket_headings(text))
    toc: list[TocEntry] = []

    def walk(tokens: list[dict], depth: int) -> None:
        for token in tokens:
            toc.append(TocEntry(depth, token["id"], _plain(token["name"])))
            walk(token.get("children", []), depth + 1)

    walk(md.toc_tokens, 1)  # type: ignore[attr-defined]
    return Rendered(html=html, toc=toc)


def _plain(name: str) -> str:
    """toc_tokens names carry HTML entities; the template escapes again."""
    import html

    return html.unescape(name)
