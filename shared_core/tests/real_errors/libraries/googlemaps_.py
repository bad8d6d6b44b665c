"""googlemaps: the Google Maps Platform web services client (``googlemaps.Client``) behind
a maps tool, its ``base_url`` pointed at a local stand-in of ``maps.googleapis.com``; the
Roads, Geolocation and Address Validation calls name their own hosts, which the tool's
``requests`` session sends to the same stand-in. The client raises
``googlemaps.exceptions.ApiError`` (``"<status> (<error_message>)"``) for a ``status``
other than ``OK`` / ``ZERO_RESULTS`` in an HTTP 200 body, ``_OverQueryLimit`` (an
``ApiError``) for ``OVER_QUERY_LIMIT`` / ``RESOURCE_EXHAUSTED`` / a Geolocation 403,
``HTTPError`` for another status, ``Timeout`` when its retries of 500 / 503 / 504 run past
``retry_timeout`` or the read times out, ``TransportError`` wrapping ``requests``' errors,
and ``ValueError`` / ``TypeError`` from its own checks of the arguments; a body it cannot
read escapes as ``requests``' ``JSONDecodeError`` or a ``KeyError``.

Bodies follow each API's documented statuses: Geocoding and reverse geocoding
(developers.google.com/maps/documentation/geocoding/requests-geocoding#StatusCodes:
``OVER_DAILY_LIMIT``, ``OVER_QUERY_LIMIT``, ``REQUEST_DENIED``, ``INVALID_REQUEST``,
``UNKNOWN_ERROR`` "may succeed if you try again"), Directions
(.../directions/get-directions#DirectionsStatus: ``NOT_FOUND``, ``MAX_WAYPOINTS_EXCEEDED``,
``MAX_ROUTE_LENGTH_EXCEEDED``), Distance Matrix
(.../distance-matrix/distance-matrix#DistanceMatrixStatus: ``MAX_ELEMENTS_EXCEEDED``,
``MAX_DIMENSIONS_EXCEEDED``), Places (.../places/web-service/details#PlacesDetailsStatus:
``NOT_FOUND``; .../search-nearby: a ``next_page_token`` used before it becomes valid is an
``INVALID_REQUEST`` that succeeds when retried), Time Zone, Elevation
(``DATA_NOT_AVAILABLE``), the Roads API's Google error object (.../roads/errors: 400
``INVALID_ARGUMENT``, 403 ``PERMISSION_DENIED``, 429 ``RESOURCE_EXHAUSTED``) and the
Geolocation API's (.../geolocation/requests-geolocation#errors: ``dailyLimitExceeded``,
``keyInvalid``, ``userRateLimitExceeded``), with the ``error_message`` texts the services
send ("You have exceeded your rate-limit for this API.", "The provided API key is
invalid.", "This API project is not authorized to use this API.", the billing notice ...).

Labels, by the cause set up:

- fixable: a parameter the model wrote that the API refuses (``INVALID_REQUEST`` for a
  missing address, a latitude out of range, a departure time in the past, a malformed
  place id, location or sample count; too many waypoints, a route too long, too many
  origins x destinations; the Roads API's ``INVALID_ARGUMENT`` on a path point; a URL too
  long, 414), and the client's own checks (travel mode, route restriction, both departure
  and arrival times, a lat/lng object it cannot read, components not a dict, a nearby
  search without a location, ``rank_by=distance`` with a radius or without a keyword,
  ``find_place``'s input type and fields, ``place``'s fields, autocomplete components other
  than country);
- unrecoverable: ``REQUEST_DENIED`` (an invalid key, an API not enabled for the project,
  billing not enabled, a key restricted to other addresses), ``OVER_DAILY_LIMIT``,
  ``OVER_QUERY_LIMIT`` with the daily quota message, Geolocation ``dailyLimitExceeded`` and
  ``keyInvalid``, the Roads API's ``PERMISSION_DENIED`` and "API key not valid", and a tool
  set up with a malformed key or none;
- ambiguous: ``NOT_FOUND`` of an origin, waypoint or place id (mistyped, obsolete or never
  there) and the Roads API's 404 ``NOT_FOUND`` of a road segment's place id,
  ``DATA_NOT_AVAILABLE`` for the points asked, and replies the client cannot read (an HTML
  page, a JSON document cut off, a body without ``status``, Roads, Time Zone, Geolocation
  and Address Validation replies that are not JSON);
- transient: ``OVER_QUERY_LIMIT`` / ``RESOURCE_EXHAUSTED`` per minute and Geolocation
  ``userRateLimitExceeded`` (with the client's own retry of them off), a ``next_page_token``
  not yet valid, 503 retried until ``retry_timeout``, refused, DNS -> not executed;
  ``UNKNOWN_ERROR``, 500 retried until ``retry_timeout``, a proxy's 502 page, read timeout,
  reset, close -> unknown outcome.

Not triggered: the static map and place photo calls (the client hands back the body
without checking it); ``ZERO_RESULTS`` (not an error for the client); the enterprise
``client_id`` signatures (their failures are a 403 page that the docs do not show).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "googlemaps"
REQUIRES = ["googlemaps==4.10.0"]

_KEY = "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"
_GEO = "Geocoding API status codes (developers.google.com/maps/documentation/geocoding/requests-geocoding#StatusCodes)"
_DIR = "Directions API status (developers.google.com/maps/documentation/directions/get-directions#DirectionsStatus)"
_DM = "Distance Matrix API status (developers.google.com/maps/documentation/distance-matrix/distance-matrix#DistanceMatrixStatus)"
_PLACES = "Places API status (developers.google.com/maps/documentation/places/web-service/details#PlacesDetailsStatus)"
_NEARBY = "Places API Nearby Search, next_page_token (developers.google.com/maps/documentation/places/web-service/search-nearby)"
_TZ = (
    "Time Zone API responses (developers.google.com/maps/documentation/timezone/requests-timezone#responses)"
)
_ELEV = "Elevation API status (developers.google.com/maps/documentation/elevation/requests-elevation#ElevationStatus)"
_ROADS = "Roads API errors (developers.google.com/maps/documentation/roads/errors)"
_GEOLOC = "Geolocation API errors (developers.google.com/maps/documentation/geolocation/requests-geolocation#errors)"
_BILLING = "You must enable Billing on the Google Cloud Project at https://console.cloud.google.com/project/_/billing/enable Learn more at https://developers.google.com/maps/gmp-get-started"  # fmt: skip


def _status(status: str, message: str | None = None, source: str = _GEO, **extra: Any) -> Reply:
    """A web service's 200 body with its ``status`` (and ``error_message``)."""
    body: dict[str, Any] = dict(extra)
    if message is not None:
        body["error_message"] = message
    body["status"] = status
    return Reply(200, body, {}, source, "application/json; charset=UTF-8")


