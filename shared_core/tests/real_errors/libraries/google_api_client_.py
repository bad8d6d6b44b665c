"""google-api-python-client: Google's discovery-based client behind Drive v3, Sheets v4,
Calendar v3 and Gmail v1 tools, built from the discovery documents bundled in the package
(``build(..., static_discovery=True)``) with ``client_options={"api_endpoint": ...}``
pointed at a local stand-in of each API and an ``AuthorizedHttp`` (google-auth-httplib2,
an OAuth access token the tool holds) over ``httplib2``: ``googleapiclient.errors.HttpError``
carrying Google's JSON error, the client's own errors (``UnknownApiNameOrVersion``,
``InvalidJsonError`` for a discovery document that is not JSON, ``UnacceptableMimeTypeError``
/ ``UnknownFileType`` / ``MediaUploadSizeError`` for a media upload, ``TypeError`` from the
generated methods' checks of parameter names, required parameters and enum values), and
the transport's errors (``TimeoutError``, ``ConnectionResetError``, ``RemoteDisconnected``,
``ConnectionRefusedError``, ``httplib2.error.ServerNotFoundError``).

Bodies are Google's JSON error ``{"error": {"code", "message", "errors": [{"message",
"domain", "reason", "location", "locationType"}], "status"}}`` as each API's error guide
shows it: Drive (developers.google.com/workspace/drive/api/guides/handle-errors: 400
invalid / badRequest, 401 authError "Invalid Credentials", 403 dailyLimitExceeded,
userRateLimitExceeded, rateLimitExceeded, storageQuotaExceeded, insufficientFilePermissions,
domainPolicy, 404 notFound "File not found: {fileId}.", 429 rateLimitExceeded, 500
backendError: "use exponential backoff"), Calendar (developers.google.com/workspace/
calendar/api/guides/errors: 400 required "Missing end time.", timeRangeEmpty, 403
quotaExceeded "Calendar usage limits exceeded.", 404 notFound, 409 duplicate "The requested
identifier already exists.", 410 deleted, 412 conditionNotMet, 429 rateLimitExceeded),
Gmail (developers.google.com/workspace/gmail/api/guides/handle-errors: 400 invalidArgument
/ failedPrecondition "Mail service not enabled", 429 "Too many concurrent requests for
user"), Sheets (developers.google.com/workspace/sheets/api/limits and the v4 API's
INVALID_ARGUMENT / NOT_FOUND / PERMISSION_DENIED / RESOURCE_EXHAUSTED replies: "Unable to
parse range: ...", "exceeds grid limits", the 10,000,000-cell limit, "Quota exceeded for
quota metric 'Read requests' ..."), the ``status`` of Google's error model
(cloud.google.com/apis/design/errors, "HTTP mapping") and "Request had insufficient
authentication scopes." / ``accessNotConfigured`` of Google's OAuth front end. Labels, by
the cause set up:

- fixable: a Drive query or sort the model wrote, a range it wrote that Sheets cannot parse
  or that exceeds the grid, values of the wrong shape, an event without an end / with an
  empty time range / an attendee email that is not one, a To header that is not valid,
  and the client's own checks: an enum value (``valueInputOption``,
  ``orderBy``), an unknown parameter name, a missing required parameter, an API version
  that does not exist, a file to send whose type the method does not accept or cannot be
  told from its name;
- unrecoverable: invalid credentials, a token without the scope, the API not enabled for
  the project, the daily limit or the calendar usage limits used up, the Drive storage
  quota full, no permission on the file / spreadsheet, Drive apps disabled by the domain,
  the mailbox without Gmail, a tab refused because the workbook is at the 10M-cell limit
  (the tab asked for is 130,000 cells), a message over Gmail's 35 MB, an API key that is
  not valid (the tool's configuration);
- ambiguous: a file, spreadsheet, event, message or label id not found, an event deleted (410), an
  event id that already exists (409), an etag that no longer matches (412), a sheet tab
  that already exists, a message the tool READ from a file (the model named it) with a bad
  header, a discovery document that is not JSON;
- transient: userRateLimitExceeded / rateLimitExceeded (403 and 429), Sheets' per-minute
  quota (429), 503, refused, DNS (not executed); 500 backendError and 502 (the guides:
  retry with exponential backoff; it may have run), read timeout, reset, close (unknown
  outcome). ``-retried`` keeps ``execute(num_retries=1)``.

Not triggered: batch requests (``BatchError``: the tools send one call each), resumable
upload errors (need an upload session), a 200 that is not JSON (the client returns the
text as it is, raising nothing).
"""

