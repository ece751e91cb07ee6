"""The report page: one HTML document, with its data and scripts inline (a self-contained file
that works offline) or its scripts loaded from the live UI's ``/assets/``.

The page holds no markup from data: the snapshot sits in a ``<script type="application/json">``
element (``encoding.script_json``) and the scripts build the DOM with text nodes only. The chart
colours and markers (``anomaly.chart_style``, shared with the PNG plots) sit in another.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from anomaly.chart_style import chart_style_json
from anomaly.report.assets import (
    CHART_LIBRARY,
    SCRIPTS,
    STYLE,
    asset_bytes,
    chart_library_version,
)
from anomaly.report.encoding import script_json
from anomaly.report.snapshot import collect_snapshot
from repository import MetricsRepository

_CLOSES_SCRIPT = re.compile(r"</script|<!--|<script", re.IGNORECASE)
# Inline scripts and styles are the page's own; nothing else may load or connect anywhere.
_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline'{self}; style-src 'unsafe-inline'{self}; "
    "img-src data: blob:{self}; connect-src 'none'; base-uri 'none'; form-action 'none'"
)


def render_page(snapshot: Mapping[str, Any], *, asset_base: str | None = None) -> str:
    """The report page for `snapshot`; scripts inline, or from ``asset_base`` (e.g.
    ``"/assets/"``) when given.

    Examples
    --------
    >>> page = render_page({"title": "<b>Orders</b>", "series": []}, asset_base="/assets/")
    >>> "<title>&lt;b&gt;Orders&lt;/b&gt;</title>" in page, '<script src="/assets/core.js">' in page
    (True, True)
    """
    title = html.escape(str(snapshot.get("title", "")))
    policy = _POLICY.format(self="" if asset_base is None else " 'self'")
    if asset_base is None:
        style = f"<style>{asset_bytes(STYLE).decode()}</style>"
        scripts = "\n".join(_inline(name) for name in (*CHART_LIBRARY, *SCRIPTS))
    else:
        base = html.escape(asset_base, quote=True)
        style = f'<link rel="stylesheet" href="{base}{STYLE}">'
        scripts = "\n".join(
            f'<script src="{base}{name}"></script>' for name in (*CHART_LIBRARY, *SCRIPTS)
        )
    footer = html.escape(f"anomaly report · charts drawn with Bokeh {chart_library_version()}")
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{policy}">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>{title}</title>
{style}
</head>
<body>
<header class="top">
<h1>{title}</h1><p class="subtitle" id="subtitle"></p><div id="nav"></div>
</header>
<noscript><p>This report draws its pages with JavaScript: please enable it.</p></noscript>
<main id="app"></main>
<footer>{footer}</footer>
<script type="application/json" id="chart-style">{script_json(chart_style_json())}</script>
<script type="application/json" id="report-data">{script_json(snapshot)}</script>
{scripts}
</body>
</html>
"""


def write_report(
    repo: MetricsRepository,
    output: str | os.PathLike[str],
    *,
    tags: Mapping[str, str] | None = None,
    title: str | None = None,
) -> Path:
    """Write the self-contained report of `repo` (runs whose tags include `tags`) to `output`
    (written to a temporary file first, then renamed: a reader never sees half a report).

    Examples
    --------
    >>> import tempfile
    >>> repo = MetricsRepository(":memory:")
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = write_report(repo, Path(folder) / "report.html")
    ...     path.stat().st_size > 1_000_000  # BokehJS is inside
    True
    """
    snapshot = collect_snapshot(repo, tags=tags, title=title)
    path = Path(output).expanduser().resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(render_page(snapshot), encoding="utf-8")
    partial.replace(path)
    return path


def _inline(name: str) -> str:
    text = asset_bytes(name).decode("utf-8")
    if _CLOSES_SCRIPT.search(text):
        raise ValueError(f"{name} contains a <script or <!-- sequence: it cannot be inlined")
    return f"<script>\n{text}\n</script>"
