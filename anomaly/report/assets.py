"""The files a report page is made of: BokehJS from the installed ``bokeh`` package, and the
report's own script and style sheet (``anomaly/report/static``).

Why Bokeh (``docs/report.md``): its two browser bundles are 1.4 MB together and ship inside the
``bokeh`` wheel, so a report embeds them and works offline; it draws on a canvas, which stays
fast with hundreds of charts of a year of points each, and has the hover, zoom, pan, band
(``varea``) and span annotations the charts need. (plotly.min.js alone is 4.8 MB: the demo
report could not stay under 5 MB.)
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from functools import cache
from pathlib import Path

from anomaly.errors import ConfigurationError

CHART_LIBRARY = ("bokeh.min.js", "bokeh-api.min.js")
"""BokehJS's core and its ``Bokeh.Plotting`` API, loaded in this order."""
SCRIPTS = ("core.js", "charts.js", "views.js")
STYLE = "report.css"
STATIC = Path(__file__).parent / "static"


@cache
def chart_library_dir() -> Path:
    """Where the installed ``bokeh`` package keeps its browser bundles."""
    spec = importlib.util.find_spec("bokeh")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigurationError(
            "the report draws its charts with BokehJS, shipped by the Python package 'bokeh': "
            "pip install bokeh"
        )
    folder = Path(next(iter(spec.submodule_search_locations))) / "server" / "static" / "js"
    missing = [name for name in CHART_LIBRARY if not (folder / name).is_file()]
    if missing:
        raise ConfigurationError(f"the bokeh package in {folder.parent.parent} lacks {missing}")
    return folder


def chart_library_version() -> str:
    """The installed bokeh version (shown in the report's footer)."""
    return importlib.metadata.version("bokeh")


@cache
def asset_bytes(name: str) -> bytes:
    """One asset by name: a chart library bundle or one of the report's own files.

    >>> asset_bytes("core.js").startswith(b"/* The report's helpers")
    True
    """
    if name in CHART_LIBRARY:
        return (chart_library_dir() / name).read_bytes()
    if name in (*SCRIPTS, STYLE):
        return (STATIC / name).read_bytes()
    raise KeyError(name)


def asset_names() -> tuple[str, ...]:
    """Every asset a page loads, scripts in load order, then the style sheet."""
    return (*CHART_LIBRARY, *SCRIPTS, STYLE)
