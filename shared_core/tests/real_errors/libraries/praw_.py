"""praw: the Python Reddit API Wrapper (PRAW 8 on prawcore 4) behind an agent's Reddit
tools, ``praw.Reddit(..., oauth_url=..., reddit_url=...)`` pointed at a local stand-in of
oauth.reddit.com / www.reddit.com (a script app: the stand-in hands out a bearer token on
``/api/v1/access_token`` unless the scenario is the token request itself).

The errors raised: ``praw.exceptions.RedditAPIException`` with its ``RedditErrorItem``
items (Reddit's ``{"json": {"errors": [[NAME, message, field]]}}`` replies, and a 400
``{"reason", "explanation", "fields"}`` that PRAW turns into one), prawcore's
``ResponseException`` family by status (``Forbidden``,
``InsufficientScope``, ``NotFound``, ``Conflict``, ``Redirect`` for a subreddit that does
not exist, ``TooManyRequests``, ``URITooLong``, ``UnavailableForLegalReasons``,
``ServerError``, ``BadJSON``), ``OAuthException`` / ``ResponseException`` from the token
request, ``RequestException`` wrapping ``requests``' transport errors, and PRAW's own checks
(``InvalidURL``, ``MissingRequiredAttributeException``, ``TypeError`` / ``ValueError``).

Error names and messages are reddit's (``r2/r2/lib/errors.py``, github.com/reddit-archive/
reddit: ``NO_TEXT`` "we need something here", ``TOO_LONG`` "this is too long (max: N)",
``BAD_URL``, ``NO_SELFS``, ``NO_LINKS``, ``BAD_SR_NAME``, ``NO_SUBJECT``,
``NON_PREFERENCE``, ``SUBREDDIT_NOEXIST``, ``SUBREDDIT_EXISTS``, ``ALREADY_SUB``,
``USER_DOESNT_EXIST``, ``DELETED_COMMENT``, ``COMMENT_NOT_ACCESSIBLE``, ``SUBREDDIT_NOTALLOWED``, ``USER_REQUIRED``,
``THREAD_LOCKED``, ``TOO_OLD``, ``IN_TIMEOUT``, ``RATELIMIT`` "you are doing that too much.
try again in %(time)s.", ``SUBREDDIT_RATELIMIT``), today's wording of the rate limit and
``SUBMIT_VALIDATION_FLAIR_REQUIRED`` as PRAW's docs and issues quote them; statuses and
bodies of the API (``{"message": "Forbidden", "error": 403}``, ``{"reason": "private",
...}``, 401 with ``www-authenticate: Bearer realm="reddit", error="insufficient_scope"``,
302 to ``/subreddits/search`` for a subreddit that does not exist, 429 with
``retry-after``, the token endpoint's ``{"error": "invalid_grant"}`` and 401; reddit.com/
dev/api, github.com/reddit-archive/reddit/wiki/OAuth2, PRAW's "Exceptions in PRAW" page).
The tool reports the first failure: prawcore's retry of a transport error is off (its
``FiniteRetryStrategy`` with no retries), and PRAW's own wait on a rate limit only runs for
waits under ``ratelimit_seconds`` (5 s), which none of these is.

Labels, by the cause set up:

- fixable: a title / body / subject the model wrote that is empty or too long, a URL that
  is not one, a text post where only links are allowed (or the reverse), a post without
  the flair the subreddit requires, a subreddit name that is not valid, a preference name
  that does not exist, a search query too long for a URL, and PRAW's checks (neither text
  nor URL, an empty subreddit name, a time filter not in the list, a URL that is not a
  post's or a comment's);
- unrecoverable: the bot account's password or the app's client credentials refused, a
  token without the scope, a private subreddit, posting not allowed there, the account
  suspended, a thread locked or archived, a post blocked for legal reasons, the tool set
  up without a ``client_id``;
- ambiguous: a subreddit, post, user or comment the model named that is not there (or
  deleted, removed, or mistyped), a link already submitted, a subreddit that already exists, a wiki
  edit that conflicts with a newer revision, a draft FILE the tool read whose body is too
  long (the model named only the path), and a reply PRAW cannot read (HTML);
- transient: ``RATELIMIT`` / ``SUBREDDIT_RATELIMIT``, 429, 503, refused, DNS (not
  executed); 500, 502, 504, read timeout, reset, close (unknown outcome).

Not triggered: media uploads (``TooLargeMediaException``, ``MediaPostFailed`` need
Reddit's S3 and websocket), ``SpecialError`` (415 bodies are not documented), and an
expired token (prawcore refreshes it itself).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "praw"
REQUIRES = ["praw==8.0.3", "prawcore==4.0.0", "update_checker==1.0.1"]

_ERR = "reddit r2/r2/lib/errors.py (github.com/reddit-archive/reddit); reddit.com/dev/api"
_OAUTH = "reddit OAuth2 (github.com/reddit-archive/reddit/wiki/OAuth2)"
_TOKEN = Reply(200, {"access_token": "1234567-aBcDeFgHiJkLmNoPqRsTuVwXyZ0123", "token_type": "bearer", "expires_in": 86400, "scope": "*"}, {}, _OAUTH)  # fmt: skip


def _api(name: str, message: str, field: str | None) -> Reply:
    """Reddit's api_type=json error reply (HTTP 200)."""
    return Reply(200, {"json": {"errors": [[name, message, field]]}}, {}, _ERR)


