"""Publish a release plan from files: the runner of :mod:`dpcore.plan` outside the app, and the package it writes.

:mod:`dpcore.plan` and :mod:`dpcore.plan_release` hold the mathematics (the split, the noise, the draw on arrays);
this package opens data files by path, whatever their size (:mod:`dpx_publish.source`: the plan's aggregates computed
by DuckDB over every row), charges the persistent publication log (:mod:`explorer.publication_log`) and writes the
zip (:mod:`dpx_publish.package`); :mod:`dpx_publish.cli` is the command line.
"""

from dpx_publish.package import (
    FILES,
    Package,
    build_package,
    publish_package,
    release_csv,
    report_dict,
    report_html,
)
from dpx_publish.source import FileSource, open_file

__all__ = [
    "FILES",
    "FileSource",
    "Package",
    "build_package",
    "open_file",
    "publish_package",
    "release_csv",
    "report_dict",
    "report_html",
]
