"""What the app says about the model that answers and an upgrade under way (no Streamlit)."""

from __future__ import annotations

from explorer.features.upgrade.stage_status import DONE, FAILED, WRITING, Status
from explorer.ui.text import escape_markdown


def duration(seconds: float) -> str:
    """'40 s', '3 min', '1 h 20 min'."""
    if seconds < 60:
        return f"{max(1, round(seconds))} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


def short_name(model_id: str | None) -> str:
    return (model_id or "?").rsplit("/", 1)[-1]


def status_line(status: Status | None, answering: str | None, alive: bool) -> str:
    """Markdown: which model answers, and the upgrade's state when one is under way, was
    interrupted or failed (`alive`: its process still runs). Empty when there is nothing to say
    beyond the index caption (no upgrade, or its model already answers)."""
    name = escape_markdown(short_name(answering))
    if status is None or short_name(status.model) == short_name(answering):
        return ""
    target = escape_markdown(short_name(status.model))
    if status.state == DONE:
        return f"**{target}** is ready: the next question uses it."
    answers = f"Answering with **{name}**"
    if status.state == FAILED:
        return f"{answers}; the upgrade to {target} failed: {escape_markdown(status.message)}"
    if not alive:
        return (f"{answers}; the upgrade to {target} stopped at {status.done:,} of "
                f"{status.total:,} papers: the next `explorer build` resumes it.")
    if status.state == WRITING:
        return f"{answers}; switching to **{target}** now (writing its index)."
    left = status.seconds_left
    eta = "" if left is None else f", about {duration(left)} left"
    return (f"{answers}; upgrading to **{target}** in the background: {status.done:,} of "
            f"{status.total:,} papers{eta}. Questions keep working; the next one after the "
            "switch uses it.")
