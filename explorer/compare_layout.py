"""What the Compare page's views share: the ε grid of their curves, the confidence of their bounds, the salt of
their seeds, the relation of the counts, the labelled file of several simulated releases, and the sentences read off
the simulated errors (the verdict, the note on boxes too thin to see)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from dpcore.families import Counts
from dpcore.neighbours import REPLACE_ONE
from dpcore.release import Release
from dpcore.simulation import simulated
from explorer import export
from explorer.markup import number

__all__ = ["GRID", "CONFIDENCE", "SALT", "RELATION", "count_label", "labelled_file", "verdict", "thin_boxes"]

#: The ε's of the curves against ε.
GRID = np.geomspace(0.05, 10, 30)
#: The confidence of every "95% within ±" on the page.
CONFIDENCE = 0.95
#: The salt of the page's seeds (one release of each mechanism; the simulations add the mechanism's label).
SALT = "compare"
#: The neighbouring relation the counts are compared under: replace one record, the one local DP protects. It is
#: given once to every family's calibration (:meth:`dpcore.families.Family.counts`), and each file states the
#: relation the resulting :class:`~dpcore.families.Counts` carries (:func:`count_label`).
RELATION = REPLACE_ONE


def count_label(answer: Counts, query: str) -> Release:
    """The label of a simulated release of counts by ``answer``: its mechanism, ε, δ and std, under the relation its
    noise was calibrated for (``answer.relation``, set where it was calibrated), not its kind's usual one."""
    return replace(simulated(answer.mechanism, query=query), relation=answer.relation)


def labelled_file(parts: dict) -> pd.DataFrame:
    """One file of several simulated releases: ``{name: (rows, label)}``, each mechanism's rows with its own label
    (:func:`explorer.export.simulated`: not private, the mechanism, ε, δ, relation and unit), after a first column
    naming the mechanism as the page does."""
    frames = []
    for name, (rows, label) in parts.items():
        rows = rows.copy()
        rows.insert(0, "released by", name)
        frames.append(export.simulated(rows, label))
    return pd.concat(frames, ignore_index=True)


def verdict(bounds: dict, eps: float, what: str) -> str:
    """One sentence from the simulated 95% bounds: the tightest mechanism and how much wider the widest is."""
    ordered = sorted(bounds.items(), key=lambda item: item[1])
    (best, b), (worst, w) = ordered[0], ordered[-1]
    if len(ordered) == 1 or w <= b:
        return f"At ε = {eps:g}, 95% of {best}'s simulated errors on {what} are within **±{b:,.4g}**."
    return (
        f"At ε = {eps:g}, **{best}** is the most accurate on {what}: 95% of its simulated errors are within "
        f"**±{b:,.4g}**, where {worst} needs ±{w:,.4g}, **{number(w / b)}× wider**."
    )


def thin_boxes(bounds: dict) -> str:
    """Say so when some boxes are too thin to see on the shared axis (the chart cannot show both scales)."""
    widest = max(bounds.values())
    thin = [m for m, b in bounds.items() if b * 10 < widest]
    if not thin:
        return "Boxes: the middle half of the errors; whiskers: 95% of them; dotted line: no error."
    return (
        f"Boxes: the middle half of the errors; whiskers: 95%. On this shared axis {', '.join(thin)} "
        f"{'is' if len(thin) == 1 else 'are'} a thin line: more than 10× narrower than the widest (see the table)."
    )
