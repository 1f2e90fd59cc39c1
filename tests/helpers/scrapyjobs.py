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


# The same, noting at exit the process's own peak resident memory (Linux's VmHWM, of this program's memory
# map: ru_maxrss from wait4 would report the test process's peak instead, carried over fork and exec).
_WITH_PEAK = ("import atexit, os\n"
              "def note():\n"
              "    peak = next(line for line in open('/proc/self/status') if line.startswith('VmHWM:'))\n"
              "    open(os.environ['PUBHARVEST_TEST_PEAK'], 'w').write(peak.split()[1])\n"
              "atexit.register(note)\n" + _WITH_CTRL_C)


def run_cli_peak(*args: str, timeout: float = 300) -> tuple[int, str, int]:
    """``pubharvest ARGS`` in a subprocess: exit code, stderr, and the process's own peak memory in bytes."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        peak = Path(folder) / "peak"
        done = subprocess.run([sys.executable, "-c", _WITH_PEAK, *args], capture_output=True, text=True,
                              timeout=timeout, env={**os.environ, "PUBHARVEST_TEST_PEAK": str(peak)}, cwd=ROOT)
        return done.returncode, done.stderr, int(peak.read_text()) * 1024


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
