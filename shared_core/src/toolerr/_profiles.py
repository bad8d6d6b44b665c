"""Named delivery profiles: a form per kind of failure, each with the evidence it comes from.

A profile is data. Select one with ``form="small-local"`` (or ``profile="small-local"``) on
any adapter or :class:`toolerr.Policy`; :data:`PROFILES` lists them. A profile can also be
a JSON file (``toolerr eval --calibrate`` writes one): ``profile="path/to/profile.json"``
or :func:`toolerr.load_profile`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ._types import Form, Kind


@dataclass(frozen=True)
class Profile:
    """A named choice of form per kind, and where the choice comes from."""

    name: str
    forms: Mapping[Kind, Form]
    """The form of each kind; a kind not listed gets the policy's default form (``c3``)."""
    evidence: str
    """What was measured, and where: the reason for this choice."""
    ban: bool = False
    """Whether the local backend also bans the failed call at the decoder with this profile."""
    details: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Everything a profile file holds (:func:`toolerr.load_profile`): the model, the date,
    the splits and the per-kind measures with intervals that chose the forms. Empty for the
    built-in profiles, whose evidence is :attr:`evidence`."""


STUDY_C3 = Profile(
    name="study-c3",
    forms=MappingProxyType({"transient": "c3", "fixable": "c3", "unrecoverable": "c3", "ambiguous": "c3"}),
    evidence=(
        "Same Error, Different Recovery: form C3 (the failed exchange kept, the runtime note "
        "in the next user turn) is the aggregate best over the study's 3-70B models. "
        "toolerr's default for every model it has not measured itself."
    ),
)

SMALL_LOCAL = Profile(
    name="small-local",
    forms=MappingProxyType(
        {"transient": "c3", "fixable": "abstract", "unrecoverable": "abstract", "ambiguous": "c3"}
    ),
    evidence=(
        "Measured by this project on SmolLM2-135M-Instruct (benchmarks/RESULTS_eval.md, "
        "sections 1, 2 and 2b; 60 scenarios, 95% bootstrap intervals). Transient: with the "
        "failed call kept (c0, c1, c3) the forced reply retries it 77-87%, under abstract 0%, "
        "so transient keeps c3. Fixable: abstract (+ban) cuts exact repeats to 0-3% (c0 82%, "
        "c3 88%) and the failed arguments written again to 3% (c3 97%); forced-episode loops "
        "47% (abstract+ban) against 58-61% for the other ban harnesses. Unrecoverable: "
        "abstract turns 100% of the replies into an answer to the user (stop in prose; c3 "
        "68%, c0 28%). Used with the decoder ban on."
    ),
    ban=True,
)

PROFILES: Mapping[str, Profile] = MappingProxyType({p.name: p for p in (STUDY_C3, SMALL_LOCAL)})
"""The named profiles, by name."""
