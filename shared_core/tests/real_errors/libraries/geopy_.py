# ruff: noqa: B023 - each lambda is called at once
"""geopy behind a location tool of an agent: geocoding, reverse geocoding and time zones
through several of geopy's geocoders pointed (``domain=``, ``scheme="http"``) at a local
stand-in that answers each provider's documented error responses, and distances between
points the model wrote (``geopy.point.Point``, ``geopy.distance``).

geopy turns a non-2xx answer into its own exception by status (``ERROR_CODE_MAP``: 400
``GeocoderQueryError``, 401 ``GeocoderAuthenticationFailure``, 402
``GeocoderQuotaExceeded``, 403 ``GeocoderInsufficientPrivileges``, 408 / 503 / 504
``GeocoderTimedOut``, 429 ``GeocoderRateLimited`` with ``retry_after``, others
``GeocoderServiceError``) with the text ``Non-successful status code N`` and the body only
in the chained ``AdapterHTTPError``; some geocoders read an error the service sends in a
200 body (Google's ``status``, GeoNames' ``status.value``, ArcGIS's ``error``); the
adapters (requests, urllib, aiohttp) raise ``GeocoderUnavailable`` / ``GeocoderTimedOut``
/ ``GeocoderParseError`` for the transport and unreadable bodies; the geocoders check
some arguments themselves (``ValueError``, ``GeocoderQueryError``, ``ConfigurationError``).

Responses, as each provider documents them:

- Nominatim (nominatim.org/release-docs/latest/api/Overview; its v1 server formats errors
  as ``{"error":{"code":N,"message":...}}``, src/nominatim_api/server/asgi_adaptor.py,
  e.g. ``Parameter 'zoom' must be a number.``); the OSMF usage policy
  (operations.osmfoundation.org/policies/nominatim/: heavy users are blocked, 429 for
  excess traffic, shaped as RFC 6585 section 4);
- Google Geocoding API, statuses in a 200 body with ``error_message``
  (developers.google.com/maps/documentation/geocoding/requests-geocoding#StatusCodes:
  OVER_DAILY_LIMIT, OVER_QUERY_LIMIT, REQUEST_DENIED, INVALID_REQUEST, UNKNOWN_ERROR
  "may succeed if you try again");
- Bing Maps REST, "Status Codes and Error Handling"
  (learn.microsoft.com/bingmaps/rest-services/status-codes-and-error-handling: 401, 403,
  503 with ``errorDetails`` and ``statusCode``);
- OpenCage (opencagedata.com/api#codes: 401, 402 quota exceeded, 403 disabled key,
  410 request too long, 426 https required, 429, the ``status`` object);
- GeoNames (geonames.org/export/webservice-exception.html: ``{"status": {"message",
  "value"}}`` with 10 authorization, 15 no result, 18 / 19 daily / hourly credits);
- ArcGIS World Geocoding (developers.arcgis.com/rest/geocode/api-reference/
  geocoding-service-output.htm: ``{"error": {"code", "message", "details"}}``, 498
  invalid token, 499 token required);
- Pelias (github.com/pelias/documentation http-status-codes.md: 400 with the errors in
  the GeoJSON, 408 Elasticsearch too slow; the sanitiser's
  ``... is not a valid ISO2/ISO3 country code``).

Labels, by the cause set up. Fixable: a value the model wrote that the service or geopy
rejects (a zoom that is not a number, a limit under 1, a geometry format, a bounding box
of three corners, an address left empty, a Google place id that is malformed, both a
place id and an address, components as a string, an address too long for OpenCage, a
country that is not an ISO code, a search text left empty, a what3words address not in
``word.word.word`` form, an unsupported reverse mode, coordinates that geopy.point
rejects (unknown format, latitude out of range, NaN, four numbers, one number, an object),
an ellipsoid name, points with different altitudes, a provider name or distance unit not
in geopy's lists). Unrecoverable: the key, account, billing or plan (Google
REQUEST_DENIED, OVER_DAILY_LIMIT; Bing 401 / 403; OpenCage 401 / 402 / 403 / 426;
GeoNames 10 and daily credits; ArcGIS 498 / 499), a usage-policy block, a
tool configured without a key or with Nominatim's sample user agent, a missing module
(pytz, geographiclib). Ambiguous: a place the service does not have (GeoNames 15), a
reply geopy cannot read (HTML from a proxy, cut JSON, a result without its geometry,
resource sets, address, coordinates or time zone, an empty latitude, a time zone name pytz
does not know), and bad coordinates the tool READ
from a saved-places file the model only named. Transient: 429 and rate messages
(Google OVER_QUERY_LIMIT "rate-limit", GeoNames hourly credits), 503, DNS and refused
connections -> not executed; 504, Pelias' 408, Google UNKNOWN_ERROR, read timeouts and
resets -> unknown outcome (reads, but sent). The ``-retried`` case runs through geopy's
``RateLimiter`` (one retry). geopy's requests adapter (urllib3, ``max_retries=2``) itself
retries a 429 that has ``Retry-After`` before geopy raises ``GeocoderRateLimited``: the
stand-in asks for 1 s.

Not triggered: the service errors of Yandex, HERE, What3words, TomTom / Azure Maps and
Geocodio (no error body documented that could be copied), ArcGIS's authenticated mode (it
requires https; no TLS stand-in here), geopy's AsyncRateLimiter.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Iterator
from typing import Any

import generate

from libraries import _pkgcopy, _saas
from libraries._saas import NE, UO, A, F, Reply, T, U, caught

LIBRARY = "geopy"
REQUIRES = ["geopy==2.5.0"]

_NOM = "Nominatim API (nominatim.org/release-docs/latest/api/Overview; asgi_adaptor.raise_error)"
_OSMF = "OSMF Nominatim usage policy (operations.osmfoundation.org/policies/nominatim/), RFC 6585 section 4"
_GOO = "Google Geocoding API status codes (developers.google.com/maps/documentation/geocoding/requests-geocoding#StatusCodes)"
_BING = (
    "Bing Maps REST status codes (learn.microsoft.com/bingmaps/rest-services/status-codes-and-error-handling)"
)
_OC = "OpenCage response codes (opencagedata.com/api#codes)"
_GN = "GeoNames webservice exceptions (geonames.org/export/webservice-exception.html)"
_ARC = "ArcGIS geocoding service output (developers.arcgis.com/rest/geocode/api-reference/geocoding-service-output.htm)"
_PEL = "Pelias HTTP status codes (github.com/pelias/documentation/blob/master/http-status-codes.md)"
_JSON = "application/json; charset=utf-8"
_UA = "acme-travel-agent/2.3"


def _nom(status: int, message: str) -> Reply:
    return Reply(status, json.dumps({"error": {"code": status, "message": message}}), {}, _NOM, _JSON)


def _goo(status: str, message: str | None) -> Reply:
    body: dict[str, Any] = {"results": [], "status": status}
    if message is not None:
        body["error_message"] = message
    return Reply(200, body, {}, _GOO)


def _bing(status: int, description: str, details: list[str], auth: str = "ValidCredentials") -> Reply:
    return Reply(
        status,
        {
            "authenticationResultCode": auth,
            "brandLogoUri": "http://dev.virtualearth.net/Branding/logo_powered_by.png",
            "copyright": "Copyright © 2026 Microsoft and its suppliers. All rights reserved. This API cannot be accessed and the content and any results may not be used, reproduced or transmitted in any manner without express written permission from Microsoft Corporation.",
            "errorDetails": details,
            "resourceSets": [],
            "statusCode": status,
            "statusDescription": description,
            "traceId": "8f1c2d3e4b5a46979a0b1c2d3e4f5a6b|DB40060622|0.0.0.0",
        },
        {},
        _BING,
    )


def _oc(status: int, message: str, **headers: str) -> Reply:
    return Reply(
        status,
        {
            "documentation": "https://opencagedata.com/api",
            "licenses": [{"name": "see attribution guide", "url": "https://opencagedata.com/credits"}],
            "results": [],
            "status": {"code": status, "message": message},
            "stay_informed": {
                "blog": "https://blog.opencagedata.com",
                "mastodon": "https://en.osm.town/@opencage",
            },
            "thanks": "For using an OpenCage API",
            "timestamp": {"created_http": _saas.DATE, "created_unix": 1796083200},
            "total_results": 0,
        },
        headers,
        _OC,
    )


def _gn(value: int, message: str) -> Reply:
    return Reply(200, {"status": {"message": message, "value": value}}, {}, _GN)


def _pel(status: int, errors: list[str], query: dict[str, Any]) -> Reply:
    return Reply(
        status,
        {
            "geocoding": {
                "version": "0.2",
                "attribution": "https://geocode.example.org/attribution",
                "query": query,
                "errors": errors,
                "engine": {"name": "Pelias", "author": "Mapzen", "version": "1.0"},
                "timestamp": 1796083200000,
            },
            "type": "FeatureCollection",
            "features": [],
        },
        {},
        _PEL,
    )


_RFC429 = "<html><head><title>Too Many Requests</title></head><body><h1>Too Many Requests</h1><p>You have exceeded the request rate of the usage policy. Try again later.</p></body></html>"
_BLOCKED = "<html><head><title>Access blocked</title></head><body><h1>Access blocked</h1><p>You have been blocked because you have violated the usage policy of OSM's Nominatim geocoding service. Please be aware that OSM's resources are limited and shared between many users. The usage policy is there to ensure that the service remains usable for everybody.</p><p>Please review the terms and make sure that your software adheres to the terms. You should in particular verify that you have set a custom HTTP referrer or HTTP user agent that identifies your application, and that you are not overusing the service with massive bulk requests.</p><p>If you feel that this block is unjustified or remains after you have adopted your usage, you may contact the Nominatim system administrator at nominatim@openstreetmap.org to have this block lifted.</p></body></html>"
_PROXY = "<html><head><title>Network Authentication Required</title></head><body><h1>Sign in to the guest network</h1><p>Please accept the terms of use to continue.</p></body></html>"
_PARIS = "48.8566, 2.3522"
_BERLIN = "52.5200, 13.4050"


def cases(ctx: Any) -> Iterator[generate.Case]:
    from geopy import distance
    from geopy.adapters import AioHTTPAdapter, URLLibAdapter
    from geopy.extra.rate_limiter import RateLimiter
    from geopy.geocoders import (
        ArcGIS,
        Bing,
        GeoNames,
        GoogleV3,
        Nominatim,
        OpenCage,
        Pelias,
        What3WordsV3,
        get_geocoder_for_service,
    )
    from geopy.point import Point

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"geopy-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    with _saas.service(ctx, "GEOPORT", "nginx") as svc:
        here = f"127.0.0.1:{svc.port}"
        common: dict[str, Any] = {"scheme": "http", "timeout": _saas.TIMEOUT, "user_agent": _UA}

        def nom(domain: str = here, **kw: Any) -> Any:
            return Nominatim(domain=domain, **{**common, **kw})

        goo = GoogleV3(api_key="AIzaSyD-acme-travel-agent-0123456789ab", domain=here, **common)
        bing = Bing("AqAcmeTravelAgentBingKey0123456789abcdefghijklmnopqrstuv", domain=here, **common)
        oc = OpenCage("0123456789abcdef0123456789abcdef", domain=here, **common)
        gn = GeoNames("acme_geo", domain=here, **common)
        arc = ArcGIS(domain=here, **common)
        pel = Pelias(domain=here, **common)
        w3w = What3WordsV3("ACME0W3W", domain=here, timeout=_saas.TIMEOUT, user_agent=_UA)

        q = "10 Downing Street, London"
        # (key, tool, the model's arguments, the call, reply, kind, outcome, cause)
        served: list[tuple[str, str, dict[str, Any], Callable[[], Any], Reply | str, str, str | None, str]] = [
            # Nominatim
            ("nominatim-zoom-not-number", "reverse_geocode", {"provider": "nominatim", "point": _PARIS, "zoom": "street"}, lambda: nom().reverse(_PARIS, zoom="street"), _nom(400, "Parameter 'zoom' must be a number."), F, None, "zoom level given as a word"),
            ("nominatim-rate-limited", "geocode_address", {"provider": "nominatim", "address": q}, lambda: nom().geocode(q), Reply(429, _RFC429, {"Retry-After": "1"}, _OSMF), T, NE, "too many requests (usage policy rate)"),
            ("nominatim-blocked", "geocode_address", {"provider": "nominatim", "address": q}, lambda: nom().geocode(q), Reply(403, _BLOCKED, {}, _OSMF), U, None, "application blocked for violating the usage policy"),
            ("nominatim-unavailable", "geocode_address", {"provider": "nominatim", "address": q}, lambda: nom().geocode(q), Reply(503, "<html><head><title>503 Service Temporarily Unavailable</title></head><body><center><h1>503 Service Temporarily Unavailable</h1></center><hr><center>nginx</center></body></html>", {}, "nginx"), T, NE, "server overloaded (503)"),
            ("nominatim-gateway-timeout", "reverse_geocode", {"provider": "nominatim", "point": _BERLIN}, lambda: nom().reverse(_BERLIN), Reply(504, "<html><head><title>504 Gateway Time-out</title></head><body><center><h1>504 Gateway Time-out</h1></center><hr><center>nginx</center></body></html>", {}, "nginx"), T, UO, "gateway timeout"),
            ("nominatim-bad-latitude", "reverse_geocode", {"provider": "nominatim", "point": _PARIS}, lambda: nom().reverse(_PARIS), Reply(200, {"place_id": 88372041, "licence": "Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright", "osm_type": "way", "osm_id": 5013364, "lat": "", "lon": "2.2944813", "display_name": "Tour Eiffel, 5, Avenue Anatole France, Paris, France"}), A, None, "result with an empty latitude"),
            ("nominatim-proxy-page", "geocode_address", {"provider": "nominatim", "address": q}, lambda: nom().geocode(q), Reply(200, _PROXY, {}, "a captive portal"), A, None, "an HTML page instead of the JSON answer"),
            # Google
            ("google-key-invalid", "geocode_address", {"provider": "google", "address": q}, lambda: goo.geocode(q), _goo("REQUEST_DENIED", "The provided API key is invalid."), U, None, "API key invalid (REQUEST_DENIED)"),
            ("google-api-not-authorized", "reverse_geocode", {"provider": "google", "point": _PARIS}, lambda: goo.reverse(_PARIS), _goo("REQUEST_DENIED", "This API project is not authorized to use this API."), U, None, "Geocoding API not enabled for the key's project"),
            ("google-billing", "geocode_address", {"provider": "google", "address": q}, lambda: goo.geocode(q), _goo("REQUEST_DENIED", "You must enable Billing on the Google Cloud Project at https://console.cloud.google.com/project/_/billing/enable Learn more at https://developers.google.com/maps/gmp-get-started"), U, None, "billing not enabled on the project"),
            ("google-daily-limit", "geocode_address", {"provider": "google", "address": q}, lambda: goo.geocode(q), _goo("OVER_DAILY_LIMIT", "You have exceeded your daily request quota for this API. If you did not set a custom daily request quota, verify your project has an active billing account: http://g.co/dev/maps-no-account"), U, None, "daily quota used up"),
            ("google-rate-limit", "geocode_address", {"provider": "google", "address": q}, lambda: goo.geocode(q), _goo("OVER_QUERY_LIMIT", "You have exceeded your rate-limit for this API."), T, NE, "queries-per-second rate limit"),
            ("google-unknown-error", "geocode_address", {"provider": "google", "address": q}, lambda: goo.geocode(q), _goo("UNKNOWN_ERROR", None), T, UO, "server error: may succeed if tried again"),
            ("google-empty-address", "geocode_address", {"provider": "google", "address": ""}, lambda: goo.geocode(""), _goo("INVALID_REQUEST", "Invalid request. Missing the 'address', 'components', 'latlng' or 'place_id' parameter."), F, None, "address left empty"),
            ("google-place-id-invalid", "geocode_address", {"provider": "google", "place_id": "ChIJ-not-a-place"}, lambda: goo.geocode(place_id="ChIJ-not-a-place"), _goo("INVALID_REQUEST", "Invalid request. Invalid 'place_id' parameter."), F, None, "place id malformed"),
            ("google-truncated", "geocode_address", {"provider": "google", "address": q}, lambda: goo.geocode(q), Reply(200, '{"results": [{"formatted_address": "10 Downing St, London SW1A 2AA, UK", "geometry": {"location": {"lat": 51.5033', {}, "", "application/json; charset=UTF-8"), A, None, "JSON answer cut off"),
            ("google-no-geometry", "geocode_address", {"provider": "google", "address": q}, lambda: goo.geocode(q), Reply(200, {"results": [{"formatted_address": "10 Downing St, London SW1A 2AA, UK", "place_id": "ChIJRxzRQcUEdkgRGVaKyzmkgvg"}], "status": "OK"}), A, None, "result without its geometry"),
            ("google-tz-unknown-zone", "lookup_timezone", {"provider": "google", "point": _PARIS}, lambda: goo.reverse_timezone(_PARIS), Reply(200, {"dstOffset": 0, "rawOffset": 3600, "status": "OK", "timeZoneId": "Europe/Paris_Old", "timeZoneName": "Central European Standard Time"}), A, None, "time zone name the service sent is not in the tz database"),
            # Bing
            ("bing-invalid-credentials", "geocode_address", {"provider": "bing", "address": q}, lambda: bing.geocode(q), _bing(401, "Unauthorized", ["Access was denied. You may have entered your credentials incorrectly, or you might not have access to the requested resource or operation."], "InvalidCredentials"), U, None, "Bing Maps key rejected"),
            ("bing-forbidden", "reverse_geocode", {"provider": "bing", "point": _BERLIN}, lambda: bing.reverse(_BERLIN), _bing(403, "Forbidden", ["The request is for something forbidden. Authorization will not help."]), U, None, "account not allowed the request"),
            ("bing-no-resource-sets", "geocode_address", {"provider": "bing", "address": q}, lambda: bing.geocode(q), Reply(200, {"authenticationResultCode": "ValidCredentials", "statusCode": 200, "statusDescription": "OK", "traceId": "8f1c2d3e4b5a46979a0b1c2d3e4f5a6b|DB40060622|0.0.0.0"}), A, None, "answer without its resource sets"),
            # OpenCage
            ("opencage-bad-key", "geocode_address", {"provider": "opencage", "address": q}, lambda: oc.geocode(q), _oc(401, "invalid API key"), U, None, "API key unknown"),
            ("opencage-quota", "geocode_address", {"provider": "opencage", "address": q}, lambda: oc.geocode(q), _oc(402, "quota exceeded", **{"X-RateLimit-Limit": "2500", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1796169600"}), U, None, "free-trial daily quota used up (payment required)"),
            ("opencage-disabled-key", "reverse_geocode", {"provider": "opencage", "point": _PARIS}, lambda: oc.reverse(_PARIS), _oc(403, "disabled API key"), U, None, "API key disabled"),
            ("opencage-https-required", "geocode_address", {"provider": "opencage", "address": q}, lambda: oc.geocode(q), _oc(426, "unsupported protocol, please use https"), U, None, "tool configured for plain http"),
            ("opencage-too-long", "geocode_address", {"provider": "opencage", "address": "Flat 3, " * 40 + "London"}, lambda: oc.geocode("Flat 3, " * 40 + "London"), _oc(410, "request too long"), F, None, "query longer than the service accepts"),
            ("opencage-rate", "geocode_address", {"provider": "opencage", "address": q}, lambda: oc.geocode(q), _oc(429, "too many requests (too quickly, rate limiting)"), T, NE, "requests per second over the plan's rate"),
            # GeoNames
            ("geonames-not-enabled", "geocode_address", {"provider": "geonames", "address": "Lyon"}, lambda: gn.geocode("Lyon"), _gn(10, "user account not enabled to use the free webservice. Please enable it on your account page: https://www.geonames.org/manageaccount "), U, None, "account not enabled for the web services"),
            ("geonames-daily-credits", "geocode_address", {"provider": "geonames", "address": "Lyon"}, lambda: gn.geocode("Lyon"), _gn(18, "the daily limit of 20000 credits for acme_geo has been exceeded. Please throttle your requests or use the commercial service."), U, None, "daily credits used up"),
            ("geonames-hourly-credits", "reverse_geocode", {"provider": "geonames", "point": "45.764, 4.8357"}, lambda: gn.reverse("45.764, 4.8357"), _gn(19, "the hourly limit of 1000 credits for acme_geo has been exceeded. Please throttle your requests or use the commercial service."), T, NE, "hourly credits used up: the next hour allows more"),
            ("geonames-no-result", "reverse_geocode", {"provider": "geonames", "point": "51.03, -20.0"}, lambda: gn.reverse("51.03, -20.0"), _gn(15, "we are afraid we could not find a administrative country subdivision for latitude and longitude :51.03,-20.0"), A, None, "nothing known at the point"),
            ("geonames-tz-no-offset", "lookup_timezone", {"provider": "geonames", "point": "45.764, 4.8357"}, lambda: gn.reverse_timezone("45.764, 4.8357"), Reply(200, {"countryCode": "FR", "lat": 45.764, "lng": 4.8357, "countryName": "France"}), A, None, "time zone answer without its zone or offsets"),
            # ArcGIS
            ("arcgis-invalid-token", "geocode_address", {"provider": "arcgis", "address": q}, lambda: arc.geocode(q), Reply(200, {"error": {"code": 498, "message": "Invalid Token", "details": []}}, {}, _ARC), U, None, "token invalid or expired"),
            ("arcgis-token-required", "reverse_geocode", {"provider": "arcgis", "point": _PARIS}, lambda: arc.reverse(_PARIS), Reply(200, {"error": {"code": 499, "message": "Token Required", "details": []}}, {}, _ARC), U, None, "service needs a token the tool was not given"),
            ("arcgis-reverse-no-address", "reverse_geocode", {"provider": "arcgis", "point": _PARIS}, lambda: arc.reverse(_PARIS), Reply(200, {"location": {"x": 2.3522, "y": 48.8566, "spatialReference": {"wkid": 4326, "latestWkid": 4326}}}), A, None, "reverse answer without its address"),
            # Pelias
            ("pelias-country", "geocode_address", {"provider": "pelias", "address": "Gran Via 1, Madrid", "countries": ["Spain"]}, lambda: pel.geocode("Gran Via 1, Madrid", countries=["Spain"]), _pel(400, ["Spain is not a valid ISO2/ISO3 country code"], {"text": "Gran Via 1, Madrid", "size": 10, "private": False, "lang": {"name": "English", "iso6391": "en", "iso6393": "eng", "defaulted": True}, "querySize": 20}), F, None, "country given by name, not an ISO code"),
            ("pelias-empty-text", "geocode_address", {"provider": "pelias", "address": ""}, lambda: pel.geocode(""), _pel(400, ["invalid param 'text': text length, must be >0"], {"size": 10, "private": False}), F, None, "search text left empty"),
            ("pelias-no-coordinates", "geocode_address", {"provider": "pelias", "address": "Gran Via 1, Madrid"}, lambda: pel.geocode("Gran Via 1, Madrid"), Reply(200, {"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": {"type": "Point", "coordinates": []}, "properties": {"name": "Gran Via 1", "layer": "address"}}]}), A, None, "feature with empty coordinates"),
            ("pelias-es-timeout", "geocode_address", {"provider": "pelias", "address": "Gran Via 1, Madrid"}, lambda: pel.geocode("Gran Via 1, Madrid"), _pel(408, ["Request Timeout after 3000ms"], {"text": "Gran Via 1, Madrid", "size": 10, "private": False}), T, UO, "Elasticsearch took too long"),
        ]  # fmt: skip
        for key, tool, args, fn, reply, kind, outcome, cause in served:
            svc.reply(reply)
            yield case(key, cause, kind, outcome, caught(key, fn), tool, args)

        # geopy's RateLimiter (as a bulk tool wraps geocode): one retry, no wait, then raised
        svc.reply(_bing(503, "Service Unavailable", ["There's a problem with the service right now. Please try again later."]))  # fmt: skip
        quiet = logging.getLogger("geopy")
        was = quiet.level
        quiet.setLevel(logging.CRITICAL + 1)  # the limiter logs each retry with its traceback
        limited = RateLimiter(
            bing.geocode, min_delay_seconds=0, max_retries=1, error_wait_seconds=0, swallow_exceptions=False
        )
        yield case("bing-unavailable-retried", "service unavailable, still after one retry", T, NE, caught("retried", lambda: limited(q)), "geocode_addresses", {"provider": "bing", "addresses": [q]})  # fmt: skip
        quiet.setLevel(was)

        # connection-level causes through three of geopy's adapters
        dns = "geocode.unreachable-host.invalid"
        for key, kind, outcome, cause in _saas.TRANSPORT:
            if key == _saas.CLOSE:
                continue
            svc.reply(key)
            domain = {"refused": f"127.0.0.1:{ctx.dead}", "dns": dns}.get(key, here)
            args = {"provider": "nominatim", "address": q}
            yield case(f"requests-{key}", cause, kind, outcome, caught(key, lambda: nom(domain).geocode(q)), "geocode_address", args)  # fmt: skip
        for key, kind, outcome, cause in _saas.TRANSPORT:
            if key != _saas.HANG:
                continue
            svc.reply(key)
            args = {"provider": "nominatim", "point": _PARIS}
            yield case(f"urllib-{key}", cause, kind, outcome, caught(key, lambda: nom(here, adapter_factory=URLLibAdapter).reverse(_PARIS)), "reverse_geocode", args)  # fmt: skip

        async def aio(domain: str) -> Any:
            async with Nominatim(domain=domain, adapter_factory=AioHTTPAdapter, **common) as geo:
                return await geo.geocode(q)

        refused = f"127.0.0.1:{ctx.dead}"
        yield case("aiohttp-refused", "connection refused", T, NE, caught("aio", lambda: asyncio.run(aio(refused))), "geocode_address", {"provider": "nominatim", "address": q})  # fmt: skip

        # the geocoders' own checks of the model's arguments (nothing sent)
        local: list[tuple[str, str, str, str, dict[str, Any], Callable[[], Any]]] = [
            ("nominatim-limit-zero", "result limit under 1", F, "geocode_address", {"provider": "nominatim", "address": q, "limit": 0}, lambda: nom().geocode(q, exactly_one=False, limit=0)),
            ("nominatim-geometry", "geometry format not one geopy knows", F, "geocode_address", {"provider": "nominatim", "address": q, "geometry": "wkb"}, lambda: nom().geocode(q, geometry="wkb")),
            ("nominatim-viewbox-three", "bounding box of three corners", F, "geocode_address", {"provider": "nominatim", "address": "Bahnhofstrasse 1", "viewbox": ["47.36, 8.53", "47.38, 8.55", "47.37, 8.56"]}, lambda: nom().geocode("Bahnhofstrasse 1", viewbox=["47.36, 8.53", "47.38, 8.55", "47.37, 8.56"])),
            ("nominatim-reverse-words", "a place name where coordinates are expected", F, "reverse_geocode", {"provider": "nominatim", "point": "near the Eiffel Tower"}, lambda: nom().reverse("near the Eiffel Tower")),
            ("nominatim-reverse-latitude", "latitude beyond 90 degrees", F, "reverse_geocode", {"provider": "nominatim", "point": "148.8566, 2.3522"}, lambda: nom().reverse("148.8566, 2.3522")),
            ("google-place-and-address", "both a place id and an address", F, "geocode_address", {"provider": "google", "address": q, "place_id": "ChIJRxzRQcUEdkgRGVaKyzmkgvg"}, lambda: goo.geocode(q, place_id="ChIJRxzRQcUEdkgRGVaKyzmkgvg")),
            ("google-components-string", "components given as a string", F, "geocode_address", {"provider": "google", "address": "Main Street 1", "components": "country:IE"}, lambda: goo.geocode("Main Street 1", components="country:IE")),
            ("geonames-nearby-mode", "reverse mode not one geopy supports", F, "reverse_geocode", {"provider": "geonames", "point": "45.764, 4.8357", "mode": "findNearbyStreets"}, lambda: gn.reverse("45.764, 4.8357", find_nearby_type="findNearbyStreets")),
            ("geonames-feature-code", "feature code with the place-name mode", F, "reverse_geocode", {"provider": "geonames", "point": "45.764, 4.8357", "feature_code": "PPLC"}, lambda: gn.reverse("45.764, 4.8357", feature_code="PPLC")),
            ("w3w-not-three-words", "what3words address not in word.word.word form", F, "geocode_what3words", {"words": "filled count soap"}, lambda: w3w.geocode("filled count soap")),
            ("provider-unknown", "provider name not one of geopy's geocoders", F, "geocode_address", {"provider": "googlemaps", "address": q}, lambda: get_geocoder_for_service("googlemaps")),
            ("google-no-key", "tool set up without a Google API key", U, "geocode_address", {"provider": "google", "address": q}, lambda: GoogleV3(domain=here, **common)),
            ("nominatim-sample-agent", "tool set up with geopy's sample user agent for the public Nominatim", U, "geocode_address", {"provider": "nominatim", "address": q}, lambda: Nominatim(user_agent="my-application")),
        ]  # fmt: skip
        for key, cause, kind, tool, args, fn in local:
            yield case(key, cause, kind, None, caught(key, fn), tool, args)

    # distances between points the model wrote (geopy.point / geopy.distance)
    def measure(origin: Any, destination: Any, method: str = "geodesic", **kw: Any) -> Any:
        calc = distance.geodesic if method == "geodesic" else distance.great_circle
        return calc(origin, destination, **kw).km

    def in_unit(d: Any, unit: str) -> float:
        return float(getattr(d, unit))  # the tool reads the unit the model named

    points: list[tuple[str, str, str, str, dict[str, Any], Callable[[], Any]]] = [
        ("point-unknown-format", "a city name where coordinates are expected", F, "measure_distance", {"origin": "Paris", "destination": _BERLIN}, lambda: measure("Paris", _BERLIN)),
        ("point-latitude-range", "latitude beyond 90 degrees", F, "measure_distance", {"origin": "91.2, 10.5", "destination": _BERLIN}, lambda: measure("91.2, 10.5", _BERLIN)),
        ("point-nan", "a coordinate that is not a number", F, "measure_distance", {"origin": ["NaN", "2.3522"], "destination": _BERLIN}, lambda: measure(Point(float("NaN"), 2.3522), _BERLIN)),
        ("point-four-numbers", "four numbers for one point", F, "measure_distance", {"origin": [48.8566, 2.3522, 35, 0], "destination": _BERLIN}, lambda: measure([48.8566, 2.3522, 35, 0], _BERLIN)),
        ("point-one-number", "one number for a point", F, "measure_distance", {"origin": 48.8566, "destination": _BERLIN}, lambda: measure(48.8566, _BERLIN)),
        ("point-object", "an object of lat/lon where a pair is expected", F, "measure_distance", {"origin": {"lat": 48.8566, "lon": 2.3522}, "destination": _BERLIN}, lambda: measure({"lat": 48.8566, "lon": 2.3522}, _BERLIN)),
        ("ellipsoid-unknown", "ellipsoid name not among geopy's", F, "measure_distance", {"origin": _PARIS, "destination": _BERLIN, "ellipsoid": "WGS84"}, lambda: measure(_PARIS, _BERLIN, ellipsoid="WGS84")),
        ("altitudes-differ", "points at different altitudes", F, "measure_distance", {"origin": "48.8566, 2.3522, 0.3km", "destination": "52.52, 13.405, 34m", "method": "great_circle"}, lambda: measure("48.8566, 2.3522, 0.3km", "52.52, 13.405, 34m", "great_circle")),
        ("unit-unknown", "distance unit not one geopy converts to", F, "measure_distance", {"origin": _PARIS, "destination": _BERLIN, "unit": "furlongs"}, lambda: in_unit(distance.geodesic(_PARIS, _BERLIN), "furlongs")),
    ]  # fmt: skip
    for key, cause, kind, tool, args, fn in points:
        yield case(key, cause, kind, None, caught(key, fn), tool, args)

    # coordinates the tool READ from a saved-places file the model named
    saved = ctx.tmp / "trips"
    saved.mkdir()
    (saved / "places.json").write_text(
        json.dumps(
            {
                "office": _PARIS,
                "warehouse": "52.52 N, 13.40 E, ground floor",
                "depot": "-95.1, 20.0",
                "hotel": "n/a",
                "airport": [49.0097, 2.5479, 0.119, 12],
                "station": {"lat": 48.8443, "lng": 2.3744},
            }
        )
    )

    def from_file(a: str, b: str) -> Any:
        places = json.loads((saved / "places.json").read_text())
        return distance.geodesic(Point(places[a]), Point(places[b])).km

    for key, to, cause in [
        ("saved-unparsable", "warehouse", "stored coordinates with extra text"),
        ("saved-latitude", "depot", "stored latitude beyond 90 degrees"),
        ("saved-placeholder", "hotel", "stored placeholder instead of coordinates"),
        ("saved-four-numbers", "airport", "stored point of four numbers"),
        ("saved-object", "station", "stored point as a lat/lng object"),
    ]:
        args = {"places_file": "trips/places.json", "from": "office", "to": to}
        yield case(key, cause, A, None, caught(key, lambda: from_file("office", to)), "distance_between_saved_places", args)  # fmt: skip

    # an installation without geopy's optional / required dependencies
    with _pkgcopy.broken_install(ctx.tmp, ["geopy", "geographiclib"], hide=("pytz", "requests", "aiohttp")):
        from geopy.geocoders import GeoNames as BareGeoNames

        bare = BareGeoNames("acme_geo", domain="127.0.0.1:9")
        yield case("no-pytz", "pytz not installed (geopy[timezone])", U, None, caught("pytz", lambda: bare.reverse_timezone("45.764, 4.8357")), "lookup_timezone", {"provider": "geonames", "point": "45.764, 4.8357"})  # fmt: skip
    with _pkgcopy.broken_install(ctx.tmp, ["geopy"], hide=("geographiclib",)):

        def bare_distance() -> Any:
            from geopy.distance import geodesic

            return geodesic(_PARIS, _BERLIN).km

        yield case("no-geographiclib", "geographiclib missing from the installation", U, None, caught("geographiclib", bare_distance), "measure_distance", {"origin": _PARIS, "destination": _BERLIN})  # fmt: skip