def _geo(status: str, message: str | None = None, source: str = _GEO) -> Reply:
    return _status(status, message, source, results=[])


def _google(status: int, code: str, message: str, source: str = _ROADS) -> Reply:
    """The Google API error object the Roads API answers with."""
    body = {"error": {"code": status, "message": message, "status": code}}
    return Reply(status, body, {}, source, "application/json; charset=UTF-8")


def _geoloc(status: int, reason: str, message: str) -> Reply:
    body = {
        "error": {
            "errors": [
                {"domain": "usageLimits" if status == 403 else "global", "reason": reason, "message": message}
            ],
            "code": status,
            "message": message,
        }
    }
    return Reply(status, body, {}, _GEOLOC, "application/json; charset=UTF-8")


_HTML502 = "<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1><p>The proxy server received an invalid response from an upstream server.</p></body></html>"  # fmt: skip
_HTML414 = "<!DOCTYPE html>\n<html lang=en>\n  <meta charset=utf-8>\n  <title>Error 414 (Request-URI Too Large)!!1</title>\n  <p><b>414.</b> <ins>That's an error.</ins>\n  <p>The requested URL <code>/maps/api/distancematrix/json</code>... is too large to process.  <ins>That's all we know.</ins>\n"  # fmt: skip
_DAILY = "You have exceeded your daily request quota for this API. If you did not set a custom daily request quota, verify your project has an active billing account: http://g.co/dev/maps-no-account"  # fmt: skip

# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    # the model's parameters
    ("invalid_request_no_address", "geocode_empty", _geo("INVALID_REQUEST", "Invalid request. Missing the 'address', 'components', 'latlng' or 'place_id' parameter."), F, None, "geocoding request without an address"),
    ("invalid_latlng", "reverse_bad", _geo("INVALID_REQUEST", "Invalid request. Invalid 'latlng' parameter."), F, None, "latitude out of range"),
    ("departure_in_past", "directions_past", _status("INVALID_REQUEST", "Invalid request. 'departure_time' is in the past. Traffic information is only available for future and current times.", _DIR, routes=[]), F, None, "departure time in the past with a traffic model"),
    ("max_waypoints", "directions_waypoints", _status("MAX_WAYPOINTS_EXCEEDED", None, _DIR, geocoded_waypoints=[], routes=[]), F, None, "more waypoints than allowed"),
    ("max_route_length", "directions_long", _status("MAX_ROUTE_LENGTH_EXCEEDED", None, _DIR, geocoded_waypoints=[], routes=[]), F, None, "route too long to compute"),
    ("max_elements", "matrix_big", _status("MAX_ELEMENTS_EXCEEDED", None, _DM, destination_addresses=[], origin_addresses=[], rows=[]), F, None, "origins x destinations over the per-request limit"),
    ("max_dimensions", "matrix_wide", _status("MAX_DIMENSIONS_EXCEEDED", None, _DM, destination_addresses=[], origin_addresses=[], rows=[]), F, None, "more origins than allowed"),
    ("invalid_place_id", "place_bad_id", _status("INVALID_REQUEST", None, _PLACES, html_attributions=[]), F, None, "place id malformed (cut off)"),
    ("invalid_timezone_location", "timezone_bad", _status("INVALID_REQUEST", "Invalid request. Invalid 'location' parameter.", _TZ), F, None, "time zone asked for a latitude out of range"),
    ("invalid_elevation_samples", "elevation_path_samples", _status("INVALID_REQUEST", "Invalid request. Invalid 'samples' parameter.", _ELEV, results=[]), F, None, "more path samples than allowed"),
    ("roads_invalid_point", "snap_bad", _google(400, "INVALID_ARGUMENT", "Invalid value at 'path' (type.googleapis.com/google.maps.roads.v1op.SnapToRoadsRequest.path), \"48.8584,\""), F, None, "path point without a longitude"),
    ("url_too_long", "matrix_long_url", Reply(414, _HTML414, {}, "Google front end's 414 page"), F, None, "request URL too long (addresses spelled out in full)"),
    # keys, projects, billing, quotas
    ("request_denied_key", "geocode", _geo("REQUEST_DENIED", "The provided API key is invalid."), U, None, "API key invalid"),
    ("request_denied_api", "directions", _status("REQUEST_DENIED", "This API project is not authorized to use this API.", _DIR, routes=[]), U, None, "API not enabled for the key's project"),
    ("request_denied_billing", "places_text", _status("REQUEST_DENIED", _BILLING, _PLACES, html_attributions=[], results=[]), U, None, "billing not enabled on the project"),
    ("request_denied_ip", "geocode", _geo("REQUEST_DENIED", "This IP, site or mobile application is not authorized to use this API key. Request received from IP address 203.0.113.7, with empty referer"), U, None, "key restricted to other addresses"),
    ("over_daily_limit", "matrix", _status("OVER_DAILY_LIMIT", "You have exceeded your daily request quota for this API.", _DM, destination_addresses=[], origin_addresses=[], rows=[]), U, None, "daily limit, billing or usage cap reached"),
    ("over_query_limit_daily", "geocode", _geo("OVER_QUERY_LIMIT", _DAILY), U, None, "daily request quota used up"),
    ("geolocation_daily", "geolocate", _geoloc(403, "dailyLimitExceeded", "You have exceeded your daily request quota for this API."), U, None, "Geolocation daily quota used up"),
    ("geolocation_key_invalid", "geolocate", _geoloc(400, "keyInvalid", "API key not valid. Please pass a valid API key."), U, None, "Geolocation API key invalid"),
    ("roads_permission_denied", "snap", _google(403, "PERMISSION_DENIED", "Roads API has not been used in project 123456789012 before or it is disabled. Enable it by visiting https://console.developers.google.com/apis/api/roads.googleapis.com/overview?project=123456789012 then retry."), U, None, "Roads API not enabled for the project"),
    ("roads_key_invalid", "snap", _google(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key."), U, None, "Roads API key invalid (sent as 400)"),
    # not found, no data, what the service sent cannot be read
    ("directions_not_found", "directions", _status("NOT_FOUND", None, _DIR, geocoded_waypoints=[{"geocoder_status": "ZERO_RESULTS"}, {"geocoder_status": "OK", "place_id": "ChIJdd4hrwug2EcRmSrV3Vo6llI", "types": ["locality", "political"]}], routes=[]), A, None, "origin could not be geocoded"),
    ("waypoint_not_found", "directions_via", _status("NOT_FOUND", None, _DIR, geocoded_waypoints=[{"geocoder_status": "OK", "place_id": "ChIJD7fiBh9u5kcRYJSMaMOCCwQ", "types": ["locality", "political"]}, {"geocoder_status": "OK", "place_id": "ChIJdd4hrwug2EcRmSrV3Vo6llI", "types": ["locality", "political"]}, {"geocoder_status": "ZERO_RESULTS"}], routes=[]), A, None, "waypoint could not be geocoded"),
    ("place_not_found", "place", _status("NOT_FOUND", None, _PLACES, html_attributions=[]), A, None, "place id not found (obsolete or never there)"),
    ("elevation_no_data", "elevation", _status("DATA_NOT_AVAILABLE", None, _ELEV, results=[]), A, None, "no elevation data for the points"),
    ("html_200", "geocode", Reply(200, "<html><head><title>Sorry...</title></head><body><p>We're sorry... but your computer or network may be sending automated queries.</p></body></html>"), A, None, "an HTML page instead of the results"),
    ("json_cut_off", "geocode", Reply(200, '{\n   "results" : [\n      {\n         "formatted_address" : "Champ de Mars, 5 Av. Anatole France, 75007 Paris, France",\n         "geometry" : {\n            "location" : {\n               "lat" : 48.85', {}, "", "application/json; charset=UTF-8"), A, None, "results JSON cut off"),
    ("no_status", "geocode", Reply(200, {"results": []}, {}, "", "application/json; charset=UTF-8"), A, None, "reply without its status"),
    ("roads_not_json", "snap", Reply(200, "<html><body>Service temporarily rerouted</body></html>"), A, None, "Roads reply that is not JSON"),
    ("address_validation_not_json", "validate_address", Reply(200, "<html><body>Error</body></html>"), A, None, "Address Validation reply that is not JSON"),
    ("roads_place_not_found", "speed_limits", _google(404, "NOT_FOUND", "Requested entity was not found."), A, None, "road segment place id not found"),
    ("directions_cut_off", "directions", Reply(200, '{\n   "geocoded_waypoints" : [\n      {\n         "geocoder_status" : "OK",\n         "place_id" : "ChIJD7fiBh9u5kcRYJSMaMOCCwQ"', {}, "", "application/json; charset=UTF-8"), A, None, "directions JSON cut off"),
    ("timezone_not_json", "timezone", Reply(200, "<html><body><p>Server Error</p></body></html>"), A, None, "time zone reply that is not JSON"),
    ("geolocation_not_json", "geolocate", Reply(200, "<html><body><p>Server Error</p></body></html>"), A, None, "Geolocation reply that is not JSON"),
    # load, outages
    ("over_query_limit", "geocode", _geo("OVER_QUERY_LIMIT", "You have exceeded your rate-limit for this API."), T, NE, "queries-per-second limit reached"),
    ("roads_rate", "snap", _google(429, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Requests' and limit 'Requests per minute' of service 'roads.googleapis.com' for consumer 'project_number:123456789012'."), T, NE, "Roads API per-minute quota reached"),
    ("geolocation_rate", "geolocate", _geoloc(403, "userRateLimitExceeded", "You have exceeded the requests per second per user limit that you configured for this API."), T, NE, "Geolocation per-user rate limit reached"),
    ("page_token_not_ready", "nearby_next", _status("INVALID_REQUEST", None, _NEARBY, html_attributions=[], results=[]), T, NE, "next page token used before it became valid"),
    ("unknown_error", "directions", _status("UNKNOWN_ERROR", None, _DIR, routes=[]), T, UO, "server error; may succeed if tried again"),
    ("proxy_502", "geocode", Reply(502, _HTML502, {}, "a proxy's page"), T, UO, "a proxy's 502 page"),
]  # fmt: skip

# statuses the client retries until ``retry_timeout`` (1 s here) has passed
_RETRIED: list[tuple[str, str, Reply, str, str | None, str]] = [
    ("unavailable-retried", "geocode", Reply(503, "<html><body><h1>503 Service Unavailable</h1></body></html>"), T, NE, "503 retried until the client's retry timeout"),
    ("server_error-retried", "directions", Reply(500, "<html><body><h1>500 Internal Server Error</h1></body></html>"), T, UO, "500 retried until the client's retry timeout"),
]  # fmt: skip


def _calls(gmaps: Any) -> dict[str, tuple[str, dict[str, Any], Callable[[], Any]]]:
    """call -> (tool, the model's arguments, the call); the key and hosts are the tool's."""
    waypoints = [f"Stop {i}, Paris" for i in range(1, 31)]
    origins = [f"Warehouse {i}, Lyon" for i in range(1, 31)]
    destinations = [f"Store {i}, Paris" for i in range(1, 31)]
    long_origins = [
        f"{i} Rue de la République, 69002 Lyon, France (loading dock, gate B)" for i in range(1, 61)
    ]
    path = [(48.8584, 2.2945), (48.8600, 2.2950), (48.8611, 2.2962)]
    wifi = [
        {"macAddress": "3c:37:86:5d:75:d4", "signalStrength": -35},
        {"macAddress": "94:b4:0f:fd:c1:40", "signalStrength": -61},
    ]
    return {
        "geocode": ("geocode_address", {"address": "5 Avenue Anatole France, Paris"}, lambda: gmaps.geocode("5 Avenue Anatole France, Paris")),
        "geocode_empty": ("geocode_address", {"address": ""}, lambda: gmaps.geocode("")),
        "reverse_bad": ("reverse_geocode", {"lat": 148.8584, "lng": 2.2945}, lambda: gmaps.reverse_geocode((148.8584, 2.2945))),
        "directions": ("get_directions", {"origin": "Gare de Lyon, Paris", "destination": "Versailles", "mode": "driving"}, lambda: gmaps.directions("Gare de Lyon, Paris", "Versailles", mode="driving")),
        "directions_via": ("get_directions", {"origin": "Gare de Lyon, Paris", "destination": "Versailles", "waypoints": ["Chateau de Vincenes"]}, lambda: gmaps.directions("Gare de Lyon, Paris", "Versailles", waypoints=["Chateau de Vincenes"])),
        "directions_past": ("get_directions", {"origin": "Gare de Lyon, Paris", "destination": "Versailles", "mode": "driving", "departure_time": 1704067200, "traffic_model": "pessimistic"}, lambda: gmaps.directions("Gare de Lyon, Paris", "Versailles", mode="driving", departure_time=1704067200, traffic_model="pessimistic")),
        "directions_waypoints": ("get_directions", {"origin": "Depot, Paris", "destination": "Depot, Paris", "waypoints": waypoints}, lambda: gmaps.directions("Depot, Paris", "Depot, Paris", waypoints=waypoints)),
        "directions_long": ("get_directions", {"origin": "Lisbon, Portugal", "destination": "Vladivostok, Russia", "mode": "walking"}, lambda: gmaps.directions("Lisbon, Portugal", "Vladivostok, Russia", mode="walking")),
        "matrix": ("distance_matrix", {"origins": ["Lyon"], "destinations": ["Paris", "Marseille"]}, lambda: gmaps.distance_matrix(["Lyon"], ["Paris", "Marseille"])),
        "matrix_big": ("distance_matrix", {"origins": origins, "destinations": destinations}, lambda: gmaps.distance_matrix(origins, destinations)),
        "matrix_wide": ("distance_matrix", {"origins": origins, "destinations": ["Paris"]}, lambda: gmaps.distance_matrix(origins, ["Paris"])),
        "matrix_long_url": ("distance_matrix", {"origins": long_origins, "destinations": ["Paris"]}, lambda: gmaps.distance_matrix(long_origins, ["Paris"])),
        "place": ("place_details", {"place_id": "ChIJLU7jZClu5kcR4PcOOO6p3I0", "fields": ["name", "formatted_address"]}, lambda: gmaps.place("ChIJLU7jZClu5kcR4PcOOO6p3I0", fields=["name", "formatted_address"])),
        "place_bad_id": ("place_details", {"place_id": "ChIJLU7jZClu5kcR4Pc", "fields": ["name"]}, lambda: gmaps.place("ChIJLU7jZClu5kcR4Pc", fields=["name"])),
        "places_text": ("search_places", {"query": "bakery near Louvre"}, lambda: gmaps.places("bakery near Louvre")),
        "nearby_next": ("search_nearby", {"page_token": "AW30NDz3hC8Lx2b0kAqDmE5m1xK9v0dY"}, lambda: gmaps.places_nearby(page_token="AW30NDz3hC8Lx2b0kAqDmE5m1xK9v0dY")),
        "timezone_bad": ("get_timezone", {"lat": 123.0, "lng": 2.35, "timestamp": 1796083200}, lambda: gmaps.timezone((123.0, 2.35), timestamp=1796083200)),
        "elevation": ("get_elevation", {"locations": [[48.8584, 2.2945], [45.8326, 6.8652]]}, lambda: gmaps.elevation([(48.8584, 2.2945), (45.8326, 6.8652)])),
        "elevation_path_samples": ("get_elevation_along_path", {"path": [[48.8584, 2.2945], [45.8326, 6.8652]], "samples": 1000}, lambda: gmaps.elevation_along_path([(48.8584, 2.2945), (45.8326, 6.8652)], 1000)),
        "speed_limits": ("get_speed_limits", {"place_ids": ["ChIJX12duJAwGQ0Ra0d4Oi4jOGE", "ChIJLQcticc0GQ0RoiNZJVa5GxU"]}, lambda: gmaps.speed_limits(["ChIJX12duJAwGQ0Ra0d4Oi4jOGE", "ChIJLQcticc0GQ0RoiNZJVa5GxU"])),
        "timezone": ("get_timezone", {"lat": 48.8584, "lng": 2.2945, "timestamp": 1796083200}, lambda: gmaps.timezone((48.8584, 2.2945), timestamp=1796083200)),
        "snap": ("snap_to_roads", {"path": [list(p) for p in path]}, lambda: gmaps.snap_to_roads(path)),
        "snap_bad": ("snap_to_roads", {"path": ["48.8584,", "48.8600,2.2950"]}, lambda: gmaps.snap_to_roads(["48.8584,", "48.8600,2.2950"])),
        "geolocate": ("geolocate", {"wifi_access_points": wifi}, lambda: gmaps.geolocate(consider_ip=False, wifi_access_points=wifi)),
        "validate_address": ("validate_address", {"address_lines": ["1600 Amphitheatre Pkwy"], "region_code": "US"}, lambda: gmaps.addressvalidation(["1600 Amphitheatre Pkwy"], regionCode="US")),
    }  # fmt: skip


def cases(ctx: Any) -> Iterator[generate.Case]:
    import googlemaps
    import requests

    def session(base: str) -> requests.Session:
        class _Session(requests.Session):
            """The tool's session: the Roads, Geolocation and Address Validation hosts that
            the client names itself go to the same place as its base URL."""

            def request(self, method: str, url: str, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
                for host in (
                    "https://roads.googleapis.com",
                    "https://www.googleapis.com",
                    "https://addressvalidation.googleapis.com",
                ):
                    if url.startswith(host):
                        url = base + url[len(host) :]
                return super().request(method, url, *args, **kwargs)

        s = _Session()
        s.trust_env = False
        return s

    def client(base: str, key: str = _KEY) -> Any:
        return googlemaps.Client(
            key=key,
            base_url=base,
            timeout=_saas.TIMEOUT,
            retry_timeout=1,
            retry_over_query_limit=False,
            requests_session=session(base),
        )

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"googlemaps-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    with _saas.service(ctx, "GMAPSPORT", "scaffolding on HTTPServer2") as svc:
        calls = _calls(client(svc.base))
        for key, call, reply, kind, outcome, cause in [*_SCENARIOS, *_RETRIED]:
            tool, args, fn = calls[call]
            svc.reply(reply)
            try:
                exc = _saas.catch(fn)
            except AssertionError:
                raise AssertionError(key) from None
            yield case(key, cause, kind, outcome, exc, tool, args)
        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": _saas.DNS_BASE}.get(key, svc.base)
            tool, args, fn = _calls(client(base))["geocode"]
            yield case(key, cause, kind, outcome, _saas.catch(fn), tool, args)

    # the client's own checks of the model's arguments (nothing sent), and its key
    g = client(_saas.dead_base(ctx))
    local: list[tuple[str, str, str, str, dict[str, Any], Callable[[], Any]]] = [
        ("invalid-mode", "travel mode not one of the four", F, "get_directions", {"origin": "Lyon", "destination": "Paris", "mode": "cycling"}, lambda: g.directions("Lyon", "Paris", mode="cycling")),
        ("invalid-avoid", "route restriction not one of tolls / highways / ferries / indoor", F, "distance_matrix", {"origins": ["Lyon"], "destinations": ["Paris"], "avoid": "motorways"}, lambda: g.distance_matrix(["Lyon"], ["Paris"], avoid="motorways")),
        ("departure-and-arrival", "both a departure and an arrival time", F, "get_directions", {"origin": "Lyon", "destination": "Paris", "mode": "transit", "departure_time": 1796083200, "arrival_time": 1796090400}, lambda: g.directions("Lyon", "Paris", mode="transit", departure_time=1796083200, arrival_time=1796090400)),
        ("latlng-object", "location given as an object with other keys", F, "reverse_geocode", {"location": {"y": 48.8584, "x": 2.2945}}, lambda: g.reverse_geocode({"y": 48.8584, "x": 2.2945})),
        ("components-list", "components given as a list", F, "geocode_address", {"address": "Main Street", "components": ["country:GB"]}, lambda: g.geocode("Main Street", components=["country:GB"])),
        ("nearby-no-location", "nearby search without a location", F, "search_nearby", {"keyword": "pharmacy", "radius": 500}, lambda: g.places_nearby(keyword="pharmacy", radius=500)),
        ("nearby-rank-radius", "rank by distance with a radius", F, "search_nearby", {"location": [48.8584, 2.2945], "keyword": "pharmacy", "rank_by": "distance", "radius": 500}, lambda: g.places_nearby(location=(48.8584, 2.2945), keyword="pharmacy", rank_by="distance", radius=500)),
        ("nearby-rank-no-keyword", "rank by distance without a keyword, name or type", F, "search_nearby", {"location": [48.8584, 2.2945], "rank_by": "distance"}, lambda: g.places_nearby(location=(48.8584, 2.2945), rank_by="distance")),
        ("find-place-input-type", "find_place input type not textquery / phonenumber", F, "find_place", {"input": "Musee du Louvre", "input_type": "text"}, lambda: g.find_place("Musee du Louvre", "text")),
        ("find-place-fields", "find_place field that does not exist", F, "find_place", {"input": "Musee du Louvre", "input_type": "textquery", "fields": ["phone"]}, lambda: g.find_place("Musee du Louvre", "textquery", fields=["phone"])),
        ("place-fields", "place details field that does not exist", F, "place_details", {"place_id": "ChIJLU7jZClu5kcR4PcOOO6p3I0", "fields": ["opening_hourz"]}, lambda: g.place("ChIJLU7jZClu5kcR4PcOOO6p3I0", fields=["opening_hourz"])),
        ("autocomplete-components", "autocomplete restricted by a component other than country", F, "autocomplete_place", {"input": "Rue de Riv", "components": {"locality": "Paris"}}, lambda: g.places_autocomplete("Rue de Riv", components={"locality": "Paris"})),
        ("malformed-key", "tool set up with a malformed API key", U, "geocode_address", {"address": "5 Avenue Anatole France, Paris"}, lambda: client(_saas.dead_base(ctx), key="maps-key-0123456789")),
        ("no-key", "tool set up without an API key", U, "geocode_address", {"address": "5 Avenue Anatole France, Paris"}, lambda: client(_saas.dead_base(ctx), key="")),
    ]  # fmt: skip
    for key, cause, kind, tool, args, fn in local:
        try:
            exc = _saas.catch(fn)
        except AssertionError:
            raise AssertionError(key) from None
        yield case(key, cause, kind, None, exc, tool, args)
