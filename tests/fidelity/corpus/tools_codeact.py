"""Host tools a CodeAct program calls: a product catalogue, currency rates, weather, document search, a user
directory, calendars, units, paginated orders and shipping quotes. Deterministic stand-ins: each answer is a
pure function of the arguments (no clock, no hash(), fresh copies of the data every call), and bad input
raises ValueError / KeyError the way real APIs' client libraries do, so the program has to catch and retry.
"""

import copy
import re
import zlib

TOOLS = [
    "catalog_get_product",
    "catalog_search_products",
    "fx_convert_currency",
    "fx_list_rates",
    "weather_by_city_date",
    "docs_search_ranked",
    "docs_fetch_document",
    "directory_find_user",
    "directory_list_team",
    "calendar_list_events",
    "units_convert",
    "orders_fetch_page",
    "shipping_quote_cost",
]


def _noise(*parts) -> int:
    """A stable pseudo-random number from the arguments (crc32, the same in every Python)."""
    return zlib.crc32("|".join(str(p) for p in parts).encode("utf-8"))


# --- product catalogue --------------------------------------------------------------------------------------

_CATEGORIES = ["audio", "kitchen", "office", "outdoor", "toys"]
_ADJECTIVES = ["Compact", "Deluxe", "Eco", "Pro", "Smart", "Classic", "Ultra", "Mini"]
_NOUNS = {
    "audio": ["Headphones", "Speaker", "Soundbar", "Earbuds"],
    "kitchen": ["Kettle", "Blender", "Toaster", "Grinder"],
    "office": ["Stapler", "Desk Lamp", "Monitor Arm", "Notebook"],
    "outdoor": ["Tent", "Lantern", "Backpack", "Hammock"],
    "toys": ["Puzzle", "Kite", "Robot Kit", "Train Set"],
}
_CURRENCIES = ["USD", "USD", "USD", "EUR", "GBP", "JPY"]


def _build_catalog() -> dict:
    products = {}
    for i in range(60):
        n = _noise("product", i)
        category = _CATEGORIES[i % len(_CATEGORIES)]
        currency = _CURRENCIES[n % len(_CURRENCIES)]
        base = 5 + (n >> 8) % 39500 / 100
        price = round(base * 150) if currency == "JPY" else round(base, 2)
        sku = f"SKU-{1001 + i}"
        products[sku] = {
            "sku": sku,
            "name": f"{_ADJECTIVES[(n >> 4) % len(_ADJECTIVES)]} {_NOUNS[category][(n >> 12) % 4]}",
            "category": category,
            "price": price,
            "currency": currency,
            "stock": (n >> 16) % 140 if (n >> 3) % 7 else 0,
            "rating": round(2.5 + (n >> 20) % 26 / 10, 1),
            "weight_lb": round(0.3 + (n >> 11) % 240 / 10, 1),
            "tags": sorted({_CATEGORIES[(i + k) % 5] for k in range((n >> 2) % 3)} | {"sale"} if n % 5 == 0 else
                           {_CATEGORIES[(i + k) % 5] for k in range((n >> 2) % 3)}),
        }
    return products


_CATALOG = _build_catalog()
_SKU = re.compile(r"^SKU-\d{4}$")


def catalog_get_product(sku: str) -> dict:
    """One product by SKU (``SKU-1001`` ... ``SKU-1060``)."""
    if not isinstance(sku, str) or not _SKU.match(sku):
        raise ValueError(f"invalid sku format {sku!r}, expected 'SKU-' followed by 4 digits")
    if sku not in _CATALOG:
        raise KeyError(f"unknown sku: {sku}")
    return copy.deepcopy(_CATALOG[sku])


def catalog_search_products(query: str, category: str = "", max_results: int = 10) -> list:
    """Products whose name or tags contain any word of the query, best matches first, with a score."""
    if max_results < 1 or max_results > 25:
        raise ValueError("max_results must be between 1 and 25")
    if category and category not in _CATEGORIES:
        raise ValueError(f"unknown category {category!r}; known: {', '.join(_CATEGORIES)}")
    words = [w for w in re.findall(r"[a-z]+", query.lower()) if len(w) > 1]
    hits = []
    for product in _CATALOG.values():
        if category and product["category"] != category:
            continue
        haystack = (product["name"] + " " + " ".join(product["tags"]) + " " + product["category"]).lower()
        matched = sum(1 for w in words if w in haystack)
        if matched:
            score = round(matched / len(words) * 0.8 + product["rating"] / 25, 3)
            hits.append({"sku": product["sku"], "name": product["name"], "score": score, "price": product["price"],
                         "currency": product["currency"]})
    hits.sort(key=lambda h: (-h["score"], h["sku"]))
    return hits[:max_results]


