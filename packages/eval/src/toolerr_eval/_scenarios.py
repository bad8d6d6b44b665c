"""The scenario suite: six read-only tools with typed arguments, ten scenarios each.

Every scenario is run with a transient, a fixable and an unrecoverable failure whose
error text the simulated tool runtime generates (several wordings per kind, chosen by the
scenario's index), and with a no-failure control. A scenario knows the correct next
action for each kind: repeat the call (transient), call again with the corrected value
(fixable), stop and tell the user (unrecoverable), and, for the control, anything but a
repeat of the call that just succeeded.

The failed call at the decision step is planned, in the studies' controlled-transcript
style: the scenario's correct call for transient and unrecoverable failures, the correct
call with one wrong value for fixable ones. Everything here is deterministic.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from toolerr import Message, ToolCall

__all__ = [
    "CONTROL",
    "FAILURE_KINDS",
    "ITEM_KINDS",
    "SYSTEM_PROMPT",
    "Item",
    "Scenario",
    "Tool",
    "build_suite",
    "correct_action",
    "error_text",
    "tool_specs",
]

FailureKind = Literal["transient", "fixable", "unrecoverable"]
ItemKind = Literal["transient", "fixable", "unrecoverable", "control"]
Action = Literal["repeat", "corrected", "stop", "not_repeat"]

FAILURE_KINDS: tuple[FailureKind, ...] = ("transient", "fixable", "unrecoverable")
CONTROL: ItemKind = "control"
ITEM_KINDS: tuple[ItemKind, ...] = ("transient", "fixable", "unrecoverable", "control")

SYSTEM_PROMPT = "You are a helpful assistant. Use the tools to answer the user's request."

CALL_ID = "call_1"


@dataclass(frozen=True)
class Tool:
    """A read-only tool: its schema and the service name its runtime errors mention."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    service: str
    scope: str

    def spec(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": dict(self.parameters)}


@dataclass(frozen=True)
class Fix:
    """The fixable failure of a scenario: one argument with a wrong value."""

    argument: str
    wrong: Any
    problem: str
    distractors: tuple[Any, Any]
    """Two other wrong values for the same argument (the probe's other wrong calls)."""


@dataclass(frozen=True)
class Scenario:
    """One user request answered by one call of one tool."""

    id: str
    tool: Tool
    index: int
    request: str
    arguments: Mapping[str, Any]
    fix: Fix
    result: str
    """The tool's successful result for the correct call."""

    @property
    def correct_call(self) -> ToolCall:
        return ToolCall(CALL_ID, self.tool.name, dict(self.arguments))

    def with_value(self, value: Any) -> dict[str, Any]:
        """The correct arguments with the fixable argument set to ``value`` (key order kept)."""
        return {key: (value if key == self.fix.argument else item) for key, item in self.arguments.items()}

    def failed_arguments(self, kind: ItemKind) -> dict[str, Any]:
        """The arguments of the planned call at the decision step."""
        return self.with_value(self.fix.wrong) if kind == "fixable" else dict(self.arguments)

    def failed_call(self, kind: ItemKind) -> ToolCall:
        return ToolCall(CALL_ID, self.tool.name, self.failed_arguments(kind))

    def other_wrong_arguments(self) -> list[dict[str, Any]]:
        return [self.with_value(value) for value in self.fix.distractors]

    def messages(self, kind: ItemKind) -> list[Message]:
        """The conversation at the decision step: the request, the planned call and its result
        (the runtime's error for a failure kind, the success result for the control)."""
        call = self.failed_call(kind)
        result = self.result if kind == CONTROL else error_text(self, kind)
        return [
            Message("system", SYSTEM_PROMPT),
            Message("user", self.request),
            Message("assistant", "", tool_calls=(call,)),
            Message("tool", result, tool_call_id=CALL_ID, name=self.tool.name),
        ]

    def opening(self) -> list[Message]:
        """The conversation before the first call (what clean restart goes back to)."""
        return [Message("system", SYSTEM_PROMPT), Message("user", self.request)]


@dataclass(frozen=True)
class Item:
    """One decision-step item: a scenario under one kind."""

    scenario: Scenario
    kind: ItemKind

    @property
    def id(self) -> str:
        return f"{self.scenario.id}:{self.kind}"


def correct_action(kind: ItemKind) -> Action:
    return {"transient": "repeat", "fixable": "corrected", "unrecoverable": "stop"}.get(kind, "not_repeat")  # type: ignore[return-value]


# -- error texts the runtime generates --------------------------------------------------

_TRANSIENT: tuple[str, ...] = (
    "Error: 503 Service Unavailable: {service} is temporarily unavailable. Please retry.",
    "Error: 429 Too Many Requests: rate limit of 5 requests per second exceeded for {service}. "
    "Retry after 1 second.",
    "Error: ConnectionResetError: [Errno 104] Connection reset by peer while contacting {service}.",
    "Error: 504 Gateway Timeout: {service} did not answer in time.",
)
_FIXABLE: tuple[str, ...] = (
    "Error: Invalid parameters: {argument} {problem}; got {wrong}. Use {right}.",
    "Error: 400 Bad Request: {argument}={wrong} was rejected: {argument} {problem}. "
    "The accepted value for this request is {right}.",
    "Error: 1 validation error for {tool}\n{argument}\n  {problem} [input_value={wrong}]; expected {right}.",
)
_UNRECOVERABLE: tuple[str, ...] = (
    "Error: 403 Forbidden: the API key of this assistant lacks the '{scope}' scope for {service}.",
    "Error: 401 Unauthorized: the {service} credentials of this account were revoked.",
    "Error: PermissionError: [Errno 13] Permission denied: this account may not read {service} data.",
    "Error: 429 Too Many Requests: the monthly quota of {service} is exhausted for this account; "
    "no further requests are accepted this billing period.",
)
WORDINGS: Mapping[str, tuple[str, ...]] = {
    "transient": _TRANSIENT,
    "fixable": _FIXABLE,
    "unrecoverable": _UNRECOVERABLE,
}


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def error_text(scenario: Scenario, kind: ItemKind, wording: int | None = None) -> str:
    """The runtime's error for ``scenario`` failing with ``kind``; the wording is the
    scenario's index modulo the number of wordings unless given."""
    if kind == CONTROL:
        raise ValueError("the control has no error")
    templates = WORDINGS[kind]
    template = templates[(scenario.index if wording is None else wording) % len(templates)]
    fix = scenario.fix
    return template.format(
        service=scenario.tool.service,
        scope=scenario.tool.scope,
        tool=scenario.tool.name,
        argument=fix.argument,
        problem=fix.problem,
        wrong=_json(fix.wrong),
        right=_json(scenario.arguments[fix.argument]),
    )


# -- the tools ---------------------------------------------------------------------------

_STR = {"type": "string"}
_INT = {"type": "integer"}


def _schema(properties: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    return {"type": "object", "properties": dict(properties), "required": list(properties)}


FLIGHTS = Tool(
    "search_flights",
    "Search flights between two airports on a date.",
    _schema(
        {
            "origin": {**_STR, "description": "3-letter IATA airport code"},
            "destination": {**_STR, "description": "3-letter IATA airport code"},
            "date": {**_STR, "description": "YYYY-MM-DD"},
            "passengers": {**_INT, "minimum": 1, "maximum": 9},
        }
    ),
    "the flight search service",
    "flights:read",
)
ORDERS = Tool(
    "get_order_status",
    "Get the status of a shop order.",
    _schema(
        {
            "order_id": {**_STR, "description": "ORD- followed by 6 digits"},
            "email": {**_STR, "description": "the customer's e-mail address"},
        }
    ),
    "the order service",
    "orders:read",
)
PARCELS = Tool(
    "track_parcel",
    "Track a parcel by carrier and tracking number.",
    _schema(
        {
            "carrier": {**_STR, "enum": ["ups", "dhl", "fedex", "usps", "gls"]},
            "tracking_number": {**_STR, "description": "no spaces"},
        }
    ),
    "the parcel tracking service",
    "parcels:read",
)
BOOKS = Tool(
    "search_books",
    "Search a library catalogue.",
    _schema(
        {
            "query": _STR,
            "language": {**_STR, "enum": ["en", "fr", "de", "es", "it"]},
            "max_results": {**_INT, "minimum": 1, "maximum": 20},
        }
    ),
    "the library catalogue",
    "catalogue:read",
)
ROOMS = Tool(
    "check_room_availability",
    "Check free rooms in a hotel.",
    _schema(
        {
            "hotel": _STR,
            "check_in": {**_STR, "description": "YYYY-MM-DD"},
            "nights": {**_INT, "minimum": 1},
            "guests": {**_INT, "minimum": 1},
        }
    ),
    "the hotel booking service",
    "rooms:read",
)
MENUS = Tool(
    "get_menu",
    "Get a restaurant's menu for a day of the week.",
    _schema(
        {
            "restaurant": _STR,
            "day": {
                **_STR,
                "enum": ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"],
            },
            "diet": {**_STR, "enum": ["any", "vegetarian", "vegan", "gluten_free"]},
        }
    ),
    "the menu service",
    "menus:read",
)
TOOLS: tuple[Tool, ...] = (FLIGHTS, ORDERS, PARCELS, BOOKS, ROOMS, MENUS)


def tool_specs() -> list[dict[str, Any]]:
    return [tool.spec() for tool in TOOLS]


# -- scenario data -------------------------------------------------------------------------


def _dmy(date: str) -> str:
    year, month, day = date.split("-")
    return f"{day}/{month}/{year}"


def _mdy(date: str) -> str:
    year, month, day = date.split("-")
    return f"{month}-{day}-{year}"


def _ymd_slash(date: str) -> str:
    return date.replace("-", "/")


@dataclass(frozen=True)
class _Spec:
    request: str
    arguments: dict[str, Any]
    result: str
    extra: dict[str, Any] = field(default_factory=dict)


FixRule = Callable[[_Spec], Fix]

_CITY = {
    "CDG": "Paris",
    "FCO": "Rome",
    "JFK": "New York",
    "LHR": "London",
    "MAD": "Madrid",
    "BER": "Berlin",
    "AMS": "Amsterdam",
    "LIS": "Lisbon",
    "VIE": "Vienna",
    "DUB": "Dublin",
    "ATH": "Athens",
    "CPH": "Copenhagen",
}


def _flights() -> tuple[list[_Spec], list[FixRule]]:
    rows = [
        ("CDG", "FCO", "2026-12-03", 2),
        ("JFK", "LHR", "2026-12-10", 1),
        ("MAD", "BER", "2027-01-15", 3),
        ("AMS", "LIS", "2026-12-20", 2),
        ("VIE", "DUB", "2027-02-01", 1),
        ("ATH", "CPH", "2027-03-12", 4),
        ("LHR", "CDG", "2026-12-05", 2),
        ("FCO", "MAD", "2027-01-08", 1),
        ("BER", "AMS", "2027-02-14", 2),
        ("LIS", "VIE", "2027-04-02", 3),
    ]
    specs = []
    for origin, destination, date, passengers in rows:
        people = "1 passenger" if passengers == 1 else f"{passengers} passengers"
        specs.append(
            _Spec(
                f"Find flights from {_CITY[origin]} ({origin}) to {_CITY[destination]} ({destination}) "
                f"on {date} for {people}.",
                {"origin": origin, "destination": destination, "date": date, "passengers": passengers},
                _json(
                    {
                        "flights": [
                            {
                                "flight": f"{origin[:2]}{412 + passengers}",
                                "departs": "08:10",
                                "price_eur": 129,
                            }
                        ]
                    }
                ),
            )
        )
    rules: list[FixRule] = [
        lambda s: Fix(
            "date",
            _dmy(s.arguments["date"]),
            "must be in YYYY-MM-DD format",
            (_mdy(s.arguments["date"]), _ymd_slash(s.arguments["date"])),
        ),
        lambda s: Fix(
            "origin",
            _CITY[s.arguments["origin"]],
            "must be a 3-letter IATA airport code",
            (s.arguments["origin"].lower(), f"{s.arguments['origin']} airport"),
        ),
        lambda s: Fix(
            "destination",
            _CITY[s.arguments["destination"]],
            "must be a 3-letter IATA airport code",
            (s.arguments["destination"].lower(), f"{s.arguments['destination']} airport"),
        ),
        lambda s: Fix(
            "passengers",
            str(s.arguments["passengers"]),
            "must be an integer, not a string",
            (f"{s.arguments['passengers']} adults", s.arguments["passengers"] + 10),
        ),
    ]
    return specs, rules


def _orders() -> tuple[list[_Spec], list[FixRule]]:
    rows = [
        ("482913", "ana.silva@example.com"),
        ("100257", "tom.b@example.org"),
        ("734460", "li.wei@example.net"),
        ("559012", "sara.k@example.com"),
        ("861234", "marc.dupont@example.fr"),
        ("203948", "jonas@example.de"),
        ("675501", "priya.n@example.in"),
        ("318872", "olga.p@example.com"),
        ("990143", "kenji.t@example.jp"),
        ("447620", "maria.r@example.es"),
    ]
    specs = [
        _Spec(
            f"What is the status of my order ORD-{number}? My e-mail is {email}.",
            {"order_id": f"ORD-{number}", "email": email},
            _json({"order_id": f"ORD-{number}", "status": "shipped", "expected": "2026-12-02"}),
        )
        for number, email in rows
    ]
    rules: list[FixRule] = [
        lambda s: Fix(
            "order_id",
            s.arguments["order_id"][4:],
            "must start with 'ORD-'",
            ("ORD" + s.arguments["order_id"][4:], "#" + s.arguments["order_id"][4:]),
        ),
        lambda s: Fix(
            "email",
            s.arguments["email"].replace("@", " at "),
            "is not a valid e-mail address",
            (s.arguments["email"].split("@")[0], s.arguments["email"].replace("@", "@@")),
        ),
        lambda s: Fix(
            "order_id",
            s.arguments["order_id"].lower(),
            "must be upper case (ORD-NNNNNN)",
            (s.arguments["order_id"].replace("-", " "), s.arguments["order_id"].replace("-", "_")),
        ),
    ]
    return specs, rules


def _parcels() -> tuple[list[_Spec], list[FixRule]]:
    names = {"ups": "UPS", "dhl": "DHL Express", "fedex": "FedEx", "usps": "USPS", "gls": "GLS"}
    rows = [
        ("ups", "1Z999AA10123456784"),
        ("dhl", "JD014600003828"),
        ("fedex", "449044304137821"),
        ("usps", "9400111899223197428490"),
        ("gls", "ZA4CX2NP"),
        ("dhl", "JD014600009911"),
        ("ups", "1Z12345E0205271688"),
        ("fedex", "612999880000155"),
        ("gls", "YB7QK4TM"),
        ("usps", "9205590164917312751089"),
    ]
    specs = [
        _Spec(
            f"Where is my {names[carrier]} parcel? The tracking number is {number}.",
            {"carrier": carrier, "tracking_number": number},
            _json({"status": "in transit", "location": "Leipzig hub", "eta": "2026-12-01"}),
            {"name": names[carrier]},
        )
        for carrier, number in rows
    ]

    def spaced(number: str) -> str:
        return " ".join(number[i : i + 4] for i in range(0, len(number), 4))

    rules: list[FixRule] = [
        lambda s: Fix(
            "carrier",
            s.extra["name"],
            "must be one of ups, dhl, fedex, usps, gls",
            (s.extra["name"].upper() + " Inc", s.arguments["carrier"] + "-express"),
        ),
        lambda s: Fix(
            "tracking_number",
            spaced(s.arguments["tracking_number"]),
            "must not contain spaces",
            (s.arguments["tracking_number"][:-2], s.arguments["tracking_number"] + "0"),
        ),
        lambda s: Fix(
            "tracking_number",
            "#" + s.arguments["tracking_number"],
            "must not start with '#'",
            (s.arguments["tracking_number"] + ".", s.arguments["tracking_number"][1:]),
        ),
    ]
    return specs, rules


def _books() -> tuple[list[_Spec], list[FixRule]]:
    languages = {"en": "English", "fr": "French", "de": "German", "es": "Spanish", "it": "Italian"}
    rows = [
        ("the little prince", "fr", 5),
        ("history of rome", "en", 10),
        ("quantum physics for beginners", "de", 3),
        ("one hundred years of solitude", "es", 5),
        ("the name of the rose", "it", 2),
        ("climate change", "en", 8),
        ("les miserables", "fr", 4),
        ("the magic mountain", "de", 6),
        ("don quixote", "es", 3),
        ("renaissance art", "it", 7),
    ]
    specs = [
        _Spec(
            f"Find up to {count} books about '{query}' in {languages[language]}.",
            {"query": query, "language": language, "max_results": count},
            _json({"results": [{"title": query.title(), "year": 1999}], "total": count}),
            {"language": languages[language]},
        )
        for query, language, count in rows
    ]
    rules: list[FixRule] = [
        lambda s: Fix(
            "language",
            s.extra["language"],
            "must be a 2-letter language code (en, fr, de, es, it)",
            (s.extra["language"].lower(), s.arguments["language"].upper()),
        ),
        lambda s: Fix(
            "max_results",
            str(s.arguments["max_results"]),
            "must be an integer, not a string",
            (s.arguments["max_results"] + 50, f"{s.arguments['max_results']} books"),
        ),
        lambda s: Fix(
            "query",
            s.arguments["query"].upper() + "!!",
            "must not contain '!'",
            (s.arguments["query"] + "!", ""),
        ),
    ]
    return specs, rules


def _rooms() -> tuple[list[_Spec], list[FixRule]]:
    rows = [
        ("Hotel Lutetia", "2026-12-14", 3, 2),
        ("Grand Hotel Wien", "2027-01-04", 2, 1),
        ("Hotel Arts Barcelona", "2027-02-20", 4, 2),
        ("The Savoy", "2026-12-28", 1, 2),
        ("Hotel Adlon", "2027-03-09", 5, 3),
        ("Pestana Palace", "2027-04-15", 2, 2),
        ("Hotel de Rome", "2027-01-22", 3, 1),
        ("Ritz Madrid", "2027-05-01", 2, 4),
        ("Hotel Danieli", "2027-02-02", 6, 2),
        ("The Shelbourne", "2026-12-19", 1, 1),
    ]
    specs = []
    for hotel, check_in, nights, guests in rows:
        specs.append(
            _Spec(
                f"Is there a free room at {hotel} from {check_in} for {nights} "
                f"night{'s' if nights > 1 else ''}, {guests} guest{'s' if guests > 1 else ''}?",
                {"hotel": hotel, "check_in": check_in, "nights": nights, "guests": guests},
                _json({"available": True, "rooms": [{"type": "double", "price_eur": 210}]}),
            )
        )
    rules: list[FixRule] = [
        lambda s: Fix(
            "check_in",
            _dmy(s.arguments["check_in"]),
            "must be in YYYY-MM-DD format",
            (_mdy(s.arguments["check_in"]), _ymd_slash(s.arguments["check_in"])),
        ),
        lambda s: Fix(
            "nights",
            s.arguments["nights"] * 24,
            "must be a number of nights, not hours",
            (0, -s.arguments["nights"]),
        ),
        lambda s: Fix(
            "guests",
            str(s.arguments["guests"]),
            "must be an integer, not a string",
            (s.arguments["guests"] + 20, 0),
        ),
        lambda s: Fix(
            "hotel",
            s.arguments["hotel"].lower().replace(" ", "_"),
            "is not a known hotel name",
            (s.arguments["hotel"].upper(), s.arguments["hotel"].split()[-1]),
        ),
    ]
    return specs, rules


_DIET_SLIPS = {"any": "all", "vegetarian": "veggie", "vegan": "plant-based", "gluten_free": "gluten-free"}


def _menus() -> tuple[list[_Spec], list[FixRule]]:
    rows = [
        ("Chez Marie", "monday", "vegetarian"),
        ("Trattoria Roma", "friday", "any"),
        ("Green Leaf", "wednesday", "vegan"),
        ("Sakura", "saturday", "gluten_free"),
        ("Le Petit Bistro", "sunday", "vegetarian"),
        ("Casa Lola", "tuesday", "any"),
        ("The Oak Room", "thursday", "gluten_free"),
        ("Spice Garden", "friday", "vegan"),
        ("Nordic Table", "monday", "any"),
        ("Blue Harbour", "saturday", "vegetarian"),
    ]
    diet_words = {"any": "", "vegetarian": " vegetarian", "vegan": " vegan", "gluten_free": " gluten-free"}
    specs = [
        _Spec(
            f"What{diet_words[diet]} dishes does {restaurant} serve on {day.capitalize()}?"
            + (" Diet: any." if diet == "any" else f" Diet: {diet}."),
            {"restaurant": restaurant, "day": day, "diet": diet},
            _json({"dishes": ["soup of the day", "risotto", "apple tart"]}),
        )
        for restaurant, day, diet in rows
    ]
    rules: list[FixRule] = [
        lambda s: Fix(
            "day",
            s.arguments["day"].capitalize(),
            "must be lower case",
            (s.arguments["day"].upper(), s.arguments["day"][:3]),
        ),
        lambda s: Fix(
            "diet",
            _DIET_SLIPS[s.arguments["diet"]],
            "must be one of any, vegetarian, vegan, gluten_free",
            (s.arguments["diet"].upper(), s.arguments["diet"] + "s"),
        ),
        lambda s: Fix(
            "day", "2026-12-07", "must be a day of the week, not a date", ("today", s.arguments["day"] + "s")
        ),
    ]
    return specs, rules


_BUILDERS: tuple[tuple[Tool, Callable[[], tuple[list[_Spec], list[FixRule]]]], ...] = (
    (FLIGHTS, _flights),
    (ORDERS, _orders),
    (PARCELS, _parcels),
    (BOOKS, _books),
    (ROOMS, _rooms),
    (MENUS, _menus),
)


def build_suite(per_tool: int | None = None, tools: Sequence[str] | None = None) -> list[Scenario]:
    """The scenarios, tool by tool (``per_tool`` first scenarios of each, default all ten)."""
    out: list[Scenario] = []
    for tool, builder in _BUILDERS:
        if tools and tool.name not in tools:
            continue
        specs, rules = builder()
        count = len(specs) if per_tool is None else max(0, min(per_tool, len(specs)))
        for index, spec in enumerate(specs[:count]):
            fix = rules[index % len(rules)](spec)
            out.append(
                Scenario(
                    id=f"{tool.name}-{index:02d}",
                    tool=tool,
                    index=index,
                    request=spec.request,
                    arguments=dict(spec.arguments),
                    fix=fix,
                    result=spec.result,
                )
            )
    return out
