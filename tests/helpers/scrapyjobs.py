"""Helpers for Scrapy-engine and worker tests: the CLI in a subprocess (Scrapy's reactor runs once
per process), and the servers CI starts."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# ``python -m pubharvest.cli`` that sets Python's Ctrl-C handler first: Python installs it only when
# SIGINT is not ignored, and a run of the tests in the background of a script starts with it ignored.
_WITH_CTRL_C = ("import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
                "runpy.run_module('pubharvest.cli', run_name='__main__', alter_sys=True)")


def cli(*args: str) -> list[str]:
    """The command line of ``pubharvest ARGS`` run by this interpreter, Ctrl-C (SIGINT) interrupting it
    as it does from a terminal, however the tests were started."""
    return [sys.executable, "-c", _WITH_CTRL_C, *args]


def run_cli(*args: str, timeout: float = 120, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``pubharvest ARGS`` in a subprocess: exit code, stdout and stderr."""
    return subprocess.run(cli(*args), capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})}, cwd=ROOT)


def run_cli_peak(*args: str, timeout: float = 300) -> tuple[int, str, int]:
    """``pubharvest ARGS`` in a subprocess: exit code, stderr, and the process's peak memory in bytes
    (its own ``ru_maxrss``, from ``os.wait4``: not that of any other child of the tests)."""
    import tempfile

    with tempfile.TemporaryFile("w+", encoding="utf-8") as err:
        process = subprocess.Popen(cli(*args), stdout=subprocess.DEVNULL, stderr=err, cwd=ROOT)
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                process.kill()
                raise subprocess.TimeoutExpired(process.args, timeout)
            time.sleep(0.05)
        process.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        return process.returncode, err.read(), usage.ru_maxrss * 1024


def start_cli(*args: str, env: dict[str, str] | None = None, log: Path | None = None) -> subprocess.Popen:
    stream = open(log, "w") if log else subprocess.DEVNULL
    return subprocess.Popen(cli(*args), stdout=stream, stderr=stream, env={**os.environ, **(env or {})}, cwd=ROOT)


def service(variable: str) -> str:
    """The URL CI exports in ``variable``; the test skips when it is unset (a local run)."""
    value = os.environ.get(variable)
    if not value:
        pytest.skip(f"{variable} is not set: .ci/run starts the server this test needs")
    return value


@contextmanager
def fresh_database(admin_url: str) -> Iterator[str]:
    """A new, empty PostgreSQL database on the server of ``admin_url``; dropped afterwards."""
    import psycopg

    name = "pubharvest_test_" + secrets.token_hex(4)
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield admin_url.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def wait_until(condition, timeout: float, step: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return False