# --- currencies ---------------------------------------------------------------------------------------------

_RATES_PER_USD = {"USD": 1.0, "EUR": 0.9215, "GBP": 0.7893, "JPY": 151.37, "CHF": 0.9032, "CAD": 1.3621,
                  "AUD": 1.5274, "INR": 83.41, "BRL": 5.0712, "MXN": 16.842}


def fx_list_rates(base: str = "USD") -> dict:
    """Exchange rates from ``base`` to every known currency (units of the currency per unit of base)."""
    if base not in _RATES_PER_USD:
        raise KeyError(f"unknown base currency {base}")
    per = _RATES_PER_USD[base]
    return {code: round(rate / per, 6) for code, rate in sorted(_RATES_PER_USD.items())}


def fx_convert_currency(amount: float, from_currency: str, to_currency: str) -> dict:
    """Convert an amount; codes must be 3 upper-case letters that the service knows."""
    for code in (from_currency, to_currency):
        if not re.fullmatch(r"[A-Z]{3}", code or ""):
            raise ValueError(f"currency code must be 3 upper-case letters, got {code!r}")
        if code not in _RATES_PER_USD:
            raise KeyError(f"unsupported currency: {code}")
    if amount < 0:
        raise ValueError("amount must be non-negative")
    rate = _RATES_PER_USD[to_currency] / _RATES_PER_USD[from_currency]
    return {"from": from_currency, "to": to_currency, "rate": round(rate, 6), "amount": round(amount * rate, 2)}


# --- weather ------------------------------------------------------------------------------------------------

_CLIMATE = {  # mean high in January and in July (deg C), wetness 0..9
    "lisbon": (15, 28, 3), "oslo": (-1, 22, 5), "tokyo": (10, 31, 6), "nairobi": (26, 23, 4),
    "toronto": (-3, 27, 5), "sydney": (26, 17, 5), "madrid": (11, 32, 2), "reykjavik": (2, 14, 8),
    "mumbai": (31, 30, 9), "denver": (7, 31, 2), "cape town": (26, 18, 3), "buenos aires": (30, 15, 4),
}
_CONDITIONS = ["sunny", "partly cloudy", "cloudy", "light rain", "rain", "thunderstorm", "fog", "windy"]


def weather_by_city_date(city: str, date: str) -> dict:
    """A day's forecast for a city: ``date`` is ISO ``YYYY-MM-DD``; unknown cities raise KeyError."""
    match = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", date)
    if not match:
        raise ValueError(f"date must be in YYYY-MM-DD format, got {date!r}")
    month = int(match.group(2))
    if not 1 <= month <= 12 or not 1 <= int(match.group(3)) <= 31:
        raise ValueError(f"invalid date {date!r}")
    key = city.strip().lower()
    if key not in _CLIMATE:
        raise KeyError(f"no weather station for city {city!r}")
    jan, jul, wet = _CLIMATE[key]
    season = 1 - abs(month - 7) / 6
    n = _noise("weather", key, date)
    high = round(jan + (jul - jan) * season + (n % 70) / 10 - 3.5, 1)
    low = round(high - 5 - (n >> 7) % 60 / 10, 1)
    rainy = (n >> 13) % 10 < wet
    condition = _CONDITIONS[3 + (n >> 17) % 3] if rainy else _CONDITIONS[[0, 1, 2, 6, 7][(n >> 17) % 5]]
    precip = round((n >> 21) % 250 / 10, 1) if rainy else 0.0
    return {"city": city.strip().title(), "date": date, "high_c": high, "low_c": low, "condition": condition,
            "precip_mm": precip, "humidity": 35 + (n >> 9) % 60}


# --- document search ----------------------------------------------------------------------------------------

