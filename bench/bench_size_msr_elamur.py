"""Speed and peak memory of the MSR and Elamur parsers on large synthetic pages.

    python bench/bench_size_msr_elamur.py [--mb 100] [--cases elamur-multiline,elamur-one-line,msr-people]

Each page is a real fixture page with its list of papers enlarged to about ``--mb`` MB (each copy a
different paper, with the counts the page states raised to match, so the invariants hold). Each
case runs in a fresh subprocess, which reads the page from a file, then reports: parse seconds,
MB/s, and the peak resident memory the parse added (``VmHWM``, which a new program starts afresh;
``ru_maxrss`` would count this process's own peak, inherited across the fork), as a ratio to the
page's size. The baseline, measured the same way in the same run, is a raw ``bytes.decode`` +
``str.splitlines`` of the page. Each figure is printed with "ok" or "MISSED" against the goals
(Elamur Markdown: >= 20 MB/s; every page: peak <= 10x its size), and the ratio to the
baseline. Not a timed test: it prints figures and asserts nothing about them.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
ELAMUR_PAGE = FIXTURES / "elamur" / "000_multiline.md"
MSR_PAGE = FIXTURES / "msr" / "010_people_publications.html"

GOAL_MB_S = 20.0  # Markdown (Elamur) pages
GOAL_PEAK = 10.0  # peak memory of a parse, as a multiple of the page's size

_ITEM = re.compile(r"(?ms)^\d+\. .*?(?=^\d+\. |^## |\Z)")
_ARTICLE = re.compile(r"<article\b.*?</article>", re.S)


def enlarged_elamur(text: str, copies: int) -> str:
    """The multi-line Elamur page with each paper that has a page listed ``copies`` more times, in
    *Papers* and *All works* (copy ``i`` of a paper is paper ``C<i> <title>`` at ``…/papers/<slug>-c<i>/``),
    and the counts the page states (works in the library, works of theirs, works with a page) raised."""
    papers_at, all_at, end_at = text.index("## Papers"), text.index("## All works"), text.index("## Co-authors")
    papers, works = text[papers_at:all_at], text[all_at:end_at]
    paper_items = [item for item in _ITEM.findall(papers) if "/papers/" in item]
    work_items = [item for item in _ITEM.findall(works) if "/papers/" in item]

    def copy(item: str, i: int) -> str:
        item = re.sub(r"/papers/([^/)]+)/", rf"/papers/\1-c{i}/", item)
        return re.sub(r"\A(\d+\. )(\*\*\[|\[\*\*)", rf"\g<1>\g<2>C{i} ", item)

    def grown(section: str, items: list[str]) -> str:
        more = "".join(copy(item, i) for i in range(1, copies + 1) for item in items)
        return section.rstrip("\n") + "\n" + more.rstrip("\n") + "\n\n"

    def raised(match: re.Match[str]) -> str:
        return str(int(match.group(1).replace(",", "")) + copies * len(paper_items)) + match.group(2)

    head = re.sub(r"(?<=\[📄 )([\d,]+)( works? in our library)", raised, text[:papers_at])
    works = re.sub(r"\A(## All works\s+)([\d,]+)", lambda m: m.group(1) + str(
        int(m.group(2).replace(",", "")) + copies * len(work_items)), works)
    works = re.sub(r"; ([\d,]+) with a page here", lambda m: f"; {int(m.group(1)) + copies * len(work_items)} "
                   "with a page here", works)
    return head + grown(papers, paper_items) + grown(works, work_items) + text[end_at:]


def enlarged_msr(text: str, copies: int) -> str:
    """The MSR people page with each ``<article>`` listed ``copies`` times, copy ``i`` being paper ``i``."""

    def repeat(match: re.Match[str]) -> str:
        article = match.group()
        return "\n".join(
            re.sub(r"(/publication/[^/\"]+)/", rf"\1-{i}/", article).replace("</a></h5>", f" {i}</a></h5>")
            .replace("Note</h5>", f"Note {i}</h5>")
            for i in range(copies)
        )

    return _ARTICLE.sub(repeat, text)


def one_line(text: str) -> str:
    """The page as saved copies often have it: every run of whitespace one space."""
    return re.sub(r"\s+", " ", text)


def _page(case: str, megabytes: float) -> bytes:
    """The synthetic page of ``case``, about ``megabytes`` MB."""
    if case.startswith("elamur"):
        text = ELAMUR_PAGE.read_text(encoding="utf-8")
        unit = len(enlarged_elamur(text, 1).encode()) - len(text.encode())
        page = enlarged_elamur(text, max(1, int(megabytes * 1e6 / unit)))
        return (one_line(page) if case == "elamur-one-line" else page).encode("utf-8")
    text = MSR_PAGE.read_text(encoding="utf-8")
    unit = len(enlarged_msr(text, 2).encode()) - len(enlarged_msr(text, 1).encode())
    return enlarged_msr(text, max(1, int(megabytes * 1e6 / unit))).encode("utf-8")


# The code a subprocess runs: read the page, note the resident memory, do the work, report.
_CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[3])
from pubharvest import parsers
path, mode = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
def status_mb(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) * 1024 / 1e6  # kB (KiB) to MB, as the page's size
before = status_mb("VmRSS:")
start = time.perf_counter()
if mode == "baseline":
    lines = len(data.decode("utf-8").splitlines())
    papers = None
else:
    papers = len(parsers.parse(data).publications)
seconds = time.perf_counter() - start
peak = status_mb("VmHWM:")
print(json.dumps({"seconds": seconds, "added_mb": peak - before, "papers": papers}))
"""


def _run(path: Path, mode: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(path), mode, str(ROOT)], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[-1])


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--mb", type=float, default=100.0, help="page size in MB (default 100)")
    args.add_argument("--cases", default="elamur-multiline,elamur-one-line,msr-people")
    options = args.parse_args()
    print(f"{'case':18} {'MB':>7} {'papers':>8} {'seconds':>8} {'MB/s':>7} {'':6} {'peak/page':>9} {'':6} "
          f"{'baseline MB/s':>13} {'baseline peak/page':>18} {'time/baseline':>13}")
    with tempfile.TemporaryDirectory() as tmp:
        for case in options.cases.split(","):
            path = Path(tmp) / case
            path.write_bytes(_page(case, options.mb))
            size = path.stat().st_size / 1e6
            base, got = _run(path, "baseline"), _run(path, "parse")
            speed, peak = size / got["seconds"], got["added_mb"] / size
            fast = "-" if not case.startswith("elamur") else "ok" if speed >= GOAL_MB_S else "MISSED"
            small = "ok" if peak <= GOAL_PEAK else "MISSED"
            print(f"{case:18} {size:7.1f} {got['papers']:8.0f} {got['seconds']:8.2f} {speed:7.1f} {fast:6} "
                  f"{peak:9.2f} {small:6} {size / base['seconds']:13.1f} {base['added_mb'] / size:18.2f} "
                  f"{got['seconds'] / base['seconds']:13.1f}")
            path.unlink()


if __name__ == "__main__":
    main()
