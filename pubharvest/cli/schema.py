"""``pubharvest schema``: the JSON Schema of the page results (or, with ``--merged``, of `merge` output)."""

from __future__ import annotations

import argparse
import json

from pubharvest.parsers import json_schema

from ..errors import ExitCode
from ..merge import merged_json_schema


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--merged", action="store_true", help="the schema of `merge` output instead")


def run(args: argparse.Namespace) -> int:
    schema = merged_json_schema() if args.merged else json_schema()
    print(json.dumps(schema, indent=2, sort_keys=True))
    return ExitCode.OK
