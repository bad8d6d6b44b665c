# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""croniter: cron expressions, start times and iteration options the model wrote in its
arguments (fixable); crontab lines read from a file on disk or from a scheduler's job list
on 127.0.0.1 (ambiguous); a valid but rare schedule that the tool's search bound
(``max_years_between_matches``) gives up on (unrecoverable).

Labels follow the cause: a ``schedule_job`` tool passes the model's expression and start
time straight to ``croniter``, so a rejected field, an impossible date (30 February) or a
wrong return type is the model's to fix (croniter's README lists the accepted syntax:
https://github.com/kiorky/croniter#usage). The same parser failing on a line of a
``crontab`` file or on a job the scheduler's API returned reads text the model never wrote:
ambiguous. ``0 0 29 2 1`` with ``day_or=False`` (29 February on a Monday) is a valid
schedule whose next match lies beyond the tool's five-year search: no rewording of that
schedule passes, so unrecoverable.
croniter has no timeout, no network and no optional dependency to miss.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any

from generate import A, Case, F, U, _catch

from . import _serve

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "croniter"
REQUIRES = ["croniter>=7,<8"]

BASE = datetime(2024, 1, 1)
START = BASE.isoformat()  # the start time as the model wrote it

# (name, the expression an LLM wrote)
MODEL_EXPRESSIONS: list[tuple[str, str]] = [
    ("english", "every 5 minutes"),
    ("english-time", "daily at 9am"),
    ("four-fields", "*/5 * * *"),
    ("eight-fields", "0 0 * * * * * *"),
    ("empty", ""),
    ("at-every", "@every 5m"),
    ("at-reboot", "@reboot"),
    ("trailing-comment", "0 9 * * *  # every morning"),
    ("minute-60", "60 * * * *"),
    ("hour-24", "* 24 * * *"),
    ("day-32", "0 0 32 * *"),
    ("month-13", "0 0 * 13 *"),
    ("weekday-8", "0 0 * * 8"),
    ("seconds-61", "* * * * * 61"),
    ("year-1999", "0 0 1 1 * 1999"),
    ("negative-minute", "-5 * * * *"),
    ("bad-day-name", "0 0 * * MON-XYZ"),
    ("month-full-name", "0 0 * JANUARY *"),
    ("misspelled-day", "0 12 * * Mon,Wdn"),
    ("timezone-suffix", "0 9 * * 1-5 America/New_York"),
    ("empty-list-item", "1,2,,3 * * * *"),
    ("double-range", "1-2-3 * * * *"),
    ("clock-time", "9:00 * * * *"),
    ("shell-suffix", "0 9 * * 1-5 ; rm"),
    ("step-zero", "*/0 * * * *"),
    ("range-step-zero", "0 0 1-31/0 * *"),
    ("range-out-of-bands", "0-60/5 * * * *"),
    ("nth-weekday-6", "0 0 * * 5#6"),
    ("nth-weekday-0", "0 0 * * SUN#0"),
    ("last-minus-offset", "0 0 L-3 * *"),
    ("quartz-question-mark", "0 0/5 * * * ?"),
    ("quartz-seconds-first", "0 0 12 ? * MON-FRI"),
    ("jenkins-hash", "H * * * *"),
]