def _status(status: int, message: str, **extra: Any) -> Reply:
    return Reply(status, {**extra, "message": message, "error": status}, {}, "reddit.com/dev/api")


def _html(status: int, title: str, **headers: str) -> Reply:
    page = f"<!doctype html><html><head><title>{title}</title></head><body><h1>{title}</h1></body></html>"
    return Reply(status, page, headers, "reddit's edge error page")


_S = {"type": "string"}
_PARAMS: dict[str, dict[str, Any]] = {
    "reddit_submit_post": {
        "type": "object",
        "properties": {
            "subreddit": {**_S, "description": "Subreddit name without r/"},
            "title": {**_S, "description": "Post title"},
            "text": {**_S, "description": "Body of a text post (Markdown)"},
            "url": {**_S, "description": "Link of a link post"},
            "flair_id": {**_S, "description": "Post flair template id"},
        },
        "required": ["subreddit", "title"],
    },
    "reddit_post_from_draft": {
        "type": "object",
        "properties": {
            "subreddit": {**_S, "description": "Subreddit name without r/"},
            "path": {**_S, "description": "Path of the draft file (first line is the title)"},
        },
        "required": ["subreddit", "path"],
    },
    "reddit_reply": {
        "type": "object",
        "properties": {
            "comment_id": {**_S, "description": "Id of the comment to reply to"},
            "text": {**_S, "description": "Reply text (Markdown)"},
        },
        "required": ["comment_id", "text"],
    },
    "reddit_edit_comment": {
        "type": "object",
        "properties": {
            "comment_id": {**_S, "description": "Id of your comment"},
            "text": {**_S, "description": "New text (Markdown)"},
        },
        "required": ["comment_id", "text"],
    },
    "reddit_get_posts": {
        "type": "object",
        "properties": {
            "subreddit": {**_S, "description": "Subreddit name without r/"},
            "limit": {"type": "integer", "description": "Number of posts (max 100)"},
        },
        "required": ["subreddit"],
    },
    "reddit_search": {
        "type": "object",
        "properties": {
            "subreddit": {**_S, "description": "Subreddit name without r/"},
            "query": {**_S, "description": "Search query"},
            "time_filter": {
                **_S,
                "description": "Time window",
                "enum": ["all", "day", "hour", "month", "week", "year"],
            },
        },
        "required": ["subreddit", "query"],
    },
    "reddit_get_post": {
        "type": "object",
        "properties": {
            "post_id": {**_S, "description": "Id of the post (e.g. 1h2k3l4)"},
            "url": {**_S, "description": "Permalink of the post, instead of the id"},
        },
        "required": [],
    },
    "reddit_get_comment": {
        "type": "object",
        "properties": {"url": {**_S, "description": "Permalink of the comment"}},
        "required": ["url"],
    },
    "reddit_user_info": {
        "type": "object",
        "properties": {"username": {**_S, "description": "Reddit username without u/"}},
        "required": ["username"],
    },
    "reddit_send_message": {
        "type": "object",
        "properties": {
            "to": {**_S, "description": "Username of the recipient"},
            "subject": {**_S, "description": "Subject line"},
            "text": {**_S, "description": "Message body (Markdown)"},
        },
        "required": ["to", "subject", "text"],
    },
    "reddit_create_subreddit": {
        "type": "object",
        "properties": {
            "name": {**_S, "description": "Name of the new subreddit"},
            "title": {**_S, "description": "Title shown on the subreddit"},
        },
        "required": ["name", "title"],
    },
    "reddit_edit_wiki": {
        "type": "object",
        "properties": {
            "subreddit": {**_S, "description": "Subreddit name without r/"},
            "page": {**_S, "description": "Wiki page name"},
            "content": {**_S, "description": "New page content (Markdown)"},
        },
        "required": ["subreddit", "page", "content"],
    },
    "reddit_update_preferences": {
        "type": "object",
        "properties": {
            "preferences": {"type": "object", "description": "Preference names and their new values"}
        },
        "required": ["preferences"],
    },
    "reddit_subscribe": {
        "type": "object",
        "properties": {"subreddit": {**_S, "description": "Subreddit name without r/"}},
        "required": ["subreddit"],
    },
}

# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    # the model's arguments
    ("no-text-title", "submit_empty_title", _api("NO_TEXT", "we need something here", "title"), F, None, "post title empty"),
    ("too-long-title", "submit_long_title", _api("TOO_LONG", "this is too long (max: 300)", "title"), F, None, "post title over 300 characters"),
    ("bad-url", "submit_bad_url", _api("BAD_URL", "you should check that url", "url"), F, None, "link post URL malformed"),
    ("no-selfs", "submit_text", _api("NO_SELFS", "that subreddit doesn't allow text posts", "sr"), F, None, "text post where only links are allowed"),
    ("no-links", "submit_link", _api("NO_LINKS", "that subreddit only allows text posts", "sr"), F, None, "link post where only text is allowed"),
    ("flair-required", "submit_text", _api("SUBMIT_VALIDATION_FLAIR_REQUIRED", "Your post must contain post flair.", "flair"), F, None, "post without the flair the subreddit requires"),
    ("reply-no-text", "reply_empty", _api("NO_TEXT", "we need something here", "text"), F, None, "reply body empty"),
    ("reply-too-long", "reply_long", _api("TOO_LONG", "this is too long (max: 10000)", "text"), F, None, "reply over 10000 characters"),
    ("no-subject", "message_no_subject", _api("NO_SUBJECT", "please enter a subject", "subject"), F, None, "message without a subject"),
    ("bad-sr-name", "create_sr_bad", _api("BAD_SR_NAME", "that name isn't going to work", "name"), F, None, "subreddit name with characters not allowed"),
    ("non-preference", "prefs", Reply(400, {"fields": ["dark_mode"], "explanation": "'dark_mode' is not a user preference field", "reason": "NON_PREFERENCE"}, {}, _ERR), F, None, "preference name that does not exist"),
    ("uri-too-long", "search_long", _html(414, "414 Request-URI Too Large"), F, None, "search query too long for a URL"),
    # credentials, permissions, the account, the thread
    ("insufficient-scope", "submit_text", Reply(403, {"message": "Forbidden", "error": 403}, {"www-authenticate": 'Bearer realm="reddit", error="insufficient_scope"'}, _OAUTH), U, None, "app token lacks the submit scope"),
    ("private-subreddit", "hot", _status(403, "Forbidden", reason="private"), U, None, "subreddit is private"),
    ("not-allowed", "submit_text", _api("SUBREDDIT_NOTALLOWED", "you aren't allowed to post there.", "sr"), U, None, "account not allowed to post in the subreddit"),
    ("user-required", "message", _api("USER_REQUIRED", "Please log in to do that.", None), U, None, "tool's session is not logged in as a user"),
    ("suspended", "reply", _api("IN_TIMEOUT", "You can't do that while suspended.", None), U, None, "bot account suspended"),
    ("thread-locked", "reply", _api("THREAD_LOCKED", "Comments are locked.", "parent"), U, None, "thread locked by the moderators"),
    ("too-old", "reply", _api("TOO_OLD", "that's a piece of history now; it's too late to reply to it", "parent"), U, None, "thread archived"),
    ("legal", "get_post", _status(451, "Unavailable For Legal Reasons"), U, None, "post blocked for legal reasons"),
    # not there, already there, conflicting state, unreadable replies
    ("subreddit-redirect", "hot_missing", Reply(302, "", {"Location": "https://www.reddit.com/subreddits/search?q=pythn"}, "reddit.com: a subreddit that does not exist redirects to the search"), A, None, "subreddit does not exist (or mistyped)"),
    ("subreddit-noexist", "submit_missing", _api("SUBREDDIT_NOEXIST", "that subreddit doesn't exist", "sr"), A, None, "subreddit to post to does not exist"),
    ("post-not-found", "get_post", _status(404, "Not Found"), A, None, "post not found"),
    ("user-not-found", "user", _status(404, "Not Found"), A, None, "user not found"),
    ("banned-subreddit", "hot", _status(404, "Not Found", reason="banned"), A, None, "subreddit banned (answers as not found)"),
    ("user-doesnt-exist", "message", _api("USER_DOESNT_EXIST", "that user doesn't exist", "to"), A, None, "recipient does not exist"),
    ("deleted-comment", "reply", _api("DELETED_COMMENT", "that comment has been deleted", "parent"), A, None, "comment replied to was deleted"),
    ("comment-not-accessible", "edit", _api("COMMENT_NOT_ACCESSIBLE", "Cannot access this comment.", "thing_id"), A, None, "comment to edit removed or out of reach"),
    ("already-sub", "submit_link", _api("ALREADY_SUB", "that link has already been submitted", "url"), A, None, "link already submitted there"),
    ("subreddit-exists", "create_sr", _api("SUBREDDIT_EXISTS", "that subreddit already exists", "name"), A, None, "subreddit already exists"),
    ("wiki-conflict", "wiki", _status(409, "Conflict"), A, None, "wiki page changed since the revision edited"),
    ("draft-too-long", "draft", _api("TOO_LONG", "this is too long (max: 40000)", "text"), A, None, "draft file the tool read is over the body limit"),
    ("html-200", "hot", Reply(200, "<!doctype html><html><head><title>reddit.com: over capacity</title></head><body>Our CDN was unable to reach our servers</body></html>"), A, None, "an HTML page instead of the listing"),
    # load, outages
    ("ratelimit", "submit_text", _api("RATELIMIT", "you are doing that too much. try again in 5 minutes.", "ratelimit"), T, NE, "posting rate limit"),
    ("ratelimit-break", "reply", _api("RATELIMIT", "Looks like you've been doing that a lot. Take a break for 9 minutes before trying again.", "ratelimit"), T, NE, "commenting rate limit"),
    ("subreddit-ratelimit", "submit_link", _api("SUBREDDIT_RATELIMIT", "you are doing that too much. try again later.", None), T, NE, "subreddit's own rate limit"),
    ("too-many-requests", "hot", _html(429, "Too Many Requests", **{"retry-after": "7"}), T, NE, "API rate limit (429)"),
    ("service-unavailable", "get_post", _html(503, "Service Unavailable"), T, NE, "service unavailable"),
    ("server-error", "submit_text", _status(500, "Internal Server Error"), T, UO, "server error after the post was sent"),
    ("bad-gateway", "reply", _html(502, "Bad Gateway"), T, UO, "bad gateway after the reply was sent"),
    ("gateway-timeout", "hot", _html(504, "Gateway Time-out"), T, UO, "gateway timeout"),
]  # fmt: skip


