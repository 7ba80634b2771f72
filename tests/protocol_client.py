"""A Streamlit session without a browser: the app's own WebSocket protocol, spoken by a load generator.

The browser's frontend opens ``/_stcore/stream`` and, on every widget change, sends a
``BackMsg.rerun_script`` carrying the page and the widget values; the server streams
``ForwardMsg`` deltas back and ends each run with ``script_finished``. This client sends
the same messages and reads the same replies, so the server does all the work it does
for a person, while the client draws nothing. That keeps a load test's clients from
eating the CPU the server is being measured on (eight headless Chromiums take most of
a 2-core machine).
"""

from __future__ import annotations

import dataclasses
import hashlib
import time

from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import connect


@dataclasses.dataclass
class Run:
    """What one script run sent back, and how long it took from the request to ``script_finished``."""

    seconds: float
    sliders: dict[str, tuple[str, ...]]  # widget key -> the options it shows
    metrics: dict[str, str]  # metric label -> shown value
    errors: list[str]  # exception boxes and error alerts
    elements: int
    charts: int
    digest: str  # of every chart spec and metric value: equal digests mean the run showed the same results


class ProtocolSession:
    """One session of the app at ``base`` (``http://host:port``), opened on ``page`` (its URL path)."""

    def __init__(self, base: str, page: str, query: str = "") -> None:
        self.url = base.replace("http://", "ws://", 1) + "/_stcore/stream"
        self.page, self.query = page, query
        self.page_hash = ""
        self.widget_ids: dict[str, str] = {}
        self.states: dict[str, WidgetState] = {}
        self.ws = None

    async def __aenter__(self) -> ProtocolSession:
        self.ws = await connect(self.url, subprotocols=["streamlit"], max_size=None, open_timeout=30)
        return self

    async def __aexit__(self, *exc) -> None:
        await self.ws.close()

    async def open(self) -> Run:
        """The first run of the page, as a browser loading ``/<page>?<query>`` asks for it."""
        return await self._rerun(page_name=self.page)

    async def set_select_slider(self, key: str, option: str) -> Run:
        """Move the ``st.select_slider`` with this key to the option shown as ``option``, and rerun."""
        state = WidgetState(id=self.widget_ids[key])
        state.string_array_value.data.append(option)
        self.states[key] = state
        return await self._rerun(page_script_hash=self.page_hash)

    @property
    def open_connection(self) -> bool:
        return self.ws is not None and self.ws.close_code is None

    async def _rerun(self, **page) -> Run:
        msg = BackMsg()
        msg.rerun_script.query_string = self.query
        for name, value in page.items():
            setattr(msg.rerun_script, name, value)
        msg.rerun_script.widget_states.widgets.extend(self.states.values())
        start = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        sliders, metrics, errors, elements, charts = {}, {}, [], 0, 0
        shown = hashlib.sha1()
        while True:
            fwd = ForwardMsg()
            fwd.ParseFromString(await self.ws.recv())
            kind = fwd.WhichOneof("type")
            if kind == "navigation":
                self.page_hash = fwd.navigation.page_script_hash
            elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                elements += 1
                element = fwd.delta.new_element
                which = element.WhichOneof("type")
                if which == "slider":
                    key = element.slider.id.rsplit("-", 1)[-1]
                    self.widget_ids[key] = element.slider.id
                    sliders[key] = tuple(element.slider.options)
                elif which == "metric":
                    metrics[element.metric.label] = element.metric.body
                    shown.update(element.metric.body.encode())
                elif which == "plotly_chart":
                    charts += 1
                    shown.update(element.plotly_chart.spec.encode())
                elif which == "exception":
                    errors.append(f"{element.exception.type}: {element.exception.message}")
                elif which == "alert" and element.alert.format == Alert.ERROR:
                    errors.append(element.alert.body)
            # a run finished early because a newer rerun replaced it: keep reading until that one ends
            elif kind == "script_finished" and fwd.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                return Run(time.perf_counter() - start, sliders, metrics, errors, elements, charts, shown.hexdigest())
