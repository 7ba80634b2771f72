"""The README's Python example runs as written, and says what it prints."""

import contextlib
import io
import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_the_readme_has_one_python_example():
    assert len(python_blocks()) == 1


def test_the_readme_example_runs_and_prints_what_its_comments_say():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(python_blocks()[0], str(README), "exec"), {"__name__": "readme"})
    lines = out.getvalue().splitlines()
    bound, epsilon_for_10 = map(float, lines[1].split())
    assert f"{bound:.2f}" == "5.99" and f"{epsilon_for_10:.2f}" == "0.30"  # the comment: ±5.99 at 95%; ε = 0.30
    total = re.match(r"Charge\(epsilon=([0-9.]+), .*accounting='(\w+)'", lines[2])
    assert (f"{float(total[1]):.2f}", total[2]) == ("3.62", "exact")  # the comment: the tightest total, 3.62
    assert 0.9 < float(lines[-1]) <= 1.0  # the audit's lower bound stays under the claim ε = 1


def test_the_readme_speed_figures_are_the_last_benchmark_results():
    # the figures are copied from benchmarks/results by benchmarks.readme_figures, never typed: a stale or edited
    # figure fails here (run ``python -m benchmarks.readme_figures``)
    from benchmarks import readme_figures

    text = README.read_text(encoding="utf-8")
    shown = text.split(readme_figures.START)[1].split(readme_figures.END)[0].strip()
    assert shown == readme_figures.section().strip()


def test_the_figure_copier_finds_rows_in_tables_and_refuses_a_missing_one(tmp_path, monkeypatch):
    from benchmarks import readme_figures

    (tmp_path / "x.md").write_text("# X\n\n| case | time |\n|---|---|\n| fast one | 1 ms |\n| slow one | 9 s |\n")
    monkeypatch.setattr(readme_figures, "RESULTS", tmp_path)
    monkeypatch.setattr(readme_figures, "HEADLINES", {"x.md": ("slow",)})
    assert (
        readme_figures.section()
        == "**X** ([all figures](benchmarks/results/x.md))\n\n| case | time |\n|---|---|\n| slow one | 9 s |\n"
    )
    monkeypatch.setattr(readme_figures, "HEADLINES", {"x.md": ("medium",)})
    with pytest.raises(LookupError, match="medium"):
        readme_figures.section()
