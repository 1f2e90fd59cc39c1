"""pubharvest: researcher-profile pages in, structured and citable records out.

The offline parsers live in the ``parsers`` package (``parsers.parse``); this package holds the
command line and the writers.
"""

__version__ = "0.1.0"
