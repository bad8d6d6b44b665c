"""Exception classes to rules by name, without importing their libraries: a class is
identified by ``module.QualName`` and matched against :data:`toolerr._rules.EXCEPTIONS` by
name inside a module prefix; an exception name printed in a text (``httpx.ReadTimeout``,
``TimeoutError``) is matched the same way (``_exceptions`` reads the objects, ``_detect``
and ``_classify`` the texts).
"""

from __future__ import annotations

from typing import Any

from . import _rules as R
from ._failopen import safe_getattr

__all__ = ["class_name", "lookup_class", "lookup_name"]

_BY_NAME: dict[str, tuple[R.ExceptionRule, ...]] = {}
for _rule in R.EXCEPTIONS:
    _BY_NAME[_rule.name] = (*_BY_NAME.get(_rule.name, ()), _rule)

# A bare name in a text is taken for an exception only with one of these endings (and not
# the ending alone: "Timeout: 30s" is a setting).
_BARE_SUFFIXES = ("Error", "Exception", "Timeout", "Expired")


def class_name(cls: Any) -> tuple[str, str, str]:
    """(module, qualname, display name) of a class; never raises."""
    module = safe_getattr(cls, "__module__")
    qualname = safe_getattr(cls, "__qualname__") or safe_getattr(cls, "__name__")
    module = module if isinstance(module, str) else ""
    qualname = qualname if isinstance(qualname, str) else "?"
    if module in ("", "builtins", "__builtin__"):
        return "builtins", qualname, qualname
    return module, qualname, f"{module}.{qualname}"


def lookup_class(module: str, qualname: str) -> R.ExceptionRule | None:
    """The rule for a class given its module and qualified name, if any."""
    for rule in _BY_NAME.get(qualname, ()):
        prefix = rule.prefix
        if module == prefix or module.startswith(prefix + "."):
            return rule
    return None


def lookup_name(name: str) -> R.ExceptionRule | None:
    """The rule for an exception name as printed in a text (``httpx.ReadTimeout``,
    ``TimeoutError``). A bare name is taken only if it ends like an exception name."""
    module, _, qualname = name.rpartition(".")
    if module:
        rule = lookup_class(module, qualname)
        if rule is not None:
            return rule
        # "requests.ConnectionError", "openai.error.RateLimitError": first component as prefix
        top = module.split(".", 1)[0]
        for candidate in _BY_NAME.get(qualname, ()):
            if candidate.prefix.split(".", 1)[0] == top:
                return candidate
        return None
    if qualname in _BARE_SUFFIXES or not qualname.endswith(_BARE_SUFFIXES):
        return None
    if qualname in R.AMBIGUOUS_BARE_NAMES:
        return None
    rules = _BY_NAME.get(qualname, ())
    for rule in rules:
        if rule.prefix == "builtins":
            return rule
    return rules[0] if rules else None
