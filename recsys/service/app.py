"""The HTTP API and page of ``recsys serve``: a FastAPI application around one loaded model.

FastAPI because the requests' shapes are declared once (pydantic) and give both the checks — a
wrong type, a missing field or malformed JSON is a 422 naming the field — and the OpenAPI schema
at ``/openapi.json``; uvicorn serves it.  The model is loaded once per worker process and only
read; the routes are module-level functions of :data:`router` that read the served model from
``request.app.state`` (:func:`create_app` builds the application around them).

Errors are JSON ``{"detail": …}``: 404 for an unknown user or item (naming it), 422 for a bad
value (naming the field), 413 for a body over ``max_body`` bytes, 403 for a reload not allowed,
400 for a ``Host`` the server does not answer to (a page of another site reaching the server
through DNS rebinding).  Every answer carries the headers of :mod:`recsys.service.headers`.
"""

from __future__ import annotations

import contextlib
import functools
import hmac
import json
import math
from dataclasses import dataclass
from typing import Annotated

import anyio
import numpy as np
import orjson
from fastapi import APIRouter, FastAPI, Header, Query, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr
from starlette.middleware.trustedhost import TrustedHostMiddleware

from .. import __version__
from ..errors import ModelFileError, ParameterError, UnknownIdError
from ..model.explanation import profile_sides
from ..model.people import known_index
from ..present.digest import digest
from .connections import RecycleConnections
from .docs import api_reference
from .headers import LOOPBACK_NAMES, SecurityHeaders
from .limits import BodyLimit
from .slot import STARTERS, ModelSlot, Served

MAX_N = 100  # longest list one request may ask for
MAX_RATINGS = 2_000  # ratings in one new person's request
LOOPBACK = ("127.0.0.1", "::1")
SAFE_INTEGER = 2**53  # ids and ratings beyond ±2⁵³ are refused: JSON readers (a browser's) lose their digits
# headers by which a proxy says whom it forwards for: a request carrying one is not a local one
FORWARDING = ("forwarded", "x-forwarded-for", "x-real-ip")


@dataclass(frozen=True)
class Settings:
    """How one server runs (the same in every worker process)."""

    model: str
    control: str  # the workers' shared reload file (see recsys.service.slot)
    admin_token: str | None = None
    max_body: int = 1_000_000
    threads: int = 2  # reloads and reports computed at once in one worker
    requests_per_connection: int | None = None  # close a kept-alive connection after this many answers
    local: bool = True  # bound to a loopback address: reloads without a token from the same machine
    behind_proxy: bool = False  # --forwarded-allow-ips given: the client address is the proxy's word
    allowed_hosts: tuple[str, ...] | list[str] = LOOPBACK_NAMES  # names the Host header may carry
    docs: bool = True  # GET /docs and /openapi.json


class Json(JSONResponse):
    """JSON written by orjson straight from the library's plain dicts: FastAPI's own conversion
    pass (``jsonable_encoder``) is skipped, and orjson writes a list of ten with its reasons in
    0.013 ms where the standard library took 0.15 (measured); a non-finite number (an uncovered
    score) is written ``null``."""

    def render(self, content) -> bytes:
        return orjson.dumps(content, option=orjson.OPT_SERIALIZE_NUMPY)


# the refusals each route can answer besides FastAPI's 422, for the schema and the docs page
_ANSWER = {
    400: {"description": "a Host the server does not answer to"},
    404: {"description": "an unknown user or item (named)"},
    413: {"description": "a body over the limit"},
    403: {"description": "not allowed (see the route)"},
    408: {"description": "the request did not arrive in time"},
}


def _answers(*codes: int) -> dict:
    return {code: _ANSWER[code] for code in (400, *codes)}


SafeInt = Annotated[StrictInt, Field(ge=-SAFE_INTEGER, le=SAFE_INTEGER)]


class Rating(BaseModel):
    model_config = ConfigDict(extra="forbid")
    item: Annotated[StrictStr, Field(max_length=200)] | SafeInt = Field(
        description="An item id of the model (see GET /items); integers within ±2⁵³."
    )
    rating: Annotated[StrictFloat, Field(allow_inf_nan=False)] | SafeInt | None = Field(
        None,
        description="On the training ratings' scale (see GET /health); required unless the model learnt from "
        "implicit feedback (then not read: every item listed is one the person chose).",
    )


