"""Declared domains: parsed from what the user typed, applied by a rule that reads no count."""

import pandas as pd
import pytest

from explorer import domains


def test_a_pasted_domain_keeps_commas_inside_a_category_and_drops_blanks_and_repeats():
    text = "Married, spouse absent\n\n  Never-married ;Divorced\nNever-married"
    assert domains.parse_domain(text) == ["Married, spouse absent", "Never-married", "Divorced"]


def test_a_domain_longer_than_the_limit_is_refused_in_one_sentence():
    with pytest.raises(ValueError, match="at most 1,000 categories"):
        domains.parse_domain("\n".join(map(str, range(1_001))))


def test_encoding_ignores_counts_one_person_outside_the_domain_changes_no_code_of_anyone_else():
    column = pd.Series(["a"] * 5 + ["b"] * 3 + [None])
    with_outsider = pd.concat([column, pd.Series(["Zanzibar"])], ignore_index=True)
    for other in (True, False):
        before = domains.encode_in_domain(column, ["a", "b", "c"], other).tolist()
        after = domains.encode_in_domain(with_outsider, ["a", "b", "c"], other).tolist()
        assert after[: len(before)] == before
        assert len(after) == len(before) + (1 if other else 0)  # counted in (other), or left out
    assert domains.encode_in_domain(pd.Series([3.0, 4.0]), ["3", "4"], False).tolist() == [0, 1]


def test_missing_declarations_name_what_is_missing():
    assert domains.missing_declarations(lower=1.0, upper=2.0) is None
    assert "the categories" in domains.missing_declarations(domain=None)
    assert "the value of the condition" in domains.missing_declarations(value=None)


def test_pairs_are_coded_in_two_declared_domains_aligned_row_by_row():
    rows = pd.Series(["a", "b", "z", None, "a", 3.0])
    cols = pd.Series(["x", None, "x", "y", "q", "y"])
    r, c = domains.encode_pairs_in_domains(rows, cols, ["a", "b", "3"], ["x", "y"], other=False)
    assert list(zip(r.tolist(), c.tolist())) == [(0, 0), (2, 1)]  # a missing value or one outside: the row is out
    r, c = domains.encode_pairs_in_domains(rows, cols, ["a", "b"], ["x", "y"], other=True)
    assert list(zip(r.tolist(), c.tolist())) == [(0, 0), (2, 0), (0, 2), (2, 1)]  # outside: "(other)", index 2