_DOCS = [
    ("KB-101", "Resetting a forgotten password", "Users who forget their password can reset it from the login page. The reset link expires after 30 minutes. Administrators can force a reset from the admin console under Users > Security."),
    ("KB-102", "Configuring single sign-on (SSO)", "SSO supports SAML 2.0 and OpenID Connect. Upload the identity provider metadata, map the email attribute and enable just-in-time provisioning. Password login can be disabled once SSO works."),
    ("KB-103", "Two-factor authentication setup", "Two-factor authentication (2FA) uses TOTP apps or hardware keys. Admins can require 2FA for all users. Recovery codes should be stored safely; each code works once."),
    ("KB-104", "API rate limits", "The public API allows 600 requests per minute per token. Exceeding the limit returns HTTP 429 with a Retry-After header. Batch endpoints count as one request per 100 items."),
    ("KB-105", "Rotating API tokens", "API tokens should be rotated every 90 days. Create the new token, deploy it, then revoke the old one. Revoked tokens fail with HTTP 401 immediately."),
    ("KB-106", "Exporting data to CSV", "Any report can be exported to CSV from the Export menu. Exports over 1 million rows are split into several files and emailed as a zip archive when ready."),
    ("KB-107", "Billing cycles and invoices", "Invoices are issued on the first day of each billing cycle. Annual plans are billed upfront with a 15% discount. Invoices can be downloaded as PDF from Billing > History."),
    ("KB-108", "Changing your subscription plan", "Upgrades take effect immediately and are prorated. Downgrades apply at the end of the current billing cycle. Seats above the new plan's limit must be removed first."),
    ("KB-109", "Refund policy", "Refunds are available within 30 days of purchase for annual plans. Monthly plans are not refunded but can be cancelled at any time. Refunds go back to the original payment method."),
    ("KB-110", "Webhook delivery and retries", "Webhooks are retried with exponential backoff for up to 24 hours. Each delivery carries a signature header; verify it with your signing secret. Failed deliveries appear in the webhook log."),
    ("KB-111", "Database connection pool tuning", "Raise the pool size when requests wait for connections; keep it under the database's max_connections. Idle connections are closed after 10 minutes. Monitor pool wait time in the metrics dashboard."),
    ("KB-112", "Handling HTTP 500 errors from the API", "A 500 error means an unexpected server failure. Retry idempotent requests with backoff. If errors persist for more than 5 minutes, check the status page and open a support ticket with the request id."),
    ("KB-113", "Cache invalidation strategy", "The cache layer stores responses for 5 minutes. Writes invalidate affected keys. A full cache flush can cause a latency spike while the cache warms up; prefer targeted invalidation."),
    ("KB-114", "Investigating high latency", "High latency usually comes from slow database queries, cache misses or saturated workers. Compare p50 and p95 latency per service and check the slow query log first."),
    ("KB-115", "Worker queue backlog", "When the worker queue backlog grows, scale workers horizontally. Long-running jobs should be split. Dead-letter queues keep jobs that failed five times."),
    ("KB-116", "Auth service outage runbook", "If the auth service fails, logins and token refreshes fail with 500 errors. Fail over to the standby region, then check the identity provider status and certificate expiry."),
    ("KB-117", "Data retention and deletion", "Deleted records are kept for 30 days in a recoverable state, then purged. Audit logs are retained for one year. Customers can request earlier deletion through support."),
    ("KB-118", "Inviting team members", "Admins invite members by email from Settings > Team. Invitations expire after 7 days. Members can be assigned the roles viewer, editor or admin."),
    ("KB-119", "Role based access control", "Roles grant permissions on projects. Custom roles are available on the Enterprise plan. Permission changes apply at the next login or token refresh."),
    ("KB-120", "Mobile app offline mode", "The mobile app caches recent projects for offline use. Changes made offline sync when the device reconnects; conflicts are resolved by last write wins."),
    ("KB-121", "Timezone settings for reports", "Reports use the workspace timezone unless a user overrides it in their profile. Scheduled exports run at midnight in the workspace timezone."),
    ("KB-122", "Importing data from spreadsheets", "CSV and XLSX files up to 50 MB can be imported. The first row must contain headers. Dates should be ISO formatted; other formats are guessed and may be wrong."),
]


def _tokens(text: str) -> list:
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2]