from __future__ import annotations

import base64
import ssl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "google-api-python-client"
REQUIRES = ["google-api-python-client==2.202.0", "google-auth-httplib2==0.4.4", "httplib2==0.32.1"]

_DRIVE = "Drive API, resolve errors (developers.google.com/workspace/drive/api/guides/handle-errors)"
_CAL = "Calendar API, handle errors (developers.google.com/workspace/calendar/api/guides/errors)"
_GMAIL = "Gmail API, resolve errors (developers.google.com/workspace/gmail/api/guides/handle-errors)"
_SHEETS = "Sheets API v4 error replies; limits (developers.google.com/workspace/sheets/api/limits)"
_MODEL = "Google API error model, HTTP mapping (cloud.google.com/apis/design/errors)"
_TOKEN = "ya29.a0AfB_byC3-tool-held-access-token"
_FILE = "1A2b3C4d5E6f7G8h9I0jKlMnOpQrStUvW"
_SHEET = "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms"
_EVENT = "7kq3b1ra8s0ve2ng4m5uht9c6d"
_MSG = "18c2f0a9b7e4d3c1"
_QUERY = "name contains 'budget' and trashed = false"

_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ALREADY_EXISTS",
    410: "NOT_FOUND",
    412: "FAILED_PRECONDITION",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    502: "UNAVAILABLE",
    503: "UNAVAILABLE",
}


def _g(
    code: int,
    message: str,
    reason: str,
    domain: str = "global",
    source: str = _DRIVE,
    status: str | None = None,
    **where: str,
) -> Reply:
    """Google's JSON error with one ``errors`` entry (``where``: location / locationType)."""
    item = {"message": message, "domain": domain, "reason": reason, **where}
    body = {"error": {"code": code, "message": message, "errors": [item], "status": status or _STATUS[code]}}
    return Reply(code, body, {}, f"{source}; {_MODEL}", "application/json; charset=UTF-8")


def _s(code: int, message: str, **extra: Any) -> Reply:
    """A Sheets v4 error (no ``errors`` list: ``status`` and, for some, ``details``)."""
    body = {"error": {"code": code, "message": message, "status": _STATUS[code], **extra}}
    return Reply(code, body, {}, f"{_SHEETS}; {_MODEL}", "application/json; charset=UTF-8")


_PARAM = {"locationType": "parameter"}
_SCOPES = _g(
    403,
    "Request had insufficient authentication scopes.",
    "insufficientPermissions",
    status="PERMISSION_DENIED",
    source="Google OAuth 2.0 scopes (developers.google.com/identity/protocols/oauth2/scopes)",
)
_QUOTA_MINUTE = _s(
    429,
    "Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute per user' of service 'sheets.googleapis.com' for consumer 'project_number:481516234200'.",
    details=[
        {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": "RATE_LIMIT_EXCEEDED",
            "domain": "googleapis.com",
            "metadata": {
                "quota_limit": "ReadRequestsPerMinutePerUser",
                "quota_metric": "sheets.googleapis.com/read_requests",
                "consumer": "projects/481516234200",
                "service": "sheets.googleapis.com",
                "quota_limit_value": "60",
            },
        }
    ],
)
_NOT_ENABLED = _g(
    403,
    "Google Drive API has not been used in project 481516234200 before or it is disabled. Enable it by visiting https://console.developers.google.com/apis/api/drive.googleapis.com/overview?project=481516234200 then retry. If you enabled this API recently, wait a few minutes for the action to propagate to our systems and retry.",
    "accessNotConfigured",
    domain="usageLimits",
    extendedHelp="https://console.developers.google.com",
)

_API_KEY = "AIzaSyD-tool-config-key-0000000000000"
_API_KEY_INVALID = Reply(
    400,
    {
        "error": {
            "code": 400,
            "message": "API key not valid. Please pass a valid API key.",
            "status": "INVALID_ARGUMENT",
            "details": [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "API_KEY_INVALID",
                    "domain": "googleapis.com",
                    "metadata": {"service": "calendar-json.googleapis.com"},
                }
            ],
        }
    },
    {},
    f"Google API keys (cloud.google.com/docs/authentication/api-keys); {_MODEL}",
    "application/json; charset=UTF-8",
)

