"""The documentation runs: every code block of README.md and docs/*.md is a test.

Tool: Sybil (``sybil[pytest]``), chosen over pytest-markdown-docs because the pages need
- **one namespace per page**: a page's blocks build on each other as a reader reads them
  (Sybil's default; pytest-markdown-docs needs a ``continuation`` tag on every later block);
- **a per-page preamble**: an HTML comment ``<!-- invisible-code-block: python ... -->`` makes the
  small data a page's example reads, invisible on GitHub but run first (pytest-markdown-docs has
  only one global setup hook for all pages);
- **a skip that says why**: ``<!-- skip: next "needs a Kafka broker" -->`` reports the reason
  in pytest's output, and the page says the same in words;
- **pytest fixtures in the page**: ``spark`` is the suite's session-scoped local Spark (one JVM
  per test process), and ``doc_page`` a fresh working directory per page, so relative paths such
  as ``metrics.duckdb`` land in a temporary folder. A page whose code never names ``spark`` (nor
  ``build_session``) gets the folder without a JVM (``doc_folder``): it runs in the fast lane and
  starts no Spark; if it does start one, the page fails and says so.

What runs:
- ``python`` blocks run in the page's namespace, in order; a block that is a signature or an
  outline is tagged ``text``, not ``python``.
- ``yaml`` blocks are parsed; a block whose top-level keys are config-file keys, ``sources`` and
  ``scans`` among them, is a whole config and is validated with `anomaly.service.load_config`
  (with placeholder values for its ``${VARIABLES}``); the others are fragments of one.
- ``bash`` (shell commands), ``sql``, ``json`` and ``text`` blocks and untagged output blocks are
  not run: the commands are the CLI's, tested in tests/anomaly/test_cli.py and the service tests.

A page's blocks are one group for pytest-xdist (``--dist loadgroup`` in pyproject.toml; the
group is set in conftest.py), so one worker runs a whole page in order.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import yaml
from sybil import Document, Example, Region, Sybil
from sybil.integration.pytest import SybilItem
from sybil.parsers.markdown import CodeBlockParser, PythonCodeBlockParser, SkipParser

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ROOT = Path(__file__).resolve().parent.parent
PAGES = ("README.md", "docs/*.md")
RUN = {"python", "yaml"}
NOT_RUN = {"bash", "sql", "json", "text", ""}
FENCE = re.compile(r"^\s*```(\S*)\s*$", re.MULTILINE)
SKIP = re.compile(r"<!--\s*skip:\s*next(.*?)-->")
VARIABLE = re.compile(r"\$\{(\w+)")


def check_yaml(example: Example) -> None:
    """Parse a yaml block; validate it as a config file when it is a whole one."""
    from anomaly.service import load_config

    text = str(example.parsed)
    data = yaml.safe_load(text)
    whole = isinstance(data, dict) and {"sources", "scans"} <= set(data) <= config_keys()
    if not whole:
        return  # a fragment of a config (a scan, one key's value, a list of metrics)
    path = Path(os.getcwd()) / "docs-config.yml"
    path.write_text(text, encoding="utf-8")
    load_config(path, env={name: f"https://placeholder/{name}" for name in VARIABLE.findall(text)})


def config_keys() -> set[str]:
    from anomaly.service import ServiceConfig

    return set(ServiceConfig.model_fields)


PYTHON_CODE = re.compile(
    r"^```python\n(.*?)^```|<!--\s*invisible-code-block:\s*python(.*?)-->", re.MULTILINE | re.DOTALL
)
USES_SPARK = re.compile(r"\b(spark|build_session)\b")


def spark_pages() -> list[str]:
    """The pages whose Python blocks use Spark (by name), relative to the checkout."""
    return [
        str(page.relative_to(ROOT))
        for page in pages()
        if any(
            USES_SPARK.search(shown or hidden)
            for shown, hidden in PYTHON_CODE.findall(page.read_text(encoding="utf-8"))
        )
    ]


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


PARSERS: list[Callable[[Document], Iterable[Region]]] = [
    PythonCodeBlockParser(),
    CodeBlockParser("yaml", evaluator=check_yaml),
    SkipParser(),
]
SPARK_PAGES = spark_pages()
DOCS_ON_SPARK = Sybil(PARSERS, patterns=SPARK_PAGES, path=str(ROOT), fixtures=["spark", "doc_page"])
DOCS_WITHOUT_SPARK = Sybil(
    PARSERS, patterns=PAGES, excludes=SPARK_PAGES, path=str(ROOT), fixtures=["doc_folder"]
)


def sybil_of(page: Path) -> Sybil:
    return DOCS_ON_SPARK if str(page.relative_to(ROOT)) in SPARK_PAGES else DOCS_WITHOUT_SPARK


@pytest.fixture(scope="module")
def doc_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The working directory of a page without Spark; the page must not start one."""
    home = tmp_path_factory.mktemp("doc_page")
    running = spark_running()
    before = os.getcwd()
    os.chdir(home)
    try:
        yield home
    finally:
        os.chdir(before)
    if spark_running() and not running:
        pytest.fail(
            "this page started Spark without naming it: tests/test_docs.py runs a page on the "
            "suite's `spark` only when its code says `spark` or `build_session`"
        )


