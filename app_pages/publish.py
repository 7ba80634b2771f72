"""Publish: a release plan of several statistics under one budget, split by the accuracy each needs, as a package.

The page builds a plan (``explorer.publish_plan``: statistics with their declared public facts, the unit of
privacy, the total and the split policy; every widget in the link, a plan file saved and reopened), shows its split
and how the errors trade as the total moves, previews it on a public file (``explorer.publish_preview``: seeded,
not private, error bars from the plan), and publishes it once (``explorer.publish_release``: secure noise,
the persistent log charged all or nothing before anything is shown, a zip package). Every number comes from
``dpcore.plan``; the package is ``dpx_publish``'s, the same as the command line
``python -m dpx_publish publish plan.json data.csv --out release.zip``.
"""

import streamlit as st

from explorer import frame, publish_plan, publish_preview, publish_release
from explorer.markup import md


def render() -> None:
    st.title("Publish a release")
    st.caption(
        "Several statistics under one budget: declare each one's public facts, choose how the total is split "
        "(equally, by weights, or from the accuracy each needs), see the expected errors, then publish them all "
        "at once as a package: numbers, privacy report, plan and a script that re-runs it."
    )
    publish_plan.open_file()
    plan, missing, from_data = publish_plan.build()
    if plan is None:
        st.info(md(missing))
        return
    allocation = publish_release.split(plan)
    publish_release.save(plan)
    if allocation is None:
        return
    publish_release.trade_off(allocation)
    publish_preview.preview(allocation, from_data)
    publish_release.publish(allocation, from_data)


frame.run_page(render)
