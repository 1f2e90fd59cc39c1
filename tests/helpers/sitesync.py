"""Shared by the site targets' tests (tests/sync/test_hugo.py, test_academicpages.py): papers merged
from fixture and corpus pages, a plan applied, a site's files read back, a consumer run."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import FIXTURES

from pubharvest.merge import Paper, merge
from pubharvest.parsers import parse
from pubharvest.sync import SyncOptions, SyncPlan
from pubharvest.sync.apply import apply
from pubharvest.sync.registry import target

FIXTURE_PAGES = ("msr/010_people_publications.html", "elamur/000_multiline.md",
                 "scholar/handwritten_view_citation_patent.html", "scholar/handwritten_view_citation_chapter.html")
CORPUS_PAGES = ("scholar/profile_LZ5D_p4AAAAJ_scholar-scraper_2026.html",
                "scholar/profile_P1RwlvoAAAAJ_scholar-scraper_2026.html",
                "msr/publication_mattergen_990378_2026-08-26.excerpt.html",
                # DOIs read from publishers' links, two of them SICI DOIs holding <, >, ; and a slash
                "scholar/search_q_crayfish_gsscraper_2020.html")


def fixture_pages() -> list[tuple[str, bytes]]:
    return [(name, (FIXTURES / name).read_bytes()) for name in FIXTURE_PAGES]


def corpus_pages(corpus: Path) -> list[tuple[str, bytes]]:
    return [(name, (corpus / name).read_bytes()) for name in CORPUS_PAGES]


def papers_of(pages: list[tuple[str, bytes]], seed: int | None = None) -> list[Paper]:
    """The merged papers of ``pages`` (parsed, their rows shuffled by ``seed`` when given)."""
    results = [(name, parse(data)) for name, data in pages]
    if seed is not None:
        rng = random.Random(seed)
        rng.shuffle(results)
        for _, result in results:
            rng.shuffle(result.publications)
    return merge(results).papers


def plan(name: str, root: Path, papers: list[Paper], add_missing: bool = True) -> SyncPlan:
    """The target's plan for the site at ``root`` (made, empty, when it is not there)."""
    root.mkdir(parents=True, exist_ok=True)
    return target(name).plan(root, papers, [], SyncOptions(add_missing=add_missing))


def sync(name: str, root: Path, papers: list[Paper], add_missing: bool = True) -> SyncPlan:
    """Plan and apply: the plan carried out."""
    done = plan(name, root, papers, add_missing)
    apply(done)
    return done


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by its relative path."""
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def run_consumer(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run a Debian consumer (hugo, jekyll); skipped when it is not installed (CI installs it)."""
    if shutil.which(args[0]) is None:
        pytest.skip(f"{args[0]} is not installed (Debian package {args[0]})")
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done