# The tools' declared parameters (one schema per tool, as its author wrote it).
_STR = {"type": "string"}
PARAMETERS: dict[str, dict[str, Any]] = {
    "search_drive_files": {
        "type": "object",
        "properties": {
            "query": {**_STR, "description": "Drive search query, e.g. name contains 'budget'"},
            "order_by": {**_STR, "description": "Sort keys, e.g. modifiedTime desc"},
            "page_size": {"type": "integer", "description": "Maximum files to return"},
        },
        "required": ["query"],
    },
    "get_drive_file": {
        "type": "object",
        "properties": {"file_id": {**_STR, "description": "Drive file id"}},
        "required": ["file_id"],
    },
    "copy_drive_file": {
        "type": "object",
        "properties": {
            "file_id": {**_STR, "description": "Drive file id"},
            "name": {**_STR, "description": "Name of the copy"},
        },
        "required": ["file_id", "name"],
    },
    "share_drive_file": {
        "type": "object",
        "properties": {
            "file_id": {**_STR, "description": "Drive file id"},
            "email": {**_STR, "description": "Email address to share with"},
            "role": {**_STR, "description": "reader, commenter or writer"},
        },
        "required": ["file_id", "email", "role"],
    },
    "read_sheet_range": {
        "type": "object",
        "properties": {
            "spreadsheet_id": {**_STR, "description": "Spreadsheet id"},
            "range": {**_STR, "description": "A1 range, e.g. Sheet1!A1:D20"},
        },
        "required": ["spreadsheet_id", "range"],
    },
    "write_sheet_range": {
        "type": "object",
        "properties": {
            "spreadsheet_id": {**_STR, "description": "Spreadsheet id"},
            "range": {**_STR, "description": "A1 range to write, e.g. Sheet1!A2"},
            "values": {"type": "array", "items": {"type": "array"}, "description": "Rows of cell values"},
            "value_input_option": {**_STR, "description": "How input is interpreted: RAW or USER_ENTERED"},
        },
        "required": ["spreadsheet_id", "range", "values"],
    },
    "add_sheet_tab": {
        "type": "object",
        "properties": {
            "spreadsheet_id": {**_STR, "description": "Spreadsheet id"},
            "title": {**_STR, "description": "Title of the new tab"},
            "rows": {"type": "integer", "description": "Number of rows"},
            "columns": {"type": "integer", "description": "Number of columns"},
        },
        "required": ["spreadsheet_id", "title"],
    },
    "create_calendar_event": {
        "type": "object",
        "properties": {
            "calendar_id": {**_STR, "description": "Calendar id; primary for the user's calendar"},
            "event_id": {**_STR, "description": "Optional id to give the event"},
            "summary": {**_STR, "description": "Event title"},
            "start": {**_STR, "format": "date-time", "description": "Start time, RFC 3339"},
            "end": {**_STR, "format": "date-time", "description": "End time, RFC 3339"},
            "attendees": {"type": "array", "items": _STR, "description": "Attendee emails"},
        },
        "required": ["calendar_id", "summary", "start"],
    },
    "list_calendar_events": {
        "type": "object",
        "properties": {
            "calendar_id": {**_STR, "description": "Calendar id"},
            "time_min": {**_STR, "format": "date-time", "description": "Lower bound, RFC 3339"},
            "time_max": {**_STR, "format": "date-time", "description": "Upper bound, RFC 3339"},
            "order_by": {**_STR, "description": "Sort order"},
        },
        "required": ["calendar_id"],
    },
    "update_calendar_event": {
        "type": "object",
        "properties": {
            "calendar_id": {**_STR, "description": "Calendar id"},
            "event_id": {**_STR, "description": "Event id"},
            "summary": {**_STR, "description": "New title"},
        },
        "required": ["calendar_id", "event_id"],
    },
    "send_email": {
        "type": "object",
        "properties": {
            "to": {**_STR, "description": "Recipient address"},
            "subject": {**_STR, "description": "Subject line"},
            "body": {**_STR, "description": "Plain-text body"},
        },
        "required": ["to", "subject", "body"],
    },
    "send_email_file": {
        "type": "object",
        "properties": {"path": {**_STR, "description": "Path of an RFC 822 message file (.eml) to send"}},
        "required": ["path"],
    },
    "get_email": {
        "type": "object",
        "properties": {"message_id": {**_STR, "description": "Gmail message id"}},
        "required": ["message_id"],
    },
    "label_email": {
        "type": "object",
        "properties": {
            "message_id": {**_STR, "description": "Gmail message id"},
            "label_ids": {"type": "array", "items": _STR, "description": "Label ids to add"},
        },
        "required": ["message_id", "label_ids"],
    },
    "call_google_api": {
        "type": "object",
        "properties": {
            "api": {**_STR, "description": "API name, e.g. drive, sheets, calendar, gmail"},
            "version": {**_STR, "description": "API version, e.g. v3"},
            "resource": {**_STR, "description": "Resource path, e.g. files or users.messages"},
            "method": {**_STR, "description": "Method name, e.g. list"},
            "params": {"type": "object", "description": "The method's parameters"},
        },
        "required": ["api", "version", "resource", "method"],
    },
}

# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    # the model's arguments
    ("drive-invalid-query", "drive_search_bad", _g(400, "Invalid Value", "invalid", location="q", **_PARAM), F, None, "Drive query the model wrote is invalid"),
    ("drive-sort-fulltext", "drive_search_sort", _g(400, "Sorting is not supported for queries with fullText terms. Results are always in descending relevance order.", "badRequest", location="orderBy", **_PARAM), F, None, "sort asked for on a full-text query"),
    ("sheets-unparsable-range", "sheet_read_bad", _s(400, "Unable to parse range: Sheet1!A:B:C"), F, None, "A1 range the model wrote cannot be parsed"),
    ("sheets-grid-limits", "sheet_read_far", _s(400, "Range ('Sheet1'!A1001:B1001) exceeds grid limits. Max rows: 1000, max columns: 26"), F, None, "range beyond the sheet's grid"),
    ("sheets-values-shape", "sheet_write_flat", _s(400, "Invalid value at 'data.values[0]' (type.googleapis.com/google.protobuf.ListValue), \"Alice\"", details=[{"@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": [{"field": "data.values[0]", "description": "Invalid value at 'data.values[0]' (type.googleapis.com/google.protobuf.ListValue), \"Alice\""}]}]), F, None, "values not a list of rows"),
    ("calendar-missing-end", "event_no_end", _g(400, "Missing end time.", "required", source=_CAL), F, None, "event without an end time"),
    ("calendar-time-range-empty", "events_range", _g(400, "The specified time range is empty.", "timeRangeEmpty", source=_CAL, location="timeMax", **_PARAM), F, None, "timeMax before timeMin"),
    ("calendar-invalid-attendee", "event_bad_attendee", _g(400, "Invalid attendee email.", "invalid", source=_CAL), F, None, "attendee email not valid"),
    ("gmail-invalid-to", "send_bad_to", _g(400, "Invalid To header", "invalidArgument", source=_GMAIL), F, None, "recipient address the model wrote is invalid"),
    ("gmail-invalid-label", "label_bad", _g(400, "Invalid label: Label_Urgent", "invalidArgument", source=_GMAIL), A, None, "label id not one of the mailbox's labels (mistyped or deleted)"),
    # credentials, scopes, quotas, policies, limits
    ("drive-auth-error", "drive_get", _g(401, "Invalid Credentials", "authError", location="Authorization", locationType="header"), U, None, "access token rejected (401); the tool's credentials hold no refresh token"),
    ("insufficient-scopes", "gmail_send", _SCOPES, U, None, "token lacks the gmail.send scope"),
    ("api-not-enabled", "drive_search", _NOT_ENABLED, U, None, "Drive API not enabled for the project"),
    ("drive-daily-limit", "drive_search", _g(403, "Daily Limit Exceeded", "dailyLimitExceeded", domain="usageLimits"), U, None, "project's daily limit used up"),
    ("calendar-quota-exceeded", "event_create", _g(403, "Calendar usage limits exceeded.", "quotaExceeded", domain="usageLimits", source=_CAL), U, None, "calendar usage limits reached"),
    ("drive-storage-quota", "drive_copy", _g(403, "The user's Drive storage quota has been exceeded.", "storageQuotaExceeded"), U, None, "Drive storage full"),
    ("drive-insufficient-file-permissions", "drive_share", _g(403, f"The user does not have sufficient permissions for file {_FILE}.", "insufficientFilePermissions"), U, None, "user may not share the file"),
    ("drive-domain-policy", "drive_get", _g(403, "The domain administrators have disabled Drive apps.", "domainPolicy"), U, None, "domain policy disables Drive apps"),
    ("sheets-permission-denied", "sheet_write", _s(403, "The caller does not have permission"), U, None, "no edit access to the spreadsheet"),
    ("sheets-cell-limit", "sheet_add_tab_big", _s(400, "Invalid requests[0].addSheet: This action would increase the number of cells in the workbook above the limit of 10000000 cells."), U, None, "workbook at the 10M-cell limit"),
    ("gmail-not-enabled", "gmail_send", _g(400, "Mail service not enabled", "failedPrecondition", source=_GMAIL, status="FAILED_PRECONDITION"), U, None, "account without Gmail"),
    # not found, gone, already there, stale state
    ("drive-not-found", "drive_get", _g(404, f"File not found: {_FILE}.", "notFound", location="fileId", **_PARAM), A, None, "file not found"),
    ("sheets-not-found", "sheet_read", _s(404, "Requested entity was not found."), A, None, "spreadsheet not found"),
    ("calendar-not-found", "event_update", _g(404, "Not Found", "notFound", source=_CAL), A, None, "event not found"),
    ("calendar-deleted", "event_update", _g(410, "Resource has been deleted", "deleted", source=_CAL), A, None, "event deleted"),
    ("calendar-duplicate", "event_create_id", _g(409, "The requested identifier already exists.", "duplicate", source=_CAL), A, None, "event id already exists"),
    ("calendar-condition-not-met", "event_update", _g(412, "Precondition Failed", "conditionNotMet", source=_CAL, location="If-Match", locationType="header"), A, None, "event changed since it was read (etag)"),
    ("gmail-not-found", "gmail_get", _g(404, "Requested entity was not found.", "notFound", source=_GMAIL), A, None, "message not found"),
    ("sheets-tab-exists", "sheet_add_tab", _s(400, "Invalid requests[0].addSheet: A sheet with the name \"Q4\" already exists. Please enter another name."), A, None, "a tab with the title already exists"),
    ("gmail-file-bad-header", "send_file_ok", _g(400, "Invalid To header", "invalidArgument", source=_GMAIL), A, None, "message read from the file has an invalid To header"),
    # load, outages
    ("drive-user-rate-limit", "drive_search", _g(403, "User Rate Limit Exceeded", "userRateLimitExceeded", domain="usageLimits"), T, NE, "per-user rate limit"),
    ("drive-rate-limit-403", "drive_share", _g(403, "Rate Limit Exceeded", "rateLimitExceeded", domain="usageLimits"), T, NE, "project rate limit (403)"),
    ("calendar-rate-limit-429", "events_list", _g(429, "Rate Limit Exceeded", "rateLimitExceeded", domain="usageLimits", source=_CAL), T, NE, "rate limit (429)"),
    ("gmail-concurrent-requests", "gmail_get", _g(429, "Too many concurrent requests for user", "rateLimitExceeded", domain="usageLimits", source=_GMAIL), T, NE, "too many concurrent requests for the mailbox"),
    ("sheets-quota-per-minute", "sheet_read", _QUOTA_MINUTE, T, NE, "Sheets read requests per minute used up"),
    ("service-unavailable", "events_list", _g(503, "The service is currently unavailable.", "backendError", source=_CAL), T, NE, "service unavailable"),
    ("drive-backend-error", "drive_copy", _g(500, "Backend Error", "backendError"), T, UO, "backend error (the guide: retry with backoff)"),
    ("bad-gateway", "sheet_write", Reply(502, "<!DOCTYPE html>\n<html lang=en>\n  <meta charset=utf-8>\n  <title>Error 502 (Server Error)!!1</title>\n  <p><b>502.</b> <ins>That's an error.</ins>\n  <p>The server encountered a temporary error and could not complete your request.<p>Please try again in 30 seconds.  <ins>That's all we know.</ins>\n", {}, "Google front end's 502 page"), T, UO, "front end's temporary error (502)"),
]  # fmt: skip

