"""`explorer build`'s side of the upgrade: which model a build of the default model uses, and
after it, whether the stronger model's background upgrade starts (said on stderr, one line)."""

from __future__ import annotations

import sys
from pathlib import Path

from explorer.artifacts.store import read_manifest
from explorer.errors import ExplorerError
from explorer.features.upgrade.stage import (
    LARGE,
    LIMIT_SECONDS,
    MISSING,
    QUESTION_LIMIT_MS,
    RUNNING,
    SAME,
    SAMPLE,
    SLOW,
    Plan,
    plan_upgrade,
    start_upgrade,
)
from explorer.features.upgrade.stage_status import clear_finished
from explorer.features.upgrade.ui import duration
from explorer.model.embedder import resolve_model
from explorer.settings import Settings

OFF_HINT = "--no-upgrade or EXPLORER_UPGRADE=off keeps the fast model"


def add_upgrade_flag(parser) -> None:
    parser.add_argument("--no-upgrade", action="store_true",
                        help="never re-embed with the stronger model in the background "
                             "(EXPLORER_UPGRADE=off likewise); --model MODEL also uses one model")


def upgrade_target(args, settings: Settings) -> str | None:
    """The model this build may upgrade to: None when --model/EXPLORER_MODEL chose one model,
    --no-upgrade or EXPLORER_UPGRADE=off."""
    if settings.query_model is not None or getattr(args, "no_upgrade", False):
        return None
    return settings.upgrade


def model_to_build(args, settings: Settings, out: Path) -> str:
    """The model a build uses: the upgraded one when the folder already holds its index (an
    update keeps it: new papers embed with it), else `settings.model`."""
    target = upgrade_target(args, settings)
    if target is None:
        return settings.model
    try:
        upgraded = read_manifest(out).model.fingerprint == resolve_model(target).fingerprint
    except ExplorerError:
        return settings.model
    return target if upgraded else settings.model


def after_build(args, settings: Settings, out: Path) -> Plan | None:
    """Start the background upgrade of `out` when it pays (stage.plan_upgrade); says what it
    does on stderr. Never fails the build: the fast index stays whatever happens."""
    target = upgrade_target(args, settings)
    try:
        plan = None if target is None else plan_upgrade(
            out, target, settings.cache_dir, settings.batch_size, _measuring)
        if plan is None or plan.reason not in ("", RUNNING):
            clear_finished(out)
        if plan is None:
            return None
        if not plan.reason:
            start_upgrade(out, args.paths, target, batch_size=settings.batch_size,
                          max_file_bytes=settings.max_file_bytes)
    except (ExplorerError, OSError) as exc:
        print(f"explorer: no upgrade: {exc}", file=sys.stderr)
        return None
    line = plan_line(plan, out)
    if line:
        print(f"explorer: {line}", file=sys.stderr, flush=True)
    return plan


def _measuring(model_id: str) -> None:
    print(f"explorer: timing {model_id.rsplit('/', 1)[-1]} on {SAMPLE} abstracts and a few "
          "questions here to plan its upgrade...", file=sys.stderr, flush=True)


def plan_line(plan: Plan, out: Path) -> str:
    """What the build says about its upgrade (empty when the index already has the model)."""
    if plan.reason == SAME:
        return ""
    if plan.reason == MISSING:
        return (f"{plan.detail} The index stays with the fast model; `make mpnet` (405 MB, once) "
                f"installs the stronger one and the next build upgrades to it ({OFF_HINT}).")
    name = plan.target.model_id.rsplit("/", 1)[-1] if plan.target else "?"
    minutes = f"about {duration(plan.seconds or 0)} at {plan.rate:.1f} papers/s here"
    if plan.reason == RUNNING:
        return f"the upgrade of {out} to {name} is under way ({plan.papers:,} papers to go)."
    if plan.reason == SLOW:
        return (f"{name} took {plan.question_ms:.0f} ms to embed a question here (timed again "
                f"at the next build if the computer was busy), over the {QUESTION_LIMIT_MS:.0f} "
                f"ms a question's model run may take: the index keeps the fast model "
                f"(`--model {name}` embeds with it anyway).")
    if plan.reason == LARGE:
        return (f"{plan.papers:,} papers would take {minutes} with {name}, over the "
                f"{LIMIT_SECONDS // 60}-minute limit of a background upgrade: the index keeps the "
                f"fast model (`explorer build ... --model {name}` embeds with {name} now).")
    return (f"upgrading {out} to {name} in the background: {plan.papers:,} papers, {minutes} "
            f"(nice 10; a question then takes {plan.question_ms or 0:.0f} ms to embed); "
            f"searchable meanwhile with the fast model, swapped whole when done. "
            f"Progress: the app's sidebar, or {out}/.upgrade.json ({OFF_HINT}).")
