"""Markdown → HTML for information pages, with a table of contents and anchors.

Headings are Markdown's (`#`, `##`, …) and also the community's 【…】 lines: a line that
starts with 【 and has its 】 becomes a heading one level below the last Markdown heading
(or a top-level section where there is none).

A run of 【…】 lines with no text between them is the page's own list of contents (the
customer's pages open with one): it becomes a list of links to the sections of the same
titles, and only the sections are headings. The last line of such a run, when text follows
it at once, is also the first section's heading.

The HTML is sanitised (nh3): an admin's raw HTML keeps headings, links, lists and tables,
and loses scripts, event handlers and `javascript:` links.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from html import unescape

import markdown
import nh3
from markdown.extensions.toc import slugify_unicode

_HEADING = re.compile(r"^(#{1,6})\s")
_BRACKET = re.compile(r"^(【[^】]+】).*$")
_FENCE = re.compile(r"^(```|~~~)")

_TAGS = nh3.ALLOWED_TAGS | {"h1", "h2", "h3", "h4", "h5", "h6", "nav"}
_ATTRIBUTES = copy.deepcopy(nh3.ALLOWED_ATTRIBUTES)
for _tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
    _ATTRIBUTES.setdefault(_tag, set()).add("id")


@dataclass(frozen=True)
class TocEntry:
    level: int  # 1 = top-level section of the page
    anchor: str
    title: str


@dataclass(frozen=True)
class Rendered:
    html: str
    toc: list[TocEntry]


@dataclass
class _Line:
    text: str
    bracket: str | None  # the 【…】 of a bracket line
    fenced: bool


def _lines(text: str) -> list[_Line]:
    out, fenced = [], False
    for line in text.splitlines():
        stripped = line.strip()
        if _FENCE.match(stripped):
            fenced = not fenced
            out.append(_Line(line, None, True))
            continue
        m = None if fenced else _BRACKET.match(stripped)
        out.append(_Line(line, m.group(1) if m else None, fenced))
    return out


def _contents_runs(lines: list[_Line]) -> dict[int, bool]:
    """Indices of bracket lines that belong to a list of contents → whether the line is
    also a section heading (the run's last line with text right after it)."""
    runs: dict[int, bool] = {}
    i = 0
    while i < len(lines):
        if lines[i].bracket is None:
            i += 1
            continue
        run = [i]
        j = i + 1
        while j < len(lines) and (lines[j].bracket is not None or not lines[j].text.strip()):
            if lines[j].bracket is not None:
                run.append(j)
            j += 1
        if len(run) >= 2:
            last = run[-1]
            texted = last + 1 < len(lines) and bool(lines[last + 1].text.strip())
            for k in run:
                runs[k] = k == last and texted
        i = j
    return runs


def bracket_headings(text: str) -> str:
    """Turn 【…】 lines into Markdown headings, and a run of them into a linked list of
    contents, leaving code blocks alone."""
    lines = _lines(text)
    runs = _contents_runs(lines)
    anchors: dict[str, str] = {}  # a section's 【…】 → its anchor
    used: set[str] = set()
    for i, line in enumerate(lines):
        if line.bracket and runs.get(i, True) and line.bracket not in anchors:
            anchor = slugify_unicode(line.bracket.strip("【】"), "-") or "section"
            while anchor in used:
                anchor += "-"
            used.add(anchor)
            anchors[line.bracket] = anchor
    out: list[str] = []
    level, seen_heading = 1, False  # the last Markdown heading's level (# = 1)
    for i, line in enumerate(lines):
        stripped = line.text.strip()
        if not line.fenced and (m := _HEADING.match(stripped)):
            level, seen_heading = len(m.group(1)), True
        if line.bracket is None:
            out.append(line.text)
            continue
        if i in runs:
            if out and out[-1].strip() and not out[-1].startswith("- "):
                out.append("")  # a list begins only after a blank line
            title = _escape_link_text(stripped)
            anchor = anchors.get(line.bracket)
            out.append(f"- [{title}](#{anchor})" if anchor else f"- {title}")
            if not runs[i]:
                continue
            out.append("")
        depth = min(level + 1, 6) if seen_heading else 1
        out.extend(["", f"{'#' * depth} {stripped} {{: #{anchors[line.bracket]} }}", ""])
    return "\n".join(out)


def _escape_link_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def render(text: str) -> Rendered:
    """The page body (headings shifted so that `#` is an <h2>) and its table of contents."""
    md = markdown.Markdown(
        extensions=["toc", "tables", "sane_lists", "nl2br", "attr_list"],
        extension_configs={"toc": {"slugify": slugify_unicode, "baselevel": 2, "permalink": False}},
    )
    html = nh3.clean(md.convert(bracket_headings(text)), tags=_TAGS, attributes=_ATTRIBUTES)
    toc: list[TocEntry] = []

    def walk(tokens: list[dict], depth: int) -> None:
        for token in tokens:
            toc.append(TocEntry(depth, token["id"], _plain(token["name"])))
            walk(token.get("children", []), depth + 1)

    walk(md.toc_tokens, 1)  # type: ignore[attr-defined]
    return Rendered(html=html, toc=toc)


def _plain(name: str) -> str:
    """toc_tokens names carry HTML entities; the template escapes again."""
    return unescape(name)
