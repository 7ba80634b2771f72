"""The README's Python example runs as written, and says what it prints."""

import contextlib
import io
import pathlib
import re

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
