"""The command line: ``python -m dpx_publish publish plan.json data.csv --out release.zip``.

``publish`` reads the plan (:func:`dpcore.plan.plan_from_dict`), opens the data file by its path, whatever its size
(:func:`dpx_publish.source.open_file`: CSV, gzip CSV, Parquet or JSON, read by the app's rules, and its fingerprint,
so that the app and the command line charge the same budget for the same file), computes the plan's exact aggregates
over every row in DuckDB (each person's rows bounded with a fresh secret seed; memory follows the number of labels,
not of rows), charges the persistent publication log (``--log``, default
:func:`explorer.publication_log.default_path`) all or nothing, and writes the package (:mod:`dpx_publish.package`).
``plan`` shows the split of a plan without reading any data. ``budget`` sets a data file's publication budget
(``python -m dpx_publish budget data.csv --epsilon 8 --reason "..."``): the operator's act, raising included, which
the app's page does not offer (it may only lower); the file is fingerprinted as the app does
(:func:`explorer.dataset.file_fingerprint`), so the budget set is the one the app charges.

Anything wrong with the plan, the data, the budget, the log or the output is said in one sentence on standard error,
with exit code 2 and no traceback; nothing is charged and no file is written. The output is claimed before the log is
charged (a temporary file beside ``--out``, moved onto it once the package is written), so an output that cannot be
written is refused before anything is spent, and a package is never left half written.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import tempfile

from dpcore.plan import Plan, PlanError, allocate, plan_from_dict
from dpcore.validation import check_epsilon, check_probability

__all__ = ["read_plan", "main", "EXIT_REFUSED"]

#: The exit code of a refused plan, data file or budget.
EXIT_REFUSED = 2


class _Refused(ValueError):
    """One sentence for the user."""


def read_plan(text: str) -> Plan:
    """A plan from the text of a plan file (JSON); a syntax error is said with its line and column.

    Raises
    ------
    dpcore.plan.PlanError
        (A ``ValueError``.) Not JSON, or not a plan, in one sentence.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PlanError(f"the plan file is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    return plan_from_dict(data)


def _read_file(path: str, what: str) -> bytes:
    try:
        return pathlib.Path(path).read_bytes()
    except OSError as exc:
        raise _Refused(f"the {what} {path!r} cannot be read ({exc.strerror or exc})") from None


def _sentence(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    text = text.splitlines()[0]
    return text[0].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m dpx_publish", description="Publish a release plan.")
    sub = parser.add_subparsers(dest="command", required=True)
    pub = sub.add_parser("publish", help="publish a plan on a data file, with fresh secure noise")
    pub.add_argument("plan", help="the plan file (JSON)")
    pub.add_argument("data", help="the data file (CSV, gzip CSV, Parquet or JSON; any size)")
    pub.add_argument("--out", required=True, help="the package to write (zip)")
    pub.add_argument("--log", default=None, help="the publication log (SQLite); default: the app's")
    show = sub.add_parser("plan", help="show how a plan splits its budget (reads no data)")
    show.add_argument("plan", help="the plan file (JSON)")
    budget = sub.add_parser("budget", help="set a data file's publication budget (the operator's act: raise or lower)")
    budget.add_argument("data", help="the data file, fingerprinted as the app does (any format, any size)")
    budget.add_argument("--epsilon", required=True, help="the new budget's ε, above 0")
    budget.add_argument("--delta", default=None, help="the new budget's δ, in [0, 1); default: the budget's δ now")
    budget.add_argument("--reason", required=True, help="why, kept in the log with the change")
    budget.add_argument("--log", default=None, help="the publication log (SQLite); default: the app's")
    return parser


def _show(plan: Plan) -> str:
    a = allocate(plan)
    lines = [f"total ε = {a.epsilon:.6g}, δ = {a.delta:.3g} ({a.accountant})"]
    if a.needed_epsilon is not None:
        lines.append(f"smallest total meeting every target: ε = {a.needed_epsilon:.6g}")
    for s in a.shares:
        err = "—" if s.expected_error is None else f"±{s.expected_error:.4g} {s.statistic.error_unit}".rstrip()
        rho = "" if s.rho is None else f", ρ = {s.rho:.4g}"
        lines.append(f"  {s.statistic.name}: ε = {s.epsilon:.4g}, δ = {s.delta:.3g}{rho}, error {err}")
    return "\n".join(lines)


def _publish(args) -> str:
    from dpx_publish.package import publish_package
    from dpx_publish.source import open_file

    plan = read_plan(_read_file(args.plan, "plan file").decode("utf-8", errors="replace"))
    allocate(plan)  # a plan refused before the data is read
    source = open_file(args.data)
    out = pathlib.Path(args.out)
    if not out.parent.is_dir():
        raise _Refused(f"the folder of --out {str(out)!r} does not exist")
    if out.is_dir():
        raise _Refused(f"--out {str(out)!r} is a folder: name the zip file to write")
    log = _log(args.log)
    claim = _claim(out)  # before the charge: an output that cannot be written costs nothing
    try:
        package = publish_package(plan, source, log=log, fingerprint=source.fingerprint, dataset=source.name)
        claim.write_bytes(package.zip_bytes)
        os.replace(claim, out)
    except BaseException:
        claim.unlink(missing_ok=True)
        raise
    a = package.release.allocation
    return (
        f"published {len(a.shares)} statistics at ε = {a.epsilon:.6g}, δ = {a.delta:.3g} (charged to {log.path}); "
        f"package written to {out}"
    )


def _number(text: str, option: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise _Refused(f"{option} must be a number, got {text!r}") from None


def _log(path):
    """The publication log at ``path``, or the app's (:func:`explorer.publication_log.default_path`)."""
    from explorer.publication_log import DATA_DIR_VARIABLE, PublicationLog, default_path

    try:
        path = path if path else default_path()
    except OSError as exc:
        raise _Refused(
            f"the folder of the publication log (${DATA_DIR_VARIABLE}) cannot be created ({exc.strerror or exc})"
        ) from None
    return PublicationLog(path)


def _words(budget) -> str:
    return f"ε = {budget[0]:.6g}, δ = {budget[1]:.3g}"


def _budget(args) -> str:
    """Set the budget of the data file ``args.data`` in the log: its fingerprint is the app's, of the file's bytes."""
    from explorer.dataset import file_fingerprint

    # refused before the file is read and before the log is opened: dpcore's rules, in one sentence
    epsilon = check_epsilon(_number(args.epsilon, "--epsilon"), "--epsilon")
    delta = None if args.delta is None else _number(args.delta, "--delta")
    if delta is not None:
        check_probability(delta, "--delta", low_open=False)
    if not args.reason.strip():
        raise _Refused("--reason must say why the budget changes (the log keeps it with the change), got ''")
    try:
        fingerprint = file_fingerprint(pathlib.Path(args.data))
    except OSError as exc:
        raise _Refused(f"the data file {args.data!r} cannot be read ({exc.strerror or exc})") from None
    log = _log(args.log)
    old = log.budget(fingerprint)
    new = log.set_budget(fingerprint, epsilon, old.delta if delta is None else delta, reason=args.reason.strip())
    return (
        f"the publication budget of {args.data} was {_words(old)} and is now {_words(new)}; "
        f"spent so far {_words(log.spent(fingerprint))} (log: {log.path})"
    )


def _claim(out: pathlib.Path) -> pathlib.Path:
    """An empty temporary file beside ``out``: proof that the package can be written there."""
    try:
        handle, name = tempfile.mkstemp(prefix=".dpx-publish-", suffix=".zip.part", dir=out.parent)
    except OSError as exc:
        raise _Refused(f"--out {str(out)!r} cannot be written ({exc.strerror or exc})") from None
    os.close(handle)
    mask = os.umask(0)  # mkstemp makes the file private (0600): give the package the permissions a plain write would
    os.umask(mask)
    os.chmod(name, 0o666 & ~mask)
    return pathlib.Path(name)


def main(argv=None) -> int:
    """Run the command line; returns the exit code (0, or 2 with one sentence on standard error)."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "plan":
            message = _show(read_plan(_read_file(args.plan, "plan file").decode("utf-8", errors="replace")))
        elif args.command == "budget":
            message = _budget(args)
        else:
            message = _publish(args)
    except (_Refused, ValueError, TypeError, OSError) as exc:
        print(_sentence(exc), file=sys.stderr)
        return EXIT_REFUSED
    except Exception as exc:  # the boundary: a user never sees a traceback
        print(f"The publication failed unexpectedly ({type(exc).__name__}); nothing was written.", file=sys.stderr)
        return 1
    print(message)
    return 0
