"""``python -m dpx_publish publish plan.json data.csv --out release.zip`` (see :mod:`dpx_publish.cli`)."""

import sys

from dpx_publish.cli import main

sys.exit(main())