def _calls(reddit: Any, tmp: Any) -> dict[str, tuple[str, dict[str, Any], Any]]:
    """call -> (tool, the model's arguments, the call); the credentials are the tool's."""
    body = "We tagged 2.3.0 today. Changelog in the comments."
    link = "https://example.org/blog/release-2-3"

    def submit(sr: str, title: str, **kw: Any) -> tuple[str, dict[str, Any], Any]:
        sent = {("selftext" if k == "text" else k): v for k, v in kw.items()}
        return (
            "reddit_submit_post",
            {"subreddit": sr, "title": title, **kw},
            lambda: reddit.subreddit(sr).submit(title, **sent),
        )

    def reply(text: str, cid: str = "kx9z2ab") -> tuple[str, dict[str, Any], Any]:
        return ("reddit_reply", {"comment_id": cid, "text": text}, lambda: reddit.comment(cid).reply(text))

    def message(to: str, subject: str) -> tuple[str, dict[str, Any], Any]:
        text = "Thanks for the report, fixed in 2.3.0."
        return (
            "reddit_send_message",
            {"to": to, "subject": subject, "text": text},
            lambda: reddit.redditor(to).message(subject=subject, message=text),
        )

    def draft() -> None:
        title, _, text = (tmp / "drafts" / "release-2-3.md").read_text().partition("\n")
        reddit.subreddit("selfhosted").submit(title, selftext=text)

    def listing(sr: str) -> tuple[str, dict[str, Any], Any]:
        return (
            "reddit_get_posts",
            {"subreddit": sr, "limit": 10},
            lambda: list(reddit.subreddit(sr).hot(limit=10)),
        )

    def search(q: str, tf: str = "week") -> tuple[str, dict[str, Any], Any]:
        return (
            "reddit_search",
            {"subreddit": "python", "query": q, "time_filter": tf},
            lambda: list(reddit.subreddit("python").search(q, time_filter=tf)),
        )

    def create(name: str) -> tuple[str, dict[str, Any], Any]:
        title = "Release notes of our tools"
        return (
            "reddit_create_subreddit",
            {"name": name, "title": title},
            lambda: reddit.subreddit.create(name, title=title),
        )

    wiki = "## Install\n\npip install ourtool\n"
    prefs = {"dark_mode": True}
    return {
        "submit_text": submit("selfhosted", "Release 2.3.0 is out", text=body),
        "submit_link": submit("programming", "Release 2.3.0 is out", url=link),
        "submit_empty_title": submit("selfhosted", "", text=body),
        "submit_long_title": submit("selfhosted", "Release 2.3.0 " + "with many improvements " * 14, text=body),
        "submit_bad_url": submit("programming", "Release 2.3.0 is out", url="htps//example.org/blog"),
        "submit_missing": submit("selfhostd", "Release 2.3.0 is out", text=body),
        "submit_neither": submit("selfhosted", "Release 2.3.0 is out"),
        "draft": ("reddit_post_from_draft", {"subreddit": "selfhosted", "path": "drafts/release-2-3.md"}, draft),
        "reply": reply("Fixed in 2.3.0, thanks!"),
        "reply_empty": reply(""),
        "reply_long": reply("Details: " + "the parser now handles nested lists. " * 300),
        "edit": ("reddit_edit_comment", {"comment_id": "kx9z2ab", "text": "Edit: fixed"}, lambda: reddit.comment("kx9z2ab").edit("Edit: fixed")),
        "message": message("jdoe_dev", "Your bug report"),
        "message_no_subject": message("jdoe_dev", ""),
        "hot": listing("selfhosted"),
        "hot_missing": listing("pythn"),
        "hot_empty": listing(""),
        "search_long": search("release notes " * 700),
        "search_filter": search("release notes", "fortnight"),
        "get_post": ("reddit_get_post", {"post_id": "1h2k3l4"}, lambda: reddit.submission("1h2k3l4").title),
        "get_post_url": ("reddit_get_post", {"url": "https://www.reddit.com/r/selfhosted/"}, lambda: reddit.submission(url="https://www.reddit.com/r/selfhosted/").title),
        "get_comment_url": ("reddit_get_comment", {"url": "https://www.reddit.com/r/selfhosted/comments/1h2k3l4/"}, lambda: reddit.comment(url="https://www.reddit.com/r/selfhosted/comments/1h2k3l4/").body),
        "user": ("reddit_user_info", {"username": "jdoe_dev"}, lambda: reddit.redditor("jdoe_dev").link_karma),
        "create_sr": create("ourtools"),
        "create_sr_bad": create("our tools!"),
        "wiki": ("reddit_edit_wiki", {"subreddit": "ourtools", "page": "install", "content": wiki}, lambda: reddit.subreddit("ourtools").wiki["install"].edit(content=wiki)),
        "prefs": ("reddit_update_preferences", {"preferences": prefs}, lambda: reddit.user.preferences.update(**prefs)),
        "subscribe": ("reddit_subscribe", {"subreddit": "selfhosted"}, lambda: reddit.subreddit("selfhosted").subscribe()),
    }  # fmt: skip


