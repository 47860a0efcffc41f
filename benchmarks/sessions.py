"""Browser sessions against a running app: ask questions, open similar papers, time and check each.

One headless Chromium, one context (cookies, websocket: a Streamlit session) per session, driven
by async Playwright so N sessions wait on the server at the same time from one Python thread.
An answer is timed from the action (navigation, Enter in the question box, or the click on
"Similar papers") to the moment the page shows it: the URL names the new view (the app writes
it last), Streamlit's running indicator is gone, no element is stale, and result cards are on
the page, all held on two checks in a row. Every answer is then checked for errors: an
st.error / st.exception element, a connection-error dialog, text such as "Traceback",
"Infer Request is busy", any `SomethingError:`, a server path, or a page that never renders.
Used by `benchmarks.run load` and tests/test_sessions.py.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass, field
from urllib.parse import parse_qs, quote, urlparse

from tests.app_fixtures import CHROMIUM, CHROMIUM_ARGS, ROOT

CARDS = "[class*='st-key-card-']"
# Runs in the page: true once the view is drawn and the script has stopped (two checks in a row).
SETTLED = """([cards]) => {
  const busy = document.querySelector('[data-testid="stStatusWidget"]')
    || document.querySelector('[data-stale="true"]');
  const shown = document.querySelectorAll(cards).length > 0
    || document.querySelector('[data-testid="stAlertContentError"], [data-testid="stException"]')
    || document.querySelector('[role="dialog"]');
  const ok = !busy && shown;
  const held = ok && window.__settledOnce === true;
  window.__settledOnce = ok;
  return held;
}"""
ERROR_ELEMENTS = "[data-testid='stAlertContentError'], [data-testid='stException'], [role='dialog']"
ERROR_TEXT = re.compile(
    r"Traceback|Infer Request is busy|\b[A-Z]\w*(?:Error|Exception)\b|\bError:|Connection error"
    r"|site-packages|File \"/|/root/|/home/|/tmp/|" + re.escape(str(ROOT)))


@dataclass
class Answer:
    kind: str  # "link" (?q= opened), "ask" (typed question), "similar" (button click)
    seconds: float
    error: str = ""


@dataclass
class SessionLog:
    answers: list[Answer] = field(default_factory=list)

    @property
    def errors(self) -> list[str]:
        return [a.error for a in self.answers if a.error]


def page_errors(text: str, alerts: list[str]) -> str:
    """The first error shown on a page (an error element's text, or suspicious body text)."""
    if alerts:
        return "error element: " + " | ".join(a.strip()[:300] for a in alerts)
    found = ERROR_TEXT.search(text)
    if found:
        start = max(found.start() - 120, 0)
        return "page text: ..." + text[start:found.end() + 180].replace("\n", " ") + "..."
    return ""


async def _settle(page, wanted: dict[str, str], timeout_s: float) -> bool:
    """Wait until the URL holds `wanted` query values and the page has settled."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        params = parse_qs(urlparse(page.url).query)
        if all(_same(key, params.get(key), value) for key, value in wanted.items()):
            remaining = max(deadline - time.monotonic(), 0.1)
            try:
                await page.wait_for_function(SETTLED, arg=[CARDS], polling=50,
                                             timeout=remaining * 1000)
                return True
            except Exception:  # noqa: BLE001 (Playwright's TimeoutError: reported below)
                return False
        await asyncio.sleep(0.05)
    return False


async def _check(page, kind: str, started: float, settled: bool, timeout_s: float) -> Answer:
    seconds = time.perf_counter() - started
    alerts = await page.locator(ERROR_ELEMENTS).all_inner_texts()
    text = await page.inner_text("body")
    error = page_errors(text, alerts)
    if not error and not settled:
        error = f"no results rendered within {timeout_s:.0f} s ({kind}); page: {text[:200]!r}"
    if not error and await page.locator(CARDS).count() == 0:
        error = f"no result cards ({kind}); page: {text[:200]!r}"
    return Answer(kind, seconds, error)


async def ask_link(page, base: str, question: str, timeout_s: float) -> Answer:
    """Open a shared `?q=` link: a new Streamlit session for a new question."""
    started = time.perf_counter()
    await page.evaluate("window.__settledOnce = false")
    await page.goto(f"{base}/?q={quote(question)}", timeout=timeout_s * 1000)
    settled = await _settle(page, {"q": question}, timeout_s - (time.perf_counter() - started))
    return await _check(page, "link", started, settled, timeout_s)


async def ask_box(page, question: str, timeout_s: float) -> Answer:
    """Type a question in the box of the open page and press Enter (a rerun of its session)."""
    box = page.get_by_placeholder("Ask a question")
    await box.fill(question, timeout=timeout_s * 1000)
    await page.evaluate("window.__settledOnce = false")
    started = time.perf_counter()
    await box.press("Enter", timeout=timeout_s * 1000)
    settled = await _settle(page, {"q": question}, timeout_s)
    return await _check(page, "ask", started, settled, timeout_s)


async def open_similar(page, card: int, timeout_s: float) -> Answer:
    """Click "Similar papers" on result card number `card` (wrapping) of the open page."""
    buttons = page.locator(CARDS).get_by_role("button", name="Similar papers")
    count = await buttons.count()
    if count == 0:
        return Answer("similar", 0.0, "no 'Similar papers' button to click")
    key = await page.locator(CARDS).nth(card % count).get_attribute("class") or ""
    paper_id = _paper_id(key)
    await page.evaluate("window.__settledOnce = false")
    started = time.perf_counter()
    await buttons.nth(card % count).click(timeout=timeout_s * 1000)
    wanted = {"paper": paper_id} if paper_id else {}
    settled = await _settle(page, wanted, timeout_s)
    answer = await _check(page, "similar", started, settled, timeout_s)
    if not answer.error and not await page.get_by_role("heading", name="Similar papers").count():
        answer.error = "the paper page shows no 'Similar papers' heading"
    return answer


def _same(key: str, found: list[str] | None, wanted: str) -> bool:
    """Whether the URL's `key` holds `wanted`; a paper id read from a card's class is compared
    as Streamlit writes keys into class names (characters other than [A-Za-z0-9_-] become '-',
    so an id such as 'iclr2024:AbC' appears as 'iclr2024-AbC')."""
    if found is None or len(found) != 1:
        return False
    if key == "paper":
        return _class_safe(found[0]) == _class_safe(wanted)
    return found[0] == wanted


def _class_safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "-", text)


def _paper_id(classes: str) -> str:
    """The paper id in a card's `st-key-card-q-<id>` class (empty when Streamlit mangled it)."""
    found = re.search(r"st-key-card-[a-z]-(\S+)", classes)
    return found.group(1) if found else ""


@dataclass
class Plan:
    """What one session does: questions (every `link_every`-th as a ?q= link, the rest typed),
    a similar click after every `similar_every`-th question; stops at `deadline` (monotonic)."""

    questions: list[str]
    similar_every: int = 5
    link_every: int = 5
    answer_timeout_s: float = 60.0
    deadline: float = float("inf")


async def run_session(browser, base: str, plan: Plan, log: SessionLog) -> None:
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    try:
        for number, question in enumerate(plan.questions):
            if time.monotonic() > plan.deadline:
                break
            by_link = number == 0 or number % plan.link_every == 0
            answer = await _safely("link" if by_link else "ask", ask_link(
                page, base, question, plan.answer_timeout_s) if by_link else ask_box(
                page, question, plan.answer_timeout_s))
            log.answers.append(answer)
            if answer.error:
                await _safely("link", page.goto(base, timeout=plan.answer_timeout_s * 1000))
                continue
            if plan.similar_every and number % plan.similar_every == plan.similar_every - 1:
                log.answers.append(await _safely("similar", open_similar(
                    page, number, plan.answer_timeout_s)))
    finally:
        await context.close()


async def _safely(kind: str, action) -> Answer:
    """Await one action; a browser-side failure (timeout, closed page) is an error answer."""
    started = time.perf_counter()
    try:
        return await action
    except Exception as exc:  # noqa: BLE001 (every failure is reported, none ends the run)
        return Answer(kind, time.perf_counter() - started, f"{type(exc).__name__}: {exc}"[:400])


async def run_sessions(base: str, plans: list[Plan]) -> tuple[list[SessionLog], float]:
    """All plans at once in one Chromium; (logs, wall seconds)."""
    from playwright.async_api import async_playwright

    logs = [SessionLog() for _ in plans]
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            started = time.perf_counter()
            await asyncio.gather(*(run_session(browser, base, plan, log)
                                   for plan, log in zip(plans, logs)))
            wall = time.perf_counter() - started
        finally:
            await browser.close()
    return logs, wall
