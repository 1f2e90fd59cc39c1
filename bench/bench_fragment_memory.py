"""Peak memory of parsing a 50 MB Scholar row fragment, beside lxml alone parsing the same bytes
(goal: <= 1.2x).

    PUBHARVEST_CORPUS=../shared/research python bench/bench_fragment_memory.py [--mb 50] [--repeat 3]

The fragment is the corpus's 1,114-row fragment (what "Show more" loads) with its rows repeated to
``--mb`` MB. Each figure is the peak resident memory a fresh interpreter adds (``ru_maxrss`` after
minus before) while doing one thing with bytes it already holds: ``lxml.etree.fromstring`` with the
HTML parser pubharvest uses (the floor), or ``pubharvest.parsers.parse``; medians of ``--repeat``
runs. Not a timed test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("PUBHARVEST_CORPUS", ROOT.parent / "shared" / "research"))
FRAGMENT = CORPUS / "scholar" / "fragment_rows_qc6CJjYAAAAJ_einstein_gssa_2021.html"
GOAL = 1.2

_CHILD = """
import resource, sys
data = open(sys.argv[1], "rb").read()
if sys.argv[2] == "lxml":
    from lxml import etree
    parser = etree.HTMLParser(encoding="utf-8", huge_tree=True)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kept = etree.fromstring(data, parser)
    rows = len(kept.xpath("//tr"))
else:
    import pubharvest.parsers as parsers
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kept = parsers.parse(data)
    rows = len(kept.publications)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before, rows)
"""


def fragment(mb: float) -> bytes:
    """The corpus fragment with its rows repeated to ``mb`` MB."""
    page = FRAGMENT.read_bytes()
    first = page.index(b'<tr class="gsc_a_tr"')
    end = page.rindex(b"</tr>") + len(b"</tr>")
    rows = page[first:end]
    return page[:first] + rows * max(1, int(mb * 1e6 / len(rows))) + page[end:]


def peak_mb(path: str, what: str) -> tuple[float, int]:
    out = subprocess.run([sys.executable, "-c", _CHILD, path, what], check=True, capture_output=True,
                         text=True).stdout.split()
    return int(out[0]) / 1024, int(out[1])


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--mb", type=float, default=50)
    args.add_argument("--repeat", type=int, default=3)
    options = args.parse_args()
    data = fragment(options.mb)
    with tempfile.NamedTemporaryFile(suffix=".html") as handle:
        handle.write(data)
        handle.flush()
        figures = {}
        for what in ("lxml", "parse"):
            runs = [peak_mb(handle.name, what) for _ in range(options.repeat)]
            figures[what] = statistics.median(mb for mb, _ in runs), runs[0][1]
    (floor, rows), (parse, papers) = figures["lxml"], figures["parse"]
    print(f"fragment: {len(data) / 1e6:.1f} MB, {rows:,} rows; medians of {options.repeat} runs")
    print(f"lxml.etree.fromstring:      +{floor:6.0f} MB peak")
    print(f"pubharvest.parsers.parse:   +{parse:6.0f} MB peak, {papers:,} publications")
    ratio = parse / floor
    print(f"ratio: {ratio:.2f}x lxml alone (goal <= {GOAL}x)  {'ok' if ratio <= GOAL else 'MISSED'}")


if __name__ == "__main__":
    main()