def docs_search_ranked(query: str, top_k: int = 5) -> list:
    """Knowledge-base search: a list of {doc_id, title, score, snippet}, best first."""
    if not query or not query.strip():
        raise ValueError("query must not be empty")
    if top_k > 10:
        raise ValueError(f"top_k must be at most 10, got {top_k}")
    words = set(_tokens(query))
    hits = []
    for doc_id, title, body in _DOCS:
        title_words, body_words = _tokens(title), _tokens(body)
        score = sum(2.0 for w in words if w in title_words) + sum(body_words.count(w) * 0.5 for w in words)
        if score:
            score = round(score / (1 + len(body_words) / 60), 4)
            hits.append({"doc_id": doc_id, "title": title, "score": score, "snippet": body[:80] + "..."})
    hits.sort(key=lambda h: (-h["score"], h["doc_id"]))
    return hits[:top_k]


def docs_fetch_document(doc_id: str) -> dict:
    """The full text of one knowledge-base article."""
    for known, title, body in _DOCS:
        if known == doc_id:
            return {"doc_id": known, "title": title, "body": body, "words": len(body.split())}
    raise KeyError(f"document not found: {doc_id}")


# --- user directory and calendars ---------------------------------------------------------------------------

_CODEACT_PEOPLE = [
    ("asmith", "Alice Smith", "platform", "Berlin", 1, "staff engineer"),
    ("bjones", "Bob Jones", "platform", "London", 0, "engineer"),
    ("cwu", "Chen Wu", "platform", "Singapore", 8, "engineering manager"),
    ("dlopez", "Diana Lopez", "data", "Madrid", 1, "data scientist"),
    ("ekim", "Eun Kim", "data", "Seoul", 9, "analyst"),
    ("fnguyen", "Fiona Nguyen", "data", "Toronto", -5, "data engineer"),
    ("gpatel", "Gaurav Patel", "support", "Mumbai", 5.5, "support lead"),
    ("hmueller", "Hanna Mueller", "support", "Berlin", 1, "support engineer"),
    ("iokafor", "Ifeanyi Okafor", "support", "Lagos", 1, "support engineer"),
    ("jsato", "Jun Sato", "design", "Tokyo", 9, "designer"),
    ("kbrown", "Kara Brown", "design", "New York", -5, "design lead"),
    ("lrossi", "Luca Rossi", "platform", "Rome", 1, "engineer"),
]


def _person(row) -> dict:
    username, name, team, city, offset, title = row
    return {"username": username, "name": name, "email": f"{username}@example.com", "team": team, "city": city,
            "utc_offset_hours": offset, "title": title, "manager": "cwu" if team == "platform" and username != "cwu" else None}


def directory_find_user(query: str) -> dict:
    """A user by username or e-mail; several matches or none raise."""
    key = query.strip().lower()
    if not key:
        raise ValueError("query must not be empty")
    found = [row for row in _CODEACT_PEOPLE if row[0] == key or f"{row[0]}@example.com" == key]
    if not found:
        found = [row for row in _CODEACT_PEOPLE if key in row[1].lower()]
        if len(found) > 1:
            raise ValueError(f"ambiguous query {query!r}: matches {', '.join(r[0] for r in found)}")
    if not found:
        raise KeyError(f"no user matching {query!r}")
    return _person(found[0])


def directory_list_team(team: str) -> list:
    """The usernames in a team, sorted."""
    members = sorted(row[0] for row in _CODEACT_PEOPLE if row[2] == team)
    if not members:
        raise KeyError(f"unknown team {team!r}")
    return members


_EVENT_TITLES = ["Standup", "1:1", "Design review", "Planning", "Customer call", "Focus time", "Interview", "Retro"]


