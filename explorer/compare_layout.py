"""What the Compare page's views share: the ε grid of their curves, the confidence of their bounds, the salt of
their seeds, the relation and unit of the counts, the labelled file of several simulated releases, and the sentences
read off the simulated errors (the verdict, the note on boxes too thin to see).

The declared unit of privacy (:mod:`explorer.unit`) reaches the views through :func:`relation`, :func:`person_rows`
and :func:`with_unit`: under a person unit the central noise is calibrated to the unit's sensitivities
(:class:`dpcore.contributions.ContributionBounds`, each person's rows bounded as Central DP bounds them), a local
mechanism takes one report per person (Local DP's rule), and every label says unit=person.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from dpcore.contributions import PrivacyUnit
from dpcore.families import Counts
from dpcore.neighbours import REPLACE_ONE, UNIT_RECORD, NeighbouringRelation
from dpcore.release import PublicFact, Release
from dpcore.simulation import simulated
from explorer import export, releases, state, unit
from explorer.markup import number

__all__ = [
    "GRID",
    "CONFIDENCE",
    "SALT",
    "RELATION",
    "PersonRows",
    "relation",
    "person_rows",
    "with_unit",
    "count_label",
    "labelled_file",
    "verdict",
    "thin_boxes",
]

#: The ε's of the curves against ε.
GRID = np.geomspace(0.05, 10, 30)
#: The confidence of every "95% within ±" on the page.
CONFIDENCE = 0.95
#: The salt of the page's seeds (one release of each mechanism; the simulations add the mechanism's label).
SALT = "compare"
#: The neighbouring relation the counts are compared under when one row is one person: replace one record, the one
#: local DP protects. :func:`relation` gives it (or the person unit's) to every family's calibration, and each file
#: states the relation the resulting :class:`~dpcore.families.Counts` carries (:func:`count_label`).
RELATION = REPLACE_ONE


def relation(u: PrivacyUnit) -> NeighbouringRelation:
    """The relation the counts' central noise is calibrated for under the declared unit ``u``: :data:`RELATION`
    under one row; under a person unit the unit's own, add/remove one person (Central DP's), whose histogram
    sensitivity is :func:`explorer.releases.person_histogram_sensitivity` (at most m of each person's rows, in any
    bins)."""
    return RELATION if u.identifier is None else u.relation


@dataclass(frozen=True)
class PersonRows:
    """The declared person unit over the rows a view uses: each row's person, and one row per person.

    ``one_row`` is the mask of one row per person sampled uniformly from the page's seed
    (:func:`explorer.releases.one_row_each`, Local DP's rule: a person's device sends one report); the central
    mechanisms bound each person's rows to m themselves (:func:`explorer.releases.person_query` or
    :func:`explorer.releases.person_histogram`).
    """

    unit: PrivacyUnit
    persons: np.ndarray
    one_row: np.ndarray

    @property
    def max_rows(self) -> int:
        return self.unit.bounds.max_rows


def person_rows(u: PrivacyUnit, rows: np.ndarray | None = None) -> PersonRows | None:
    """The person unit over the rows in the mask ``rows`` (default all), or None after one sentence when the
    identifier cannot name the persons (:func:`explorer.unit.persons`). Only for a person unit."""
    codes = unit.persons(u)
    if codes is None:
        return None
    codes = codes if rows is None else codes[rows]
    return PersonRows(u, codes, releases.one_row_each(codes, state.seed_words(f"{SALT}-one-row")))


def with_unit(label: Release, u: PrivacyUnit, rule: str) -> Release:
    """``label`` under the declared unit: unchanged under one row; under a person unit, unit=person (its relation
    stays the one its noise was calibrated for) and a public fact naming the identifier, the bound and ``rule``, how
    this mechanism bounded each person's rows."""
    if u.identifier is None:
        return label
    fact = PublicFact(
        "unit of privacy",
        f"person (column {u.identifier}, at most {u.bounds.max_rows:,} rows each): {rule}",
        "declared",
    )
    return replace(label, unit=u.unit, public=(*label.public, fact))


def count_label(answer: Counts, query: str, u: PrivacyUnit | None = None, rule: str = "") -> Release:
    """The label of a simulated release of counts by ``answer``: its mechanism, ε, δ and std, under the relation its
    noise was calibrated for (``answer.relation``, set where it was calibrated), not its kind's usual one, and the
    declared unit ``u`` (:func:`with_unit`)."""
    label = replace(simulated(answer.mechanism, query=query), relation=answer.relation)
    return label if u is None else with_unit(label, u, rule)


def labelled_file(parts: dict) -> pd.DataFrame:
    """One file of several simulated releases: ``{name: (rows, label)}``, each mechanism's rows with its own label
    (:func:`explorer.export.simulated`: not private, the mechanism, ε, δ, relation and unit), after a first column
    naming the mechanism as the page does. Under a person unit the relation is in the unit's words ("add/remove one
    person", "replace one person") and a last column says how each mechanism bounded a person's rows."""
    frames = []
    for name, (rows, label) in parts.items():
        rows = rows.copy()
        rows.insert(0, "released by", name)
        rows = export.simulated(rows, label)
        if label.unit != UNIT_RECORD:  # the relation for the unit in words, and how the person's rows were bounded
            facts = [f.value for f in label.public if f.name == "unit of privacy"]
            rows = rows.assign(neighbouring_relation=label.relation.words(label.unit), unit_bounding="; ".join(facts))
        frames.append(rows)
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
