"""``pubharvest schema``: the JSON Schema of the page results (``--merged``: of `merge` output;
``--metrics``: of `metrics`)."""

from __future__ import annotations

import argparse
import json

from pubharvest.parsers import json_schema

from ..errors import ExitCode
from ..merge import merged_json_schema


def add_arguments(parser: argparse.ArgumentParser) -> None:
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--merged", action="store_true", help="the schema of `merge` output instead")
    which.add_argument("--metrics", action="store_true", help="the schema of `metrics -f json` output instead")


def run(args: argparse.Namespace) -> int:
    if args.metrics:
        from ..metrics import metrics_json_schema

        schema = metrics_json_schema()
    else:
        schema = merged_json_schema() if args.merged else json_schema()
    print(json.dumps(schema, indent=2, sort_keys=True))
    return ExitCode.OK