def calendar_list_events(username: str, start_date: str, end_date: str) -> list:
    """A user's events between two ISO dates (inclusive), times in UTC as ``YYYY-MM-DDTHH:MM``."""
    if username not in {row[0] for row in _CODEACT_PEOPLE}:
        raise KeyError(f"unknown user {username!r}")
    pattern = r"\d{4}-\d{2}-\d{2}"
    if not re.fullmatch(pattern, start_date) or not re.fullmatch(pattern, end_date):
        raise ValueError("dates must be YYYY-MM-DD")
    if end_date < start_date:
        raise ValueError(f"end_date {end_date} is before start_date {start_date}")
    y, m, d = (int(p) for p in start_date.split("-"))
    ey, em, ed = (int(p) for p in end_date.split("-"))
    events = []
    days = 0
    while (y, m, d) <= (ey, em, ed):
        days += 1
        if days > 31:
            raise ValueError("range too long: at most 31 days per call")
        day = f"{y:04d}-{m:02d}-{d:02d}"
        n = _noise("calendar", username, day)
        weekday = (_days_from_civil(y, m, d) + 3) % 7  # 0 = Monday
        if weekday < 5:
            for k in range(n % 4):
                start_minutes = 7 * 60 + ((n >> (4 + 5 * k)) % 20) * 30
                length = [30, 30, 45, 60, 90][(n >> (3 + 3 * k)) % 5]
                title = _EVENT_TITLES[(n >> (8 + 2 * k)) % len(_EVENT_TITLES)]
                end_minutes = start_minutes + length
                events.append({
                    "title": title,
                    "start": f"{day}T{start_minutes // 60:02d}:{start_minutes % 60:02d}",
                    "end": f"{day}T{end_minutes // 60:02d}:{end_minutes % 60:02d}",
                    "attendees": sorted({username, _CODEACT_PEOPLE[(n >> k) % len(_CODEACT_PEOPLE)][0]}),
                })
        y, m, d = _next_day(y, m, d)
    events.sort(key=lambda e: (e["start"], e["title"]))
    return events