class NewPerson(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ratings: list[Rating] = Field(min_length=1, max_length=MAX_RATINGS)
    n: int = Field(10, ge=1, le=MAX_N, strict=True)


class Reload(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str = Field(
        min_length=1, max_length=4096, pattern=r"^[^\x00]+$", description="A model directory written by `recsys train`."
    )


def create_app(settings: Settings) -> FastAPI:
    """The application serving ``settings.model``: the routes of :data:`router` (and ``/docs``
    when ``settings.docs``), behind the limits and headers of the service, reading the model and
    the settings from ``app.state``."""
    # The answers are computed on the event loop (``async def`` routes that never await): a
    # worker computes one at a time, in arrival order, with no hand-over of the GIL between the
    # loop and a thread pool — which, measured, cost a third of the throughput and most of the
    # tail.  Reloads and report pages, which take longer, run in the thread pool.
    app = FastAPI(
        lifespan=_lifespan,
        # FastAPI's /docs and /redoc pull their scripts from a public CDN: the service draws its own
        docs_url=None,
        redoc_url=None,
        openapi_url="/openapi.json" if settings.docs else None,
        title="recsys",
        version=__version__,
        default_response_class=Json,
        description="Explainable movie recommendations from co-clusters (HBLCoClust): lists with their reasons, "
        "like/dislike predictions with the terms of their score, and lists for people the model has never seen.",
    )
    app.add_middleware(BodyLimit, max_body=settings.max_body)
    if settings.requests_per_connection:
        app.add_middleware(RecycleConnections, max_requests=settings.requests_per_connection)
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(settings.allowed_hosts), www_redirect=False)
    app.add_middleware(SecurityHeaders)  # the outermost: on every answer, refusals included
    app.state.slot = ModelSlot(settings.model, settings.control)
    app.state.settings = settings
    _errors(app)
    app.include_router(router)
    if settings.docs:
        app.add_api_route("/docs", docs, response_class=HTMLResponse, include_in_schema=False)
    return app


@contextlib.asynccontextmanager
async def _lifespan(app: FastAPI):
    # Only reloads and report pages run in threads; they hold the GIL nearly all the time, so
    # more threads than cores would only interleave them.
    anyio.to_thread.current_default_thread_limiter().total_tokens = app.state.settings.threads
    yield


def _served(request: Request) -> Served:
    """The model this request is answered with, taken once (see :class:`ModelSlot`)."""
    return request.app.state.slot.current()


router = APIRouter()


@router.get("/health", tags=["service"], responses=_answers())
async def health(request: Request) -> dict:
    """The model answering (id, commit of the code that trained it, data) and its counts."""
    return Json(_served(request).health())


@router.get("/items", tags=["items"], responses=_answers())
async def items(
    request: Request, q: Annotated[str, Query(max_length=200)] = "", limit: Annotated[int, Query(ge=1, le=MAX_N)] = 20
):
    """Items whose title (or id) contains ``q`` (any case), the most rated first."""
    return Json(_search(_served(request), q, limit))


@router.get("/items/starters", tags=["items"], responses=_answers())
async def starters(request: Request, limit: Annotated[int, Query(ge=1, le=STARTERS)] = 12):
    """Popular items of varied genres, most rated first: what a new person rates first."""
    served = _served(request)
    return Json({"items": [_item(served, i) for i in served.starters[:limit]]})


@router.get("/users/{user}/recommendations", tags=["users"], responses=_answers(404))
async def recommendations(request: Request, user: str, n: Annotated[int, Query(ge=1, le=MAX_N)] = 10) -> dict:
    """The user's ``n`` best unrated items, each with the contributions that make its score;
    ``digest``: the same list as a person reads it (each item's heaviest terms, the rest summed,
    the groups they name once)."""
    served = _served(request)
    recs = served.model.recommend(user, n)
    return Json(
        {
            "user": _known_user(served, user),
            "model": served.model_id,
            "recommendations": recs,
            "digest": digest(recs, feedback=served.model.profiles_.feedback),
        }
    )


@router.get("/users/{user}/items/{item}", tags=["users"], responses=_answers(404))
async def prediction(request: Request, user: str, item: str) -> dict:
    """Like-probability, verdict and the terms of the score of one (user, item)."""
    served = _served(request)
    fp, explained = served.model.profiles_, served.model.predict(user, item, unknown="raise").to_dict()
    ids = {"user": _known_user(served, user), "item": fp.items[known_index(served.model, "item", item)].item()}
    return Json({"model": served.model_id, **explained, **ids})


@router.get("/users/{user}/profile", tags=["users"], responses=_answers(404))
async def profile(request: Request, user: str, limit: Annotated[int, Query(ge=1, le=10_000)] = 50) -> dict:
    """The user's like and dislike profiles and strongest co-clusters: the ``limit`` best
    supported values of each attribute kind and movies of each side, and how many there are
    in all (``counts``)."""
    served = _served(request)
    return Json({"model": served.model_id, **_limited(served.model.explain(user), limit)})


@router.post("/recommendations", tags=["new people"], responses=_answers(413))
async def new_person(request: Request, person: NewPerson) -> dict:
    """The list of a person the model has never seen, from their ratings (no refit); rated
    items are never listed; items the model does not know are returned in ``ignored``;
    ``digest`` as for a known user's list."""
    served = _served(request)
    ratings, ignored = _checked_ratings(served, person)
    if not ratings:
        raise _invalid(("body", "ratings"), "none of the rated items is in the model (see GET /items)")
    recs = served.model.recommend(ratings, person.n)
    feedback = served.model.profiles_.feedback
    return Json(
        {
            "model": served.model_id,
            "ignored": ignored,
            "recommendations": recs,
            "digest": digest(recs, feedback=feedback),
        }
    )


@router.post("/admin/reload", tags=["service"], responses=_answers(403, 413))
def reload(body: Reload, request: Request, authorization: Annotated[str | None, Header()] = None) -> dict:
    """Load another model directory and answer with it; requests in flight finish on the old
    one, and a broken directory is refused (422) with the old model kept.  With an admin token,
    allowed with ``Authorization: Bearer TOKEN``; without one, only from the same machine to a
    server bound to a loopback address and not behind a proxy."""
    slot = request.app.state.slot
    _check_admin(request.app.state.settings, request, authorization)
    try:
        served = slot.reload(body.path)
    except ModelFileError as exc:
        raise _invalid(("body", "path"), f"{exc}; still serving model {slot.current().model_id}") from None
    return Json(served.health())


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
async def page(request: Request) -> str:
    from ..present.html import environment

    served = _served(request)
    lo, hi = _scale(served)
    return (
        environment()
        .get_template("service.html.j2")
        .render(
            version=__version__,
            model_id=served.model_id,
            n_items=int(served.model.profiles_.n_items),
            low=lo,
            high=hi,
            implicit=served.model.profiles_.implicit,
            max_n=MAX_N,
            docs=request.app.state.settings.docs,
        )
    )


@router.get("/page.js", include_in_schema=False)
async def page_script() -> Response:
    # a file, not an inline script: the pages' Content-Security-Policy runs no inline script
    return Response(_page_script(), media_type="text/javascript; charset=utf-8")


async def docs(request: Request) -> str:
    """The API's reference page (registered only when the settings ask for docs)."""
    from ..present.html import environment

    return environment().get_template("api.html.j2").render(version=__version__, **api_reference(request.app.openapi()))


@router.get("/users/{user}/report", response_class=HTMLResponse, tags=["users"], responses=_answers(404))
def report(request: Request, user: str) -> str:
    """The user's HTML report (profile, co-clusters, list with reasons, evidence chart)."""
    from ..present.report import render_user

    served = _served(request)
    return render_user(served.model, user, model_path=f"model {served.model_id}")


def _errors(app: FastAPI) -> None:
    @app.exception_handler(UnknownIdError)
    def unknown(request: Request, exc: UnknownIdError):
        return Json({"detail": str(exc)}, status_code=404)

    @app.exception_handler(ParameterError)
    def parameter(request: Request, exc: ParameterError):
        return Json({"detail": str(exc)}, status_code=422)

    @app.exception_handler(Forbidden)
    def forbidden(request: Request, exc: Forbidden):
        return Json({"detail": str(exc)}, status_code=403)

    @app.exception_handler(RequestValidationError)
    def invalid(request: Request, exc: RequestValidationError):
        # FastAPI's shape, without echoing the input back (it may be large, and is the client's own)
        detail = [
            {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")} for e in exc.errors()
        ]
        return Json({"detail": jsonable_encoder(detail)}, status_code=422)


class Forbidden(Exception):
    """A request not allowed to do what it asks."""


def _invalid(loc: tuple, message: str) -> RequestValidationError:
    return RequestValidationError([{"loc": loc, "msg": message, "type": "value_error"}])


def _known_user(served: Served, user: str):
    return served.model.profiles_.users[known_index(served.model, "user", user)].item()


def _limited(profile: dict, limit: int) -> dict:
    """A profile (:func:`recsys.model.explanation.explain_profile`) with at most ``limit`` values per
    attribute kind and movies per side (the best supported first), and the full counts."""
    out, counts = dict(profile), {}
    for side in profile_sides(profile):
        kinds = profile[side]
        counts[side] = {kind: len(values) for kind, values in kinds.items()}
        counts[side]["movies"] = len(profile[f"{side}_movies"])
        out[side] = {kind: values[:limit] for kind, values in kinds.items()}
        out[f"{side}_movies"] = profile[f"{side}_movies"][:limit]
    out["counts"] = counts
    return out


def _scale(served: Served) -> tuple[float, float]:
    values = served.model.profiles_.ratings.values
    return float(values.min()), float(values.max())


def _checked_ratings(served: Served, person: NewPerson) -> tuple[dict, list]:
    """``{item: rating}`` of a request's items the model knows (by their ids in the model) and the
    ids it does not know; each rating finite and on the model's scale, no item twice however its id
    is written (``42`` and ``"042"`` are one item)."""
    lo, hi = _scale(served)
    fp = served.model.profiles_
    index = fp.item_index([r.item for r in person.ratings])
    out, ignored, first = {}, [], {}
    for k, (r, i) in enumerate(zip(person.ratings, index.tolist())):
        if r.rating is None and not fp.implicit:
            raise _invalid(("body", "ratings", k, "rating"), "rating is required: this model learnt from ratings")
        # implicit feedback: the item was chosen, once (no value read: the model reads a mapping's values as counts)
        value = 1.0 if fp.implicit else float(r.rating)
        if not fp.implicit and (not math.isfinite(value) or not lo <= value <= hi):
            raise _invalid(
                ("body", "ratings", k, "rating"), f"rating must be between {lo:g} and {hi:g}, got {r.rating!r}"
            )
        key = i if i >= 0 else str(r.item)
        if key in first:
            raise _invalid(
                ("body", "ratings", k, "item"), f"item {r.item!r} is rated twice (ratings {first[key]} and {k})"
            )
        first[key] = k
        if i >= 0:
            out[fp.items[i].item()] = value
        else:
            ignored.append(r.item)
    return out, ignored


def _search(served: Served, q: str, limit: int) -> dict:
    needle = q.strip().lower()
    hits = np.array([i for i, t in enumerate(served.titles_lower) if needle in t], dtype=np.int64)
    hits = hits[np.lexsort((hits, -served.popularity[hits]))][:limit]
    return {"query": q, "items": [_item(served, i) for i in hits]}


def _item(served: Served, i) -> dict:
    fp = served.model.profiles_
    return {"item": fp.items[i].item(), "name": fp.item_name(int(i)), "ratings": int(served.popularity[i])}


def _check_admin(settings: Settings, request: Request, authorization: str | None) -> None:
    """A reload is allowed with the admin token, or — a server without one — from the same machine
    only: the server bound to a loopback address, no proxy in front of it (a proxy on the same host
    makes every request come from 127.0.0.1), the request from a loopback address and carrying no
    forwarding header."""
    if settings.admin_token:
        given = (authorization or "").removeprefix("Bearer ").strip()
        if not hmac.compare_digest(given.encode(), settings.admin_token.encode()):
            raise Forbidden("reloading needs the admin token: Authorization: Bearer TOKEN")
        return
    if not settings.local or settings.behind_proxy:
        where = "bound to a network address" if not settings.local else "behind a proxy (--forwarded-allow-ips)"
        raise Forbidden(f"reloading a server {where} needs an admin token: start it with --admin-token")
    host = request.client.host if request.client else None
    if host not in LOOPBACK:
        raise Forbidden(f"reloading is allowed from the loopback address only (this request came from {host})")
    if forwarded := [name for name in FORWARDING if name in request.headers]:
        raise Forbidden(f"reloading is allowed from this machine only (the request was forwarded: {forwarded[0]})")


def from_environment() -> FastAPI:
    """The app of the settings in ``RECSYS_SERVE`` (JSON): how each of several uvicorn worker
    processes builds its own."""
    import os

    return create_app(Settings(**json.loads(os.environ["RECSYS_SERVE"])))


@functools.cache
def _page_script() -> str:
    from importlib.resources import files

    return files("recsys.present").joinpath("templates", "service.js").read_text(encoding="utf-8")