_RETRIED: list[tuple[str, str, Reply, str, str | None, str]] = [
    ("drive-user-rate-limit-retried", "drive_search", _g(403, "User Rate Limit Exceeded", "userRateLimitExceeded", domain="usageLimits"), T, NE, "per-user rate limit (after the client's retry)"),
]  # fmt: skip


def _calls(build: Any, files: Path) -> dict[str, tuple[str, dict[str, Any], Any]]:
    """call -> (tool, the model's arguments, the call); the token and endpoints are the tool's."""
    drive, sheets = build("drive", "v3"), build("sheets", "v4")
    calendar, gmail = build("calendar", "v3"), build("gmail", "v1")

    def drive_search(args: dict[str, Any]) -> tuple[str, dict[str, Any], Any]:
        kw = {"q": args["query"], "orderBy": args.get("order_by"), "pageSize": args.get("page_size")}
        return ("search_drive_files", args, lambda: drive.files().list(**kw).execute())

    def sheet_read(rng: str) -> tuple[str, dict[str, Any], Any]:
        return (
            "read_sheet_range",
            {"spreadsheet_id": _SHEET, "range": rng},
            lambda: sheets.spreadsheets().values().get(spreadsheetId=_SHEET, range=rng).execute(),
        )

    def sheet_write(values: list[Any], option: str = "USER_ENTERED") -> tuple[str, dict[str, Any], Any]:
        args = {
            "spreadsheet_id": _SHEET,
            "range": "Sheet1!A2",
            "values": values,
            "value_input_option": option,
        }
        return (
            "write_sheet_range",
            args,
            lambda: (
                sheets.spreadsheets()
                .values()
                .update(
                    spreadsheetId=_SHEET, range="Sheet1!A2", valueInputOption=option, body={"values": values}
                )
                .execute()
            ),
        )

    def add_tab(title: str, rows: int, cols: int) -> tuple[str, dict[str, Any], Any]:
        req = {
            "addSheet": {
                "properties": {"title": title, "gridProperties": {"rowCount": rows, "columnCount": cols}}
            }
        }
        return (
            "add_sheet_tab",
            {"spreadsheet_id": _SHEET, "title": title, "rows": rows, "columns": cols},
            lambda: (
                sheets.spreadsheets().batchUpdate(spreadsheetId=_SHEET, body={"requests": [req]}).execute()
            ),
        )

    def event_create(args: dict[str, Any]) -> tuple[str, dict[str, Any], Any]:
        body: dict[str, Any] = {"summary": args["summary"], "start": {"dateTime": args["start"]}}
        if "end" in args:
            body["end"] = {"dateTime": args["end"]}
        if "attendees" in args:
            body["attendees"] = [{"email": e} for e in args["attendees"]]
        if "event_id" in args:
            body["id"] = args["event_id"]
        return ("create_calendar_event", args, lambda: calendar.events().insert(calendarId=args["calendar_id"], body=body).execute())  # fmt: skip

    def events_list(args: dict[str, Any]) -> tuple[str, dict[str, Any], Any]:
        kw = {"calendarId": args["calendar_id"], "timeMin": args.get("time_min"), "timeMax": args.get("time_max"), "orderBy": args.get("order_by"), "singleEvents": True}  # fmt: skip
        return ("list_calendar_events", args, lambda: calendar.events().list(**kw).execute())

    def send(to: str) -> tuple[str, dict[str, Any], Any]:
        mime = f"To: {to}\r\nSubject: Q4 numbers\r\n\r\nHi, the Q4 sheet is updated.\r\n"
        raw = base64.urlsafe_b64encode(mime.encode()).decode()
        args = {"to": to, "subject": "Q4 numbers", "body": "Hi, the Q4 sheet is updated."}
        return (
            "send_email",
            args,
            lambda: gmail.users().messages().send(userId="me", body={"raw": raw}).execute(),
        )

    def send_file(name: str) -> tuple[str, dict[str, Any], Any]:
        return (
            "send_email_file",
            {"path": name},
            lambda: (
                gmail.users().messages().send(userId="me", body={}, media_body=str(files / name)).execute()
            ),
        )

    start, end = "2026-12-14T10:00:00+01:00", "2026-12-14T11:00:00+01:00"
    meeting = {"calendar_id": "primary", "summary": "Q4 review", "start": start, "end": end}
    return {
        "drive_search": drive_search({"query": "name contains 'budget' and trashed = false"}),
        "drive_search_bad": drive_search({"query": "name contain 'budget'"}),
        "drive_search_sort": drive_search({"query": "fullText contains 'budget'", "order_by": "modifiedTime desc"}),
        "drive_get": ("get_drive_file", {"file_id": _FILE}, lambda: drive.files().get(fileId=_FILE).execute()),
        "drive_copy": ("copy_drive_file", {"file_id": _FILE, "name": "Budget 2027 (copy)"}, lambda: drive.files().copy(fileId=_FILE, body={"name": "Budget 2027 (copy)"}).execute()),
        "drive_share": ("share_drive_file", {"file_id": _FILE, "email": "lee@example.com", "role": "writer"}, lambda: drive.permissions().create(fileId=_FILE, body={"type": "user", "role": "writer", "emailAddress": "lee@example.com"}).execute()),
        "sheet_read": sheet_read("Sheet1!A1:D20"),
        "sheet_read_bad": sheet_read("Sheet1!A:B:C"),
        "sheet_read_far": sheet_read("Sheet1!A1001:B1001"),
        "sheet_write": sheet_write([["Alice", 42], ["Bob", 37]]),
        "sheet_write_flat": sheet_write(["Alice", 42]),
        "sheet_write_option": sheet_write([["Alice", 42]], "FORMATTED"),
        "sheet_add_tab": add_tab("Q4", 1000, 26),
        "sheet_add_tab_big": add_tab("Raw export", 5000, 26),
        "event_create": event_create(meeting),
        "event_create_id": event_create({**meeting, "event_id": _EVENT}),
        "event_no_end": event_create({"calendar_id": "primary", "summary": "Q4 review", "start": start}),
        "event_bad_attendee": event_create({**meeting, "attendees": ["lee@example"]}),
        "event_update": ("update_calendar_event", {"calendar_id": "primary", "event_id": _EVENT, "summary": "Q4 review (moved)"}, lambda: calendar.events().patch(calendarId="primary", eventId=_EVENT, body={"summary": "Q4 review (moved)"}).execute()),
        "events_list": events_list({"calendar_id": "primary", "time_min": "2026-12-01T00:00:00Z", "time_max": "2026-12-31T00:00:00Z"}),
        "events_range": events_list({"calendar_id": "primary", "time_min": "2026-12-31T00:00:00Z", "time_max": "2026-12-01T00:00:00Z"}),
        "events_order": events_list({"calendar_id": "primary", "time_min": "2026-12-01T00:00:00Z", "order_by": "start"}),
        "gmail_send": send("lee@example.com"),
        "send_bad_to": send("lee at example dot com"),
        "send_file_ok": send_file("reply.eml"),
        "send_file_txt": send_file("reply.txt"),
        "send_file_unknown": send_file("reply.msgx"),
        "send_file_big": send_file("newsletter.eml"),
        "gmail_get": ("get_email", {"message_id": _MSG}, lambda: gmail.users().messages().get(userId="me", id=_MSG).execute()),
        "label_bad": ("label_email", {"message_id": _MSG, "label_ids": ["Label_Urgent"]}, lambda: gmail.users().messages().modify(userId="me", id=_MSG, body={"addLabelIds": ["Label_Urgent"]}).execute()),
    }  # fmt: skip


