"""spotipy (the Spotify Web API client) behind a music tool, pointed at a local stand-in of
``api.spotify.com/v1`` through the client's ``prefix`` (the API root every call is joined
to) and, for the Accounts service, the auth manager's ``OAUTH_TOKEN_URL``. The tool's
``Spotify`` gets an access token of its own (or a ``SpotifyClientCredentials`` /
``SpotifyOAuth`` manager with an in-memory token cache), a ``requests`` session without
retries and ``requests_timeout=1``; the ``-retried`` cases keep spotipy's own session (its
``Retry`` on 429 / 500 / 502 / 503 / 504) with one retry and no back-off.

The stand-in answers the Web API's documented error object ``{"error": {"status": N,
"message": ...}}`` with the statuses of "API calls" (developer.spotify.com/documentation/web-api/concepts/api-calls:
400 bad request, 401 bad or expired token, 403 forbidden, 404 not found, 429 too many
requests, 500, 502, 503), the player error object with its ``reason``
(``PREMIUM_REQUIRED``, ``NO_ACTIVE_DEVICE``, ``UNKNOWN``; the Web API reference's "Player
Error Reasons"), "Rate limits" (developer.spotify.com/documentation/web-api/concepts/rate-limits:
429 with ``Retry-After``), "Quota modes" (developer.spotify.com/documentation/web-api/concepts/quota-modes:
a user not on a development-mode app's allowlist) and the Accounts service's OAuth errors
``{"error", "error_description"}`` (developer.spotify.com/documentation/web-api/tutorials/client-credentials-flow,
.../refreshing-tokens). spotipy raises ``SpotifyException`` (the status, ``-1``, the URL and
the error's message, the player ``reason``; after its session's retries a ``429`` with "Max
Retries" whatever the status retried), ``SpotifyException(400, ...)`` from its own checks of
ids, URIs and URLs, ``SpotifyOauthError`` for the Accounts service and for a manager without
credentials, the ``JSONDecodeError`` / ``KeyError`` of a token reply it cannot read, and
``requests``' errors for the transport.

Labels follow the cause set up. Fixable: ids, URIs, URLs and values the model wrote (an id
that is not a Spotify id, an id of the wrong type, a YouTube link, a search with no query,
an unknown ``type``, a market that is not a country code, a ``limit`` over 50, more than 50
ids, a playlist without a name, an offset with an artist context). Unrecoverable: the
token expired, invalid, missing or malformed, the scope missing, Premium required, a user
not allowed into the app's development mode, a playlist the user does not own, the
client's id or secret refused, a revoked refresh token, a manager without a client id or
secret. Ambiguous: a track, artist, playlist or device the model named that does not exist,
no active device, a player restriction, a non-existing id in a payload, a 500 (which the
API calls page says should never happen and asks to be reported), and token replies the
client cannot read. Transient: 429 (also after the session's retries), 503, refused, DNS ->
not executed; 502 (also after the retries), read timeout, reset, close -> unknown outcome.

Not triggered: the player calls whose arguments spotipy checks by logging a warning and
returning ``None`` (volume, seek, repeat, shuffle, a ``uris`` that is not a list); 200
replies that are not JSON (spotipy returns ``None``); the player reasons whose message the
reference does not show (``NO_NEXT_TRACK``, ``ALREADY_PAUSED`` ...); the interactive
authorization-code flow (a browser and a redirect).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "spotipy"
REQUIRES = ["spotipy==2.26.0"]

_ERR = "Spotify Web API: response status codes and error object (developer.spotify.com/documentation/web-api/concepts/api-calls)"
_PLAYER = "Spotify Web API reference: player error object and reasons (developer.spotify.com/documentation/web-api/reference)"
_RATE = "Spotify Web API rate limits (developer.spotify.com/documentation/web-api/concepts/rate-limits)"
_QUOTA = "Spotify Web API quota modes (developer.spotify.com/documentation/web-api/concepts/quota-modes)"
_OAUTH = "Spotify Accounts service: client credentials and refreshing tokens (developer.spotify.com/documentation/web-api/tutorials/client-credentials-flow)"
_TOKEN = "BQDaSn8xT2Zk4hQ1rV7mW0pL3cY9uE6fA1bN5jK8sG2dH4tR7vX0zC3qM6wP9yB2nF5hJ8kL1oU4iT7eR0aS3dG6"
_CLIENT_ID = "5fe01282e44241328a84e7c5cc169165"
_CLIENT_SECRET = "8b1f2e4c6a9d4e7f9c2b5a8d1e4f7a0c"
_TRACK = "11dFghVXANMlKmJXsNCbNl"
_ALBUM = "4aawyAB9vmqN3uQ7FjRGTy"
_ARTIST = "0TnOYISbd1XYRBk9myaseg"
_PLAYLIST = "3cEYpjA9oz9GiPac4AsH4n"
_DEVICE = "0d1841b0976bae2a3a310dd74c0f3df354899bc8"
_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_MANY = [(_BASE62[i % 62] + _TRACK[1:])[:22] for i in range(51)]  # 51 well-formed track ids


def _e(status: int, message: str, source: str = _ERR, reason: str | None = None, **headers: str) -> Reply:
    error: dict[str, Any] = {"status": status, "message": message}
    if reason is not None:
        error["reason"] = reason
    return Reply(status, {"error": error}, headers, source)


def _oauth(error: str, description: str) -> Reply:
    return Reply(400, {"error": error, "error_description": description}, {}, _OAUTH)


# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    # the model's ids and values
    ("invalid_id", "track_short", _e(400, "invalid id"), F, None, "track id one character short"),
    ("invalid_base62_playlist", "playlist_short", _e(400, "Invalid base62 id"), F, None, "playlist id one character short"),
    ("invalid_base62_items", "add_items_short", _e(400, "Invalid base62 id"), F, None, "track URI to add has a malformed id"),
    ("invalid_market", "track_market", _e(400, "Invalid market code"), F, None, "market 'UK' is not an ISO 3166-1 code (GB)"),
    ("invalid_limit", "search_limit", _e(400, "Invalid limit"), F, None, "search limit over 50"),
    ("invalid_limit_recent", "recent_limit", _e(400, "Invalid limit"), F, None, "recently-played limit over 50"),
    ("no_search_query", "search_empty", _e(400, "No search query"), F, None, "search without a query"),
    ("bad_search_type", "search_type", _e(400, "Bad search type field tracks"), F, None, "search type not one of album, artist, playlist, track ..."),
    ("too_many_ids", "tracks_many", _e(400, "Too many ids requested"), F, None, "51 track ids (50 at most)"),
    ("missing_name", "create_playlist", _e(400, "Missing required field: name"), F, None, "playlist created without a name"),
    ("offset_artist_context", "play_artist_offset", _e(400, "Can't have offset for context type: ARTIST"), F, None, "play offset given with an artist context"),
    # the token, the scopes, the account
    ("token_expired", "recent", _e(401, "The access token expired"), U, None, "access token expired"),
    ("token_invalid", "track", _e(401, "Invalid access token"), U, None, "access token invalid"),
    ("insufficient_scope", "save_tracks", _e(403, "Insufficient client scope"), U, None, "token lacks the user-library-modify scope"),
    ("premium_required", "play", _e(403, "Player command failed: Premium required", _PLAYER, "PREMIUM_REQUIRED"), U, None, "playback control needs Premium"),
    ("user_not_registered", "recent", _e(403, "Check settings on developer.spotify.com/dashboard, the user may not be registered.", _QUOTA), U, None, "user not on the development-mode app's allowlist"),
    ("not_playlist_owner", "add_items", _e(403, "You cannot add tracks to a playlist you don't own."), U, None, "playlist owned by another user"),
    # not there, player state, what the service said it cannot do
    ("non_existing_track", "track", _e(404, f"Non existing id: 'spotify:track:{_TRACK}'"), A, None, "track not found"),
    ("non_existing_artist", "artist_albums", _e(404, f"Non existing id: 'spotify:artist:{_ARTIST}'"), A, None, "artist not found"),
    ("playlist_not_found", "playlist", _e(404, "Resource not found"), A, None, "playlist not found (deleted or private)"),
    ("playlist_not_found_add", "add_items", _e(404, "Resource not found"), A, None, "playlist to add to not found"),
    ("device_not_found", "play_device", _e(404, "Device not found"), A, None, "device id not among the user's devices"),
    ("device_not_found_transfer", "transfer", _e(404, "Device not found"), A, None, "device to transfer to not found"),
    ("no_active_device", "pause", _e(404, "Player command failed: No active device found", _PLAYER, "NO_ACTIVE_DEVICE"), A, None, "no active device to pause"),
    ("no_active_device_queue", "queue", _e(404, "Player command failed: No active device found", _PLAYER, "NO_ACTIVE_DEVICE"), A, None, "no active device to queue on"),
    ("restriction_violated", "next", _e(403, "Player command failed: Restriction violated", _PLAYER, "UNKNOWN"), A, None, "player restriction on skipping"),
    ("payload_non_existing", "save_tracks", _e(400, "Payload contains a non-existing ID"), A, None, "a track to save does not exist"),
    ("server_error", "create_playlist_named", _e(500, "Server error."), A, None, "500, which the docs say should never happen (report it)"),
    # load, outages
    ("rate_limited", "search", _e(429, "API rate limit exceeded", _RATE, **{"Retry-After": "30"}), T, NE, "rate limited (Retry-After)"),
    ("service_unavailable", "playlist", _e(503, "Service unavailable"), T, NE, "service unavailable"),
    ("bad_gateway", "add_items", _e(502, "Bad gateway."), T, UO, "bad gateway after the request was sent"),
]  # fmt: skip

# spotipy's own session (status retries on 429 / 500 / 502 / 503 / 504): one retry, no back-off
_RETRIED: list[tuple[str, str, Reply, str, str | None, str]] = [
    ("rate_limited-retried", "search", _e(429, "API rate limit exceeded", _RATE, **{"Retry-After": "1"}), T, NE, "rate limited (after the session's retries)"),
    ("bad_gateway-retried", "playlist", _e(502, "Bad gateway."), T, UO, "bad gateway (after the session's retries)"),
]  # fmt: skip


def _calls(sp: Any) -> dict[str, tuple[str, dict[str, Any], Callable[[], Any]]]:
    """call -> (tool, the model's arguments, the call); the token and API root are the tool's."""
    short = _TRACK[:-1]
    name = "Road trip"
    items = [f"spotify:track:{_TRACK}"]
    return {
        "track": ("get_track", {"track": _TRACK}, lambda: sp.track(_TRACK)),
        "track_short": ("get_track", {"track": short}, lambda: sp.track(short)),
        "track_market": ("get_track", {"track": _TRACK, "market": "UK"}, lambda: sp.track(_TRACK, market="UK")),
        "tracks_many": ("get_tracks", {"tracks": _MANY}, lambda: sp.tracks(_MANY)),
        "artist_albums": ("get_artist_albums", {"artist": _ARTIST, "include_groups": "album,single"}, lambda: sp.artist_albums(_ARTIST, include_groups="album,single")),
        "search": ("search", {"q": "bohemian rhapsody", "type": "track"}, lambda: sp.search("bohemian rhapsody", type="track")),
        "search_limit": ("search", {"q": "bohemian rhapsody", "type": "track", "limit": 100}, lambda: sp.search("bohemian rhapsody", limit=100, type="track")),
        "search_empty": ("search", {"q": "", "type": "track"}, lambda: sp.search("", type="track")),
        "search_type": ("search", {"q": "bohemian rhapsody", "type": "tracks"}, lambda: sp.search("bohemian rhapsody", type="tracks")),
        "playlist": ("get_playlist", {"playlist": _PLAYLIST}, lambda: sp.playlist(_PLAYLIST)),
        "playlist_short": ("get_playlist", {"playlist": _PLAYLIST[:-1]}, lambda: sp.playlist(_PLAYLIST[:-1])),
        "create_playlist": ("create_playlist", {"name": "", "public": False}, lambda: sp.current_user_playlist_create("", public=False)),
        "create_playlist_named": ("create_playlist", {"name": name, "public": False}, lambda: sp.current_user_playlist_create(name, public=False)),
        "add_items": ("add_to_playlist", {"playlist": _PLAYLIST, "items": items}, lambda: sp.playlist_add_items(_PLAYLIST, items)),
        "add_items_short": ("add_to_playlist", {"playlist": _PLAYLIST, "items": [f"spotify:track:{short}"]}, lambda: sp.playlist_add_items(_PLAYLIST, [f"spotify:track:{short}"])),
        "save_tracks": ("save_tracks", {"tracks": [_TRACK]}, lambda: sp.current_user_saved_tracks_add([_TRACK])),
        "recent": ("recently_played", {"limit": 20}, lambda: sp.current_user_recently_played(limit=20)),
        "recent_limit": ("recently_played", {"limit": 100}, lambda: sp.current_user_recently_played(limit=100)),
        "play": ("play", {"uris": items}, lambda: sp.start_playback(uris=items)),
        "play_device": ("play", {"uris": items, "device_id": _DEVICE}, lambda: sp.start_playback(device_id=_DEVICE, uris=items)),
        "play_artist_offset": ("play", {"context_uri": f"spotify:artist:{_ARTIST}", "offset": {"position": 5}}, lambda: sp.start_playback(context_uri=f"spotify:artist:{_ARTIST}", offset={"position": 5})),
        "pause": ("pause", {}, lambda: sp.pause_playback()),
        "next": ("skip_to_next", {}, lambda: sp.next_track()),
        "queue": ("add_to_queue", {"track": _TRACK}, lambda: sp.add_to_queue(_TRACK)),
        "transfer": ("transfer_playback", {"device_id": _DEVICE}, lambda: sp.transfer_playback(_DEVICE)),
    }  # fmt: skip


def cases(ctx: Any) -> Iterator[generate.Case]:
    import requests
    import spotipy
    from spotipy.cache_handler import MemoryCacheHandler

    def session() -> Any:
        s = requests.Session()
        s.trust_env = False
        return s

    def client(base: str, token: str | None = _TOKEN, retried: bool = False, **kwargs: Any) -> Any:
        if retried:
            sp = spotipy.Spotify(auth=token, retries=1, status_retries=1, backoff_factor=0, requests_timeout=_saas.TIMEOUT, **kwargs)  # fmt: skip
            sp._session.trust_env = False  # the session spotipy built, with its Retry
        else:
            sp = spotipy.Spotify(
                auth=token, requests_session=session(), requests_timeout=_saas.TIMEOUT, **kwargs
            )
        sp.prefix = f"{base}/v1/"
        return sp

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"spotipy-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    def catch(fn: Callable[[], Any], key: str) -> BaseException:
        try:
            return _saas.catch(fn)
        except AssertionError:
            raise AssertionError(key) from None

    with _saas.service(ctx, "SPOTIFYPORT", "envoy") as svc:
        calls = _calls(client(svc.base))
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = calls[call]
            svc.reply(reply)
            yield case(key, cause, kind, outcome, catch(fn, key), tool, args)
        # the tool's token as configured: missing, or written with its "Bearer " prefix
        configured: list[tuple[str, str | None, str, Reply, str]] = [
            ("no_token", None, "search", _e(401, "No token provided"), "tool set up without a token"),
            ("bad_bearer", f"Bearer {_TOKEN}", "playlist", _e(400, "Only valid bearer authentication supported"), "tool's token configured with its 'Bearer ' prefix (header 'Bearer Bearer ...')"),
        ]  # fmt: skip
        for key, token, call, reply, cause in configured:
            tool, args, fn = _calls(client(svc.base, token=token))[call]
            svc.reply(reply)
            yield case(key, cause, U, None, catch(fn, key), tool, args)
        retrying = _calls(client(svc.base, retried=True))
        for key, call, reply, kind, outcome, cause in _RETRIED:
            tool, args, fn = retrying[call]
            svc.reply(reply)
            yield case(key, cause, kind, outcome, catch(fn, key), tool, args)

        # the Accounts service: the tool's client credentials or refresh token refused, or a
        # token reply the client cannot read
        def credentials() -> Any:
            manager = spotipy.SpotifyClientCredentials(
                _CLIENT_ID, _CLIENT_SECRET, requests_session=session(), requests_timeout=_saas.TIMEOUT, cache_handler=MemoryCacheHandler()
            )  # fmt: skip
            manager.OAUTH_TOKEN_URL = f"{svc.base}/api/token"
            return client(svc.base, token=None, auth_manager=manager)

        def refreshing() -> Any:
            expired = {
                "access_token": _TOKEN,
                "token_type": "Bearer",
                "expires_in": 3600,
                "expires_at": 1,
                "refresh_token": "AQCx7vN2pL5kR8tW1yZ4bD7gJ0mP3sV6xA9cF2hK5nQ8rU1wY4",
                "scope": "user-read-recently-played",
            }
            manager = spotipy.SpotifyOAuth(
                _CLIENT_ID,
                _CLIENT_SECRET,
                "http://127.0.0.1:8888/callback",
                scope="user-read-recently-played",
                cache_handler=MemoryCacheHandler(expired),
                requests_session=session(),
                requests_timeout=_saas.TIMEOUT,
                open_browser=False,
            )
            manager.OAUTH_TOKEN_URL = f"{svc.base}/api/token"
            return client(svc.base, token=None, auth_manager=manager)

        # (key, cause, kind, client, call, reply)
        accounts: list[tuple[str, str, str, Callable[[], Any], str, Reply]] = [
            ("invalid_client", "client id refused by the Accounts service", U, credentials, "track", _oauth("invalid_client", "Invalid client")),
            ("invalid_client_secret", "client secret refused", U, credentials, "search", _oauth("invalid_client", "Invalid client secret")),
            ("refresh_revoked", "refresh token revoked (user removed the app's access)", U, refreshing, "recent", _oauth("invalid_grant", "Refresh token revoked")),
            ("token_not_json", "token reply an HTML page", A, credentials, "track", Reply(200, "<html><body><h1>Spotify</h1><p>Something went wrong.</p></body></html>")),
            ("token_no_expiry", "token reply without expires_in", A, credentials, "track", Reply(200, {"access_token": _TOKEN, "token_type": "Bearer"})),
        ]  # fmt: skip
        for key, cause, kind, make, call, reply in accounts:
            tool, args, fn = _calls(make())[call]
            svc.reply(reply)
            yield case(key, cause, kind, None, catch(fn, key), tool, args)

        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": "http://api.spotify.unreachable-host.invalid"}.get(key, svc.base)  # fmt: skip
            tool, args, fn = _calls(client(base))["add_items"]
            yield case(key, cause, kind, outcome, catch(fn, key), tool, args)

    # spotipy's own checks of the model's ids, URIs and URLs, and managers set up without
    # credentials (nothing sent)
    sp = client(_saas.dead_base(ctx))
    youtube = "https://www.youtube.com/watch?v=fJ9rUzIMcZQ"
    album_uri = f"spotify:album:{_ALBUM}"
    artist_url = f"https://open.spotify.com/artist/{_ARTIST}"

    def manager(**kwargs: Any) -> Any:
        saved = {k: os.environ.pop(k, None) for k in ("SPOTIPY_CLIENT_ID", "SPOTIPY_CLIENT_SECRET")}
        try:
            return spotipy.SpotifyClientCredentials(cache_handler=MemoryCacheHandler(), **kwargs)
        finally:
            os.environ.update({k: v for k, v in saved.items() if v is not None})

    # (key, cause, kind, tool, the model's arguments, call)
    local: list[tuple[str, str, str, str, dict[str, Any], Callable[[], Any]]] = [
        ("uri-wrong-type", "album URI given as a track", F, "get_track", {"track": album_uri}, lambda: sp.track(album_uri)),
        ("url-wrong-type", "artist link given as a track", F, "get_track", {"track": artist_url}, lambda: sp.track(artist_url)),
        ("unsupported-url", "YouTube link given as a track", F, "get_track", {"track": youtube}, lambda: sp.track(youtube)),
        ("playlist-uri-wrong-type", "album URI given as a playlist", F, "add_to_playlist", {"playlist": album_uri, "items": [_TRACK]}, lambda: sp.playlist_add_items(album_uri, [_TRACK])),
        ("item-title", "song title given instead of a track URI", F, "add_to_playlist", {"playlist": _PLAYLIST, "items": ["Bohemian Rhapsody"]}, lambda: sp.playlist_add_items(_PLAYLIST, ["Bohemian Rhapsody"])),
        ("queue-url-wrong-type", "album link given to queue as a track", F, "add_to_queue", {"track": f"https://open.spotify.com/album/{_ALBUM}"}, lambda: sp.add_to_queue(f"https://open.spotify.com/album/{_ALBUM}")),
        ("save-unsupported", "track id with a share suffix", F, "save_tracks", {"tracks": [f"{_TRACK}?si=4f2a9c"]}, lambda: sp.current_user_saved_tracks_add([f"{_TRACK}?si=4f2a9c"])),
        ("no-client-id", "tool set up without a client id", U, "search", {"q": "bohemian rhapsody", "type": "track"}, lambda: manager()),
        ("no-client-secret", "tool set up without a client secret", U, "search", {"q": "bohemian rhapsody", "type": "track"}, lambda: manager(client_id=_CLIENT_ID)),
    ]  # fmt: skip
    for key, cause, kind, tool, args, fn in local:
        yield case(key, cause, kind, None, catch(fn, key), tool, args)
