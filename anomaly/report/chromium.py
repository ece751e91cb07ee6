"""Headless Chromium for looking at report pages: the browser tests, ``bench/report.py`` and
the screenshots in ``docs/images`` all open pages this way.

It drives Debian's ``chromium`` with its ``chromium-driver`` through selenium (a test
dependency: ``pip install selenium``), with a fresh profile, no network services, and the flags
Chromium needs to run as root in a container.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

FLAGS = (
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--no-first-run", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--window-size=1400,1000",
)  # fmt: skip


def chromium_missing() -> str | None:
    """Why Chromium cannot be started here, or None when it can."""
    if shutil.which("chromium") is None or shutil.which("chromedriver") is None:
        return (
            "Debian's chromium and chromium-driver are not installed "
            "(apt-get install -y chromium chromium-driver; .ci/run installs them)"
        )
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install selenium)"
    return None


@contextmanager
def chromium() -> Iterator[Any]:
    """A selenium driver of a fresh headless Chromium, quit (and its profile removed) after."""
    from selenium import webdriver

    reason = chromium_missing()
    if reason is not None:
        raise RuntimeError(reason)
    profile = tempfile.mkdtemp(prefix="anomaly-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(shutil.which("chromium"))
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = webdriver.ChromeService(str(shutil.which("chromedriver")))
    driver = webdriver.Chrome(options=options, service=service)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def wait_ready(driver: Any, view: str, timeout: float = 30.0, mark: str = "ready") -> float:
    """Wait until the page shows `view` with every chart in view drawn (``mark="ready"``) or
    built with its first chart drawn (``"interactive"``); returns the page's
    ``performance.now()`` then (milliseconds since the navigation started)."""
    deadline = time.monotonic() + timeout
    script = f"return document.body && document.body.dataset.{mark}"
    while driver.execute_script(script) != view:
        if time.monotonic() > deadline:
            raise TimeoutError(f"view {view!r} was not {mark} within {timeout:g} s")
        time.sleep(0.02)
    name = "reportReadyAt" if mark == "ready" else "reportInteractiveAt"
    return float(driver.execute_script(f"return window.{name}"))


def page_errors(driver: Any) -> list[str]:
    """JavaScript errors the browser logged since the last call."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