def model_calls() -> list[tuple[str, dict[str, Any], Callable[[], Any]]]:
    """(name, the model's arguments, the call) of each bad argument."""
    from croniter import croniter, croniter_range

    calls: list[tuple[str, dict[str, Any], Callable[[], Any]]] = [
        (name, {"expression": text, "start": START}, lambda text=text: croniter(text, BASE))
        for name, text in MODEL_EXPRESSIONS
    ]
    calls += [
        (
            "never-feb-30",
            {"expression": "0 0 30 2 *", "start": START},
            lambda: croniter("0 0 30 2 *", BASE).get_next(datetime),
        ),
        (
            "never-apr-31",
            {"expression": "0 0 31 4 *", "start": START},
            lambda: croniter("0 0 31 4 *", BASE).get_next(datetime),
        ),
        (
            "expression-list",
            {"expression": ["0", "0", "*", "*", "*"], "start": START},
            lambda: croniter(["0", "0", "*", "*", "*"], BASE),
        ),
        ("expression-null", {"expression": None, "start": START}, lambda: croniter(None, BASE)),
        (
            "hash-id-number",
            {"expression": "H * * * *", "start": START, "hash_id": 5},
            lambda: croniter("H * * * *", BASE, hash_id=5),
        ),
        (
            "range-mixed-types",
            {"expression": "* * * * *", "start": START, "end": 5},
            lambda: list(croniter_range(BASE, 5, "* * * * *")),
        ),
        (
            "start-year-9999",
            {"expression": "* * * * *", "start": "9999-12-31T23:59:00"},
            lambda: croniter("* * * * *", datetime(9999, 12, 31, 23, 59)).get_next(datetime),
        ),
        (
            "start-epoch-huge",
            {"expression": "* * * * *", "start": 1e20},
            lambda: croniter("* * * * *", 1e20).get_next(datetime),
        ),
    ]
    return calls


def cases(ctx: Context) -> Iterator[Case]:
    from croniter import croniter

    for name, args, fn in model_calls():
        exc = _catch(fn)
        yield Case(f"croniter-{name}", LIBRARY, f"cron argument ({name})", F, None, exc, "schedule_job", args)

    # crontab lines from disk: the tool reads them, the model did not write them
    crontab = ctx.tmp / "crontab"
    crontab.write_text("0 3 * * * /usr/local/bin/backup\n0 25 * * * /usr/local/bin/report\n")

    def read_crontab() -> None:
        for line in crontab.read_text().splitlines():
            croniter(" ".join(line.split()[:5]), BASE)

    yield Case(
        "croniter-crontab-file-bad-line",
        LIBRARY,
        "crontab file on disk has a bad line",
        A,
        None,
        _catch(read_crontab),
        "list_jobs",
        {"path": str(crontab)},
    )
    nightly = ctx.tmp / "cron.d" / "nightly"
    exc = _catch(lambda: croniter(nightly.read_text(), BASE))
    yield Case(
        "croniter-crontab-file-missing",
        LIBRARY,
        "cron file does not exist",
        A,
        None,
        exc,
        "list_jobs",
        {"path": str(nightly)},
    )

    # a scheduler's job list (its own expression dialect) fetched from a service
    jobs = {
        "/jobs/report": ("text/plain", b"0 0 12 ? * MON-FRI *"),
        "/jobs/cleanup": ("text/plain", b"0 0 L-3 * *"),
    }
    with _serve.documents(jobs) as port:
        ctx.name_port(port, "SCHEDPORT")
        for job in ("report", "cleanup"):
            exc = _catch(lambda: croniter(_serve.get(port, f"/jobs/{job}"), BASE).get_next(datetime))
            yield Case(
                f"croniter-service-{job}",
                LIBRARY,
                "scheduler service returned an expression croniter rejects",
                A,
                None,
                exc,
                "next_runs",
                {"job": job},
            )

    # valid, rare schedules beyond the tool's search bound
    rare = lambda: croniter("0 0 29 2 1", BASE, day_or=False, max_years_between_matches=5)  # noqa: E731
    rare_args: dict[str, Any] = {"expression": "0 0 29 2 1", "start": START, "day_or": False}
    yield Case(
        "croniter-search-bound-next",
        LIBRARY,
        "next match beyond the search bound",
        U,
        None,
        _catch(lambda: rare().get_next(datetime)),
        "next_runs",
        rare_args,
    )
    yield Case(
        "croniter-search-bound-prev",
        LIBRARY,
        "previous match beyond the search bound",
        U,
        None,
        _catch(lambda: rare().get_prev(datetime)),
        "next_runs",
        {**rare_args, "direction": "previous"},
    )