def spark_running() -> bool:
    pyspark = sys.modules.get("pyspark")
    return pyspark is not None and pyspark.SparkContext._active_spark_context is not None


@pytest.fixture(scope="module")
def doc_page(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A page's working directory; afterwards its streams, tables, views and settings are gone."""
    home = tmp_path_factory.mktemp("doc_page")
    tables = {table.name for table in spark.catalog.listTables()}
    settings = {key: str(spark.conf.get(key)) for key in ("spark.sql.shuffle.partitions",)}
    before = os.getcwd()
    os.chdir(home)
    # Spark resolves a relative path against its JVM's working directory, not Python's: point
    # the local file system there too, so "comments.parquet" is the page's file for both.
    jvm: Any = spark.sparkContext._jvm
    files = jvm.org.apache.hadoop.fs.FileSystem.getLocal(
        spark.sparkContext._jsc.hadoopConfiguration()
    )
    spark_before = files.getWorkingDirectory()
    files.setWorkingDirectory(jvm.org.apache.hadoop.fs.Path(str(home)))
    # Streaming checkpoints are resolved against the JVM's own working directory all the same
    # (Spark opens them through Hadoop's FileContext): what a page leaves there is removed, when
    # that is the temporary folder the `spark` fixture started the JVM in.
    spark_home = Path(jvm.java.lang.System.getProperty("user.dir"))
    ours = spark_home.is_relative_to(tmp_path_factory.getbasetemp())
    spark_home_before = set(spark_home.iterdir()) if ours else set()
    try:
        yield home
    finally:
        os.chdir(before)
        files.setWorkingDirectory(spark_before)
        for query in spark.streams.active:
            query.stop()
        for table in spark.catalog.listTables():
            if table.name in tables:
                continue
            if table.isTemporary:
                spark.catalog.dropTempView(table.name)
            else:
                spark.sql(f"DROP TABLE IF EXISTS `{table.name}`")
        for key, value in settings.items():
            spark.conf.set(key, value)
        for left in (set(spark_home.iterdir()) - spark_home_before) if ours else ():
            shutil.rmtree(left) if left.is_dir() else left.unlink()


_collect_with_sybil = (DOCS_ON_SPARK + DOCS_WITHOUT_SPARK).pytest()


def collect_page(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A documentation page as a test file (conftest.py keeps its blocks on one xdist worker,
    `doc_page_of`: they share the page's namespace)."""
    return _collect_with_sybil(file_path, parent)


def doc_page_of(item: pytest.Item) -> str | None:
    """The page (relative path) whose block `item` is, if it is one."""
    path = item.nodeid.split("::")[0]
    return path if isinstance(item, SybilItem) else None


def fences(text: str) -> list[str]:
    """The info string of every opening fence of a page."""
    tags, opening = [], True
    for match in FENCE.finditer(text):
        if opening:
            tags.append(match.group(1))
        opening = not opening
    return tags


@pytest.mark.parametrize("page", pages(), ids=lambda page: page.name)
def test_every_block_runs_or_is_of_a_kind_that_does_not(page: Path) -> None:
    """A block tagged ``py`` or ``Python`` would be skipped silently: tags are from a list."""
    unknown = [tag for tag in fences(page.read_text(encoding="utf-8")) if tag not in RUN | NOT_RUN]
    assert not unknown, f"{page.name}: code blocks tagged {unknown}; use one of {RUN | NOT_RUN}"


@pytest.mark.parametrize("page", pages(), ids=lambda page: page.name)
def test_every_skipped_block_says_why(page: Path) -> None:
    reasons = SKIP.findall(page.read_text(encoding="utf-8"))
    assert all(re.fullmatch(r'\s*"[^"]{10,}"\s*', reason) for reason in reasons), reasons


def test_sybil_collects_every_python_block() -> None:
    """The parser sees as many Python blocks as the pages have (a fence Sybil misreads fails)."""
    for page in pages():
        document = sybil_of(page).parse(page)
        found = sum(
            example.region.lexemes.get("arguments") == "python" for example in document.examples()
        )
        text = page.read_text(encoding="utf-8")
        shown = fences(text).count("python")
        hidden = len(re.findall(r"<!--\s*invisible-code-block:\s*python", text))
        assert found == shown + hidden, page.name


def test_the_pages_are_collected() -> None:
    assert all(sybil_of(page).should_parse(page) for page in pages())
    assert not any(DOCS_WITHOUT_SPARK.should_parse(ROOT / page) for page in SPARK_PAGES)


@pytest.mark.parametrize("page", pages(), ids=lambda page: page.name)
def test_every_python_block_is_python_even_when_skipped(page: Path) -> None:
    """A block tagged python parses (a signature or an outline with ``...`` is text)."""
    text = page.read_text(encoding="utf-8")
    for block in re.finditer(r"^```python\n(.*?)^```", text, re.MULTILINE | re.DOTALL):
        line = text[: block.start()].count("\n") + 1
        try:
            compile(block.group(1), f"{page.name}:{line}", "exec")
        except SyntaxError as error:
            pytest.fail(f"{page.name}, the block at line {line} is not Python: {error}")
