"""A corpus of files real users upload, each with what the app must do with it.

``CORPUS[name] = (raw bytes, "load" or a word the refusal sentence contains)``.
Built in code so the tests need nothing outside the repository.
"""

from __future__ import annotations

import functools

import numpy as np

from explorer.columns import MAX_CATEGORIES_FOR_ORACLES
from explorer.dataset import MAX_ROWS, MAX_UPLOAD_BYTES

_rng = np.random.default_rng(6)
_ROWS = [
    f"{a},{c},{h}"
    for a, c, h in zip(_rng.integers(17, 90, 60), _rng.choice(["a", "b", "c"], 60), _rng.integers(1, 80, 60))
]
PLAIN = ("age,colour,hours\n" + "\n".join(_ROWS) + "\n").encode()


def _wide(columns: int) -> bytes:
    header = ",".join(f"c{i}" for i in range(columns))
    rows = "\n".join(",".join(str((r * columns + i) % 7) for i in range(columns)) for r in range(5))
    return (header + "\n" + rows + "\n").encode()


CORPUS: dict[str, tuple[bytes, str]] = {
    "plain.csv": (PLAIN, "load"),
    "empty.csv": (b"", "empty"),
    "blank_lines.csv": (b"\n\n  \n", "empty"),
    "header_only.csv": (b"age,colour,hours\n", "no data rows"),
    "random_binary.csv": (_rng.integers(0, 256, 4096, dtype=np.uint8).tobytes(), "binary"),
    "excel_xlsx_renamed.csv": (b"PK\x03\x04" + bytes(300), "xlsx"),
    "latin1.csv": ("ville,revenu\nBézier,12\nSaint-Étienne,15\nAnnecy,9\n".encode("latin-1"), "load"),
    "utf8_bom_crlf.csv": ("\ufeffname,value\r\nZoë,1\r\nJosé,2\r\n".encode("utf-8"), "load"),
    "utf16_excel_unicode_text.txt": ("name\tvalue\r\nA\t1\r\nB\t2\r\n".encode("utf-16"), "load"),
    "semicolon_decimal_comma.csv": (b"stadt;einkommen\nK\xc3\xb6ln;1.234,50\nBonn;987,25\nJena;2.000,00\n", "load"),
    "tab.tsv": (b"a\tb\n1\tx\n2\ty\n", "load"),
    "excel_sep_line.csv": (b"sep=;\r\na;b\r\n1;2\r\n3;4\r\n", "load"),
    "ragged_rows.csv": (b"a,b,c\n1,2,3\n4,5\n6,7,8,9,10\n11,12,13\n", "load"),
    "unbalanced_quote.csv": (b'a,b\n1,"unclosed\n2,ok\n3,fine\n', "load"),
    "duplicate_names.csv": (b"x,x,x,y\n1,2,3,4\n5,6,7,8\n", "load"),
    "all_missing_column.csv": (b"a,b,c\n1,,x\n2,NA,y\n3,?,z\n", "load"),
    "inf_and_huge.csv": (b"v,w\ninf,1e308\n-inf,2\n3,-1e308\n4,5\n", "load"),
    "uci_adult_style.csv": (b"age, workclass, income\n39, State-gov, <=50K\n50, ?, >50K\n38, Private, <=50K\n", "load"),
    "thirty_thousand_distinct.csv": (
        ("id,group\n" + "\n".join(f"u{i:05d},{i % 3}" for i in range(30_000)) + "\n").encode(),
        "load",
    ),
    "fifteen_hundred_columns.csv": (_wide(1_500), "load"),
    "html_and_formulas.csv": (
        b'"<script>alert(1)</script>",note\n"<img src=x onerror=alert(2)>",=HYPERLINK("http://x")\n+1,@SUM(A1)\n',
        "load",
    ),
    "over_the_limit.csv": (b"a\n" + b"1\n" * (MAX_UPLOAD_BYTES // 2 + 10), "limit"),
}


#: The file name of :func:`heavy_csv` (the sidebar and the benchmark's table show it).
HEAVY_NAME = "heavy.csv"


@functools.cache
def heavy_csv() -> bytes:
    """The heaviest upload the Data page accepts: :data:`~explorer.dataset.MAX_ROWS` rows under the byte limit.

    Columns: ``x`` and ``z``, all-distinct floats (a permutation of k / 10,000 for k < 1,000,000, written with
    four decimals in at most seven characters: a million distinct values need six digits, so a third such
    column would take the file past the 25 MB limit); ``group``, text with :data:`~explorer.columns.MAX_CATEGORIES_FOR_ORACLES` (50)
    values of Zipf-like frequencies, the most the frequency oracles and the one-hot features take without an
    "(other)" merge; ``n``, whole numbers 0 to 99 (numeric, too many values to be a category); ``label``, 0/1
    with 30% ones (the Learning page's target). About 24 MB; seeded, so every run builds the same bytes.
    """
    rng = np.random.default_rng(13)
    rows = MAX_ROWS
    x = rng.permutation(rows) / 10_000
    z = rng.permutation(rows) / 10_000
    weights = 1 / np.arange(1, MAX_CATEGORIES_FOR_ORACLES + 1)
    group = rng.choice(MAX_CATEGORIES_FOR_ORACLES, rows, p=weights / weights.sum())
    n = rng.integers(0, 100, rows)
    label = (rng.random(rows) < 0.3).astype(np.int64)
    lines = "\n".join(
        f"{a:.4f},{b:.4f},g{g},{c},{y}"
        for a, b, g, c, y in zip(x.tolist(), z.tolist(), group.tolist(), n.tolist(), label.tolist())
    )
    raw = ("x,z,group,n,label\n" + lines + "\n").encode()
    assert len(raw) <= MAX_UPLOAD_BYTES, len(raw)
    return raw
