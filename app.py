"""DP Explorer: the frame around every page (navigation, shared sidebar, session state)."""

import time

import streamlit as st

from explorer import blas, frame, state, uploads, widgets

started = time.perf_counter()

st.set_page_config(page_title="DP Explorer", page_icon=frame.FAVICON, layout="wide")
state.init_session()
uploads.install()  # once per server process: what one session may keep of its uploads
blas.limit_threads()  # once per loaded library: one BLAS thread, not one per core for each session's product
link_values = st.query_params.to_dict()  # before the widgets drop values they refuse

PAGES = [
    st.Page("app_pages/home.py", title="Overview", icon=":material/home:", default=True),
    st.Page("app_pages/data.py", title="Data", icon=":material/table_view:", url_path="data"),
    st.Page("app_pages/local.py", title="Local DP", icon=":material/casino:", url_path="local"),
    st.Page("app_pages/central.py", title="Central DP", icon=":material/bar_chart:", url_path="central"),
    st.Page("app_pages/svt.py", title="Sparse vector", icon=":material/manage_search:", url_path="svt"),
    st.Page("app_pages/accountant.py", title="Accountant", icon=":material/calculate:", url_path="accountant"),
    st.Page("app_pages/compare.py", title="Compare", icon=":material/compare_arrows:", url_path="compare"),
    st.Page("app_pages/audit.py", title="Audit", icon=":material/fact_check:", url_path="audit"),
    st.Page("app_pages/learning.py", title="Learning", icon=":material/model_training:", url_path="learning"),
    st.Page("app_pages/people.py", title="People", icon=":material/groups:", url_path="people"),
    st.Page("app_pages/publish.py", title="Publish", icon=":material/publish:", url_path="publish"),
]
page = frame.navigation(PAGES)
state.take_upload_left_behind()  # a file whose reading a click on another page stopped: read now, on that page
fill_sidebar = frame.sidebar(PAGES)
notices = st.container()
page.run()
fill_sidebar()
with notices:
    frame.dataset_notices()
    frame.note_ignored_url_values(link_values)
widgets.sync_link()  # the link is the screen: every bound widget of this run at the value it holds
frame.log_run_time(page.url_path, started)