@contextmanager
def _tls_service(ctx: Any, cert: str, key: str) -> Iterator[_saas.Service]:
    """The stand-in over TLS: the client sends media uploads to https on the endpoint's host
    whatever the endpoint's scheme (``_fix_up_media_path_base_url`` keeps the root URL's)."""
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert, key)
    with _saas.service(ctx, "GOOGLEAPIPORT", "ESF") as svc:
        server = svc._server
        server.socket = tls.wrap_socket(server.socket, server_side=True)
        svc.base = svc.base.replace("http://", "https://")
        yield svc


def cases(ctx: Any) -> Iterator[generate.Case]:
    import google_auth_httplib2
    import httplib2
    from google.oauth2.credentials import Credentials
    from googleapiclient.discovery import build

    files = ctx.tmp / "google"
    files.mkdir(exist_ok=True)
    (files / "reply.eml").write_text(
        "To: lee at example dot com\r\nSubject: Re: Q4\r\n\r\nThanks!\r\n", encoding="utf-8"
    )
    (files / "reply.txt").write_text("Thanks!\n", encoding="utf-8")
    (files / "reply.msgx").write_text("Thanks!\n", encoding="utf-8")
    with (files / "newsletter.eml").open("wb") as f:
        f.truncate(40 * 1024 * 1024)  # sparse: 40 MiB, over Gmail's 35 MB
    creds = Credentials(token=_TOKEN)
    cert, key = _saas.certificate(ctx.tmp, "google-stand-in")
    paths = {"drive": "/drive/v3/", "sheets": "/", "calendar": "/calendar/v3/", "gmail": "/"}

    def builder(base: str, api_key: str | None = None) -> Any:
        def make(api: str, version: str) -> Any:
            http = httplib2.Http(timeout=_saas.TIMEOUT, ca_certs=cert)
            if api_key is None:  # OAuth: the tool's access token
                http = google_auth_httplib2.AuthorizedHttp(creds, http=http)
            endpoint = base + paths.get(api, "/")
            return build(
                api,
                version,
                http=http,
                developerKey=api_key,
                static_discovery=True,
                client_options={"api_endpoint": endpoint},
            )

        return make

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
            f"google-api-{cid}",
            LIBRARY,
            cause,
            kind,
            outcome,
            exc,
            tool,
            arguments=args,
            parameters=PARAMETERS[tool],
        )

    transport = {key: cause for key, _, _, cause in _saas.TRANSPORT}
    with _tls_service(ctx, cert, key) as svc:
        calls = _calls(builder(svc.base), files)
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = calls[call]
            svc.reply(reply)
            yield case(key, cause, kind, outcome, _saas.caught(key, fn), tool, args)
        drive = builder(svc.base)("drive", "v3")
        for key, _call, reply, kind, outcome, cause in _RETRIED:
            svc.reply(reply)
            exc = _saas.caught(key, lambda: drive.files().list(q=_QUERY).execute(num_retries=1))
            yield case(key, cause, kind, outcome, exc, "search_drive_files", {"query": _QUERY})
        for behaviour, call in ((_saas.HANG, "drive_search"), (_saas.RESET, "sheet_write"), (_saas.CLOSE, "gmail_get")):  # fmt: skip
            tool, args, fn = calls[call]
            svc.reply(behaviour)
            yield case(
                f"{behaviour}-{tool}", transport[behaviour], T, UO, _saas.caught(behaviour, fn), tool, args
            )

        # a tool reading public calendars with an API key from its configuration
        svc.reply(_API_KEY_INVALID)
        tool, args, fn = _calls(builder(svc.base, _API_KEY), files)["events_list"]
        yield case("api-key-invalid", "API key not valid", U, None, _saas.caught("api-key", fn), tool, args)

        # a discovery document fetched (not the bundled one) that is not JSON
        svc.reply(
            Reply(200, "<html><head><title>Sign in - Google Accounts</title></head><body></body></html>")
        )
        url = svc.base + "/discovery/v1/apis/{api}/{apiVersion}/rest"
        exc = _saas.caught(
            "discovery-not-json",
            lambda: build(
                "docs",
                "v1",
                http=httplib2.Http(timeout=_saas.TIMEOUT, ca_certs=cert),
                static_discovery=False,
                discoveryServiceUrl=url,
                cache_discovery=False,
            ),
        )
        args = {"api": "docs", "version": "v1", "resource": "documents", "method": "get", "params": {"documentId": "1x2y3z"}}  # fmt: skip
        yield case(
            "discovery-not-json",
            "discovery document read back is not JSON",
            A,
            None,
            exc,
            "call_google_api",
            args,
        )

        # the client's own checks of the model's arguments
        b = builder(svc.base)
        local = [
            ("value-input-option", "valueInputOption not one of the enum values", "sheet_write_option"),
            ("order-by-enum", "orderBy not one of the enum values", "events_order"),
            ("send-file-type", "file to send is plain text, not message/*", "send_file_txt"),
            ("send-file-unknown-type", "file type cannot be told from its name", "send_file_unknown"),
        ]
        for key, cause, call in local:
            tool, args, fn = calls[call]
            yield case(key, cause, F, None, _saas.caught(key, fn), tool, args)
        tool, args, fn = calls["send_file_big"]
        yield case(
            "send-file-too-large", "message over Gmail's 35 MB", U, None, _saas.caught("big", fn), tool, args
        )
        generic = [
            ("unknown-version", "API version that does not exist", {"api": "drive", "version": "v4", "resource": "files", "method": "list", "params": {}},
             lambda: b("drive", "v4")),
            ("unknown-api", "API name that does not exist", {"api": "googledrive", "version": "v3", "resource": "files", "method": "list", "params": {}},
             lambda: b("googledrive", "v3")),
            ("unexpected-parameter", "parameter name not one of the method's", {"api": "drive", "version": "v3", "resource": "files", "method": "get", "params": {"fileID": _FILE}},
             lambda: b("drive", "v3").files().get(fileID=_FILE)),
            ("missing-required-parameter", "required parameter left out", {"api": "gmail", "version": "v1", "resource": "users.messages", "method": "get", "params": {"id": _MSG}},
             lambda: b("gmail", "v1").users().messages().get(id=_MSG)),
        ]  # fmt: skip
        for key, cause, args, fn in generic:
            yield case(key, cause, F, None, _saas.caught(key, fn), "call_google_api", args)
    for key, base in (
        ("refused", _saas.dead_base(ctx).replace("http://", "https://")),
        ("dns", "https://www.unreachable-host.invalid"),
    ):
        tool, args, fn = _calls(builder(base), files)["drive_get"]
        yield case(key, transport[key], T, NE, _saas.caught(key, fn), tool, args)