def cases(ctx: Any) -> Iterator[generate.Case]:
    import praw
    from prawcore import Requestor
    from prawcore.sessions import FiniteRetryStrategy

    class _Requestor(Requestor):
        """The tool's read timeout (prawcore's Session passes its 16 s default otherwise)."""

        def request(self, *args: Any, timeout: float | None = None, **kwargs: Any) -> Any:
            return super().request(*args, timeout=_saas.TIMEOUT, **kwargs)

    @dataclass(frozen=True)
    class _NoRetry(FiniteRetryStrategy):
        retries: int = 0

        def _sleep_seconds(self) -> float | None:
            return None  # no retry, so no back-off before the first try

    (ctx.tmp / "drafts").mkdir()
    (ctx.tmp / "drafts" / "release-2-3.md").write_text(
        "Release 2.3.0 is out\n" + "Changelog: the parser now handles nested lists.\n" * 900
    )

    def reddit(base: str, **kw: Any) -> Any:
        settings: dict[str, Any] = {
            "client_id": "p-jcoLKBynTLew",
            "client_secret": "gko_LXELoV07ZBNUXrvWZfzE3aI",
            "user_agent": "linux:agent-tools:v1.4 (by u/release_bot)",
            "username": "release_bot",
            "password": "correct-horse-battery",
            **kw,
        }
        r = praw.Reddit(
            oauth_url=base,
            reddit_url=base,
            requestor_class=_Requestor,
            check_for_updates=False,
            check_for_async=False,
            **settings,
        )
        for core in (r._authorized_core, r._read_only_core):
            if core is not None:
                core._retry_strategy_class = _NoRetry
        return r

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(
            f"praw-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args, parameters=_PARAMS[tool]
        )

    with _saas.service(ctx, "REDDITPORT", "snooserv") as svc:
        token = [_TOKEN]
        answer = svc.pick

        def pick(method: str, path: str) -> Reply | str:
            if path.startswith("/api/v1/access_token"):
                return token[0]
            return answer(method, path)

        svc.pick = pick  # type: ignore[method-assign]
        calls = _calls(reddit(svc.base), ctx.tmp)
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = calls[call]
            svc.reply(reply)
            yield case(key, cause, kind, outcome, _saas.caught(key, fn), tool, args)

        # the token request itself (the bot's credentials are the tool's configuration)
        svc.reply(Reply(200, {}))
        for key, reply, cause in [
            (
                "invalid-grant",
                Reply(200, {"error": "invalid_grant"}, {}, _OAUTH),
                "bot account's password refused",
            ),
            (
                "client-unauthorized",
                Reply(401, {"message": "Unauthorized", "error": 401}, {}, _OAUTH),
                "app's client id / secret refused",
            ),
        ]:
            token[0] = reply
            tool, args, fn = _calls(reddit(svc.base), ctx.tmp)["submit_text"]
            yield case(key, cause, U, None, _saas.caught(key, fn), tool, args)
        token[0] = _TOKEN

        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": "https://oauth.unreachable-host.invalid"}.get(
                key, svc.base
            )
            for call in {"hang": ("hot", "submit_text"), "reset": ("submit_text",)}.get(key, ("hot",)):
                tool, args, fn = _calls(reddit(base), ctx.tmp)[call]
                yield case(f"{key}-{call}", cause, kind, outcome, _saas.catch(fn), tool, args)

        # PRAW's own checks (nothing sent) and the tool's configuration
        svc.reply(Reply(200, {}))
        for key, call, cause in [
            ("neither-text-nor-url", "submit_neither", "post with neither text nor URL"),
            ("empty-subreddit", "hot_empty", "empty subreddit name"),
            ("time-filter", "search_filter", "time filter not one of the values"),
            ("post-url-invalid", "get_post_url", "URL of a subreddit given as a post's"),
            ("comment-url-invalid", "get_comment_url", "URL of a post given as a comment's"),
        ]:
            tool, args, fn = calls[call]
            yield case(key, cause, F, None, _saas.caught(key, fn), tool, args)
        tool, args, _ = calls["subscribe"]
        yield case(
            "no-client-id",
            "tool set up without a client_id",
            U,
            None,
            _saas.catch(lambda: reddit(svc.base, client_id=None)),
            tool,
            args,
        )
