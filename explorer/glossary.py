"""The glossary every page can open: the field's words, each in two or three plain sentences with its source."""

from __future__ import annotations

__all__ = ["TERMS", "markdown"]

#: term -> plain definition (Markdown). Kept to what the pages use, in the order a newcomer meets it.
TERMS = {
    "Differential privacy (ε-DP)": "A release is ε-DP when adding or removing any one person changes the "
    "probability of every possible output by at most a factor e^ε. Whatever an observer knew before, one "
    "person's data can shift their odds about that person by at most e^ε. (Dwork, McSherry, Nissim, Smith 2006.)",
    "ε (epsilon)": "The privacy loss bound. Smaller ε means more noise and stronger privacy; ε = 1 allows odds to "
    "change by a factor e ≈ 2.7, ε = 0.1 by 1.1. It is a budget: every release spends some.",
    "δ (delta)": "In (ε, δ)-DP, the probability allowed for the ε bound to fail. Keep it well below 1/n (n people), "
    "so that no one person's record can simply leak; 10⁻⁵ to 10⁻¹⁰ are common.",
    "Neighbouring datasets": "Two datasets that differ in one person. Central queries here use *add/remove one* "
    "(one dataset has one more record); local DP protects *replace one* (one person's value changes). The choice "
    "fixes the sensitivity.",
    "Sensitivity (Δ)": "The most one person can change a query's answer between neighbouring datasets: 1 for a "
    "count, the clipping bound for a clipped sum. Laplace noise is scaled to the L1 sensitivity, Gaussian noise "
    "to the L2 sensitivity.",
    "Local vs central DP": "Central: a trusted curator sees the raw data and adds noise to the answer. Local: each "
    "person randomizes their own value before it leaves their device, so nobody sees a true value, at the price of "
    "much more noise (about √n times).",
    "Composition": "Releasing k answers about the same people costs more than one. Basic composition adds the ε's; "
    "tighter accountants (RDP, zCDP, PLD) show that for noisy answers the cost grows more like √k.",
    "RDP (Rényi DP)": "Bounds the Rényi divergence of order α between a mechanism's outputs on neighbouring "
    "datasets. Curves add up under composition and convert to (ε, δ) at the end. (Mironov 2017.)",
    "zCDP (ρ)": "A one-number summary: ρ-zCDP bounds the RDP curve by ρα at every order. Gaussian noise σ on "
    "sensitivity Δ is ρ = Δ²/(2σ²)-zCDP; the ρ's add up. (Bun & Steinke 2016.)",
    "PLD (privacy loss distribution)": "The distribution of the privacy loss ln(P(o)/Q(o)) of one release. "
    "Composing releases convolves their PLDs, which gives δ(ε) exactly, up to a grid. (Koskela et al. 2020; "
    "Google's dp_accounting.)",
    "μ-GDP": "Gaussian differential privacy: telling the two neighbouring datasets apart is as hard as telling "
    "N(0, 1) from N(μ, 1). k Gaussian releases are exactly √k·μ-GDP. (Dong, Roth, Su 2019.)",
    "Clipping": "Limiting each person's contribution (a value to [L, U], a gradient to norm C) so that the "
    "sensitivity is bounded. The bounds must be chosen without looking at the data; clipping adds bias.",
    "Audit (lower bound)": "Running a mechanism many times on two neighbouring inputs measures how far apart its "
    "outputs are: a statistical lower bound on its ε. It can refute a privacy claim, never prove one.",
    "Floating-point attack": "Textbook Laplace noise x + b·ln(u) computed in doubles leaves holes: most outputs "
    "on one input cannot occur on its neighbour, so one output can reveal the input and no finite ε holds "
    "(Mironov 2012). Releasing on a power-of-two grid with exact integer noise closes the holes; the explorer "
    "publishes its noisy answers that way and keeps fast floating-point noise for simulations (Audit page).",
}


def markdown() -> str:
    """The glossary as one Markdown text (definitions are fixed text, never user input)."""
    return "\n\n".join(f"**{term}**: {text}" for term, text in TERMS.items())