def _days_from_civil(y, m, d):
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _next_day(y, m, d):
    lengths = [31, 29 if y % 4 == 0 and (y % 100 or y % 400 == 0) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    if d < lengths[m - 1]:
        return y, m, d + 1
    return (y, m + 1, 1) if m < 12 else (y + 1, 1, 1)


# --- units --------------------------------------------------------------------------------------------------

_UNITS = {
    "mass": {"g": 1.0, "kg": 1000.0, "oz": 28.349523125, "lb": 453.59237, "mg": 0.001},
    "length": {"mm": 0.001, "cm": 0.01, "m": 1.0, "km": 1000.0, "in": 0.0254, "ft": 0.3048, "mi": 1609.344},
    "volume": {"ml": 1.0, "l": 1000.0, "tsp": 4.92892, "tbsp": 14.7868, "cup": 236.588, "floz": 29.5735,
               "gal": 3785.41},
}


def units_convert(value: float, from_unit: str, to_unit: str) -> float:
    """Convert between units of one dimension (mass, length, volume; temperatures C/F/K)."""
    temps = {"C", "F", "K"}
    if from_unit in temps or to_unit in temps:
        if not (from_unit in temps and to_unit in temps):
            raise ValueError(f"cannot convert {from_unit} to {to_unit}")
        celsius = {"C": value, "F": (value - 32) * 5 / 9, "K": value - 273.15}[from_unit]
        return round({"C": celsius, "F": celsius * 9 / 5 + 32, "K": celsius + 273.15}[to_unit], 6)
    for dimension, table in _UNITS.items():
        if from_unit in table and to_unit in table:
            return round(value * table[from_unit] / table[to_unit], 6)
    known = sorted(u for table in _UNITS.values() for u in table)
    for unit in (from_unit, to_unit):
        if unit not in known:
            raise KeyError(f"unknown unit {unit!r}")
    raise ValueError(f"cannot convert {from_unit} to {to_unit}: different dimensions")


# --- paginated orders API -----------------------------------------------------------------------------------

_ORDER_COUNT = 437
_CODEACT_CUSTOMERS = ["acme", "globex", "initech", "umbrella", "hooli", "stark", "wayne", "wonka", "tyrell", "cyberdyne"]


def _order(i: int) -> dict:
    n = _noise("order", i)
    sku = f"SKU-{1001 + n % 60}"
    qty = 1 + (n >> 6) % 9
    product = _CATALOG[sku]
    status = ["paid", "paid", "paid", "paid", "refunded", "pending", "cancelled"][(n >> 10) % 7]
    month = 1 + i * 12 // _ORDER_COUNT
    return {
        "order_id": f"ORD-{50000 + i}",
        "customer": _CODEACT_CUSTOMERS[(n >> 14) % len(_CODEACT_CUSTOMERS)],
        "created": f"2024-{month:02d}-{1 + (n >> 18) % 28:02d}T{(n >> 23) % 24:02d}:{(n >> 3) % 60:02d}:00Z",
        "status": status,
        "lines": [{"sku": sku, "qty": qty, "unit_price": product["price"], "currency": product["currency"]}]
        + ([{"sku": f"SKU-{1001 + (n >> 5) % 60}", "qty": 1, "unit_price": _CATALOG[f"SKU-{1001 + (n >> 5) % 60}"]["price"],
             "currency": _CATALOG[f"SKU-{1001 + (n >> 5) % 60}"]["currency"]}] if n % 3 == 0 else []),
        "coupon": ["", "", "", "SPRING10", "VIP20", ""][(n >> 27) % 6] or None,
    }


def orders_fetch_page(page: int = 1, page_size: int = 50, status: str = "") -> dict:
    """One page of orders: {"items": [...], "page": n, "next_page": n+1 or None, "total": count}."""
    if page_size > 100:
        raise ValueError(f"page_size must be <= 100 (got {page_size})")
    if page < 1:
        raise ValueError("page numbers start at 1")
    everything = [_order(i) for i in range(_ORDER_COUNT)]
    if status:
        everything = [o for o in everything if o["status"] == status]
    start = (page - 1) * page_size
    items = everything[start:start + page_size]
    more = start + page_size < len(everything)
    return {"items": items, "page": page, "next_page": page + 1 if more else None, "total": len(everything)}


# --- shipping -----------------------------------------------------------------------------------------------

_ZONES = {"US": 1, "CA": 1, "MX": 2, "GB": 2, "DE": 2, "FR": 2, "ES": 2, "JP": 3, "AU": 3, "BR": 3, "IN": 3}


def shipping_quote_cost(weight_kg: float, country: str, service: str = "standard") -> dict:
    """A shipping quote in USD: weight in kg (max 30), ISO country code, service standard/express."""
    if service not in ("standard", "express"):
        raise ValueError(f"unknown service {service!r}; use 'standard' or 'express'")
    if weight_kg <= 0 or weight_kg > 30:
        raise ValueError(f"weight_kg must be in (0, 30], got {weight_kg}")
    if country not in _ZONES:
        raise KeyError(f"no shipping to {country!r}")
    zone = _ZONES[country]
    cost = 4.5 + zone * 3.25 + weight_kg * (1.1 + zone * 0.4)
    days = {1: 3, 2: 6, 3: 9}[zone]
    if service == "express":
        cost, days = cost * 1.8, max(1, days // 3)
    return {"country": country, "service": service, "cost_usd": round(cost, 2), "days": days, "zone": zone}


# --- data for variables -------------------------------------------------------------------------------------


def codeact_tickets(count: int, seed: int = 21) -> list:
    """Support tickets as JSON-like dicts: opened/closed times, assignees, free text with odd spacing."""
    import random

    rng = random.Random(seed)
    subjects = ["Cannot log in", "Invoice wrong", "API returns 500", "Export stuck", "SSO broken",
                "Refund request", "Slow dashboard", "Webhook not firing", "2FA lost phone", "Rate limit hit"]
    assignees = [row[0] for row in _CODEACT_PEOPLE if row[2] == "support"] + ["", "asmith", "unknown_user"]
    found = []
    for i in range(count):
        month, day, hour = rng.randint(1, 6), rng.randint(1, 28), rng.randint(0, 23)
        opened = f"2024-{month:02d}-{day:02d} {hour:02d}:{rng.randint(0, 59):02d}"
        ticket = {
            "id": f"T-{10000 + i}",
            "subject": rng.choice(subjects) + rng.choice(["", "", " ", "!!", " (urgent)"]),
            "priority": rng.choice(["low", "normal", "normal", "high", "urgent", "High", " normal"]),
            "assignee": rng.choice(assignees),
            "opened": opened,
            "customer": rng.choice(_CODEACT_CUSTOMERS),
            "body": " ".join(rng.choice(["please", "help", "since", "yesterday", "error", "again", "urgent",
                                         "customer", "blocked", "thanks"]) for _ in range(rng.randint(5, 40))),
        }
        if rng.random() < 0.7:
            hours = rng.randint(1, 120)
            close_day = day + hours // 24
            close_hour = hour + hours % 24
            close_day += close_hour // 24
            ticket["closed"] = f"2024-{month:02d}-{min(close_day, 28):02d} {close_hour % 24:02d}:{rng.randint(0, 59):02d}"
        found.append(ticket)
    return found
