"""Request bodies are parsed here, with limits, before any schema sees them.

Python's json module accepts what no schema should have to think about: NaN and Infinity (and 1e400, which it
reads as infinity), integers of thousands of digits (whose conversion raises ValueError past 4300 digits), nesting
deep enough to raise RecursionError, and escapes of lone surrogates ("\\ud800"), which make a str that cannot be
encoded to UTF-8. Each of these is a 400 naming what is wrong, never a 5xx. webargs parses bodies itself (not
through Flask's JSON provider), so the blueprints use BodyParser, which parses with `loads` below.
"""

from __future__ import annotations

import json
import math
from typing import Any, NoReturn

from flask import Request
from flask_smorest import Blueprint as SmorestBlueprint
from webargs import core
from webargs.flaskparser import FlaskParser, is_json_request
from werkzeug.exceptions import BadRequest

# The deepest body the API takes is 5 levels (a slice's policies -> transcoder -> params); 16 leaves room.
MAX_DEPTH = 16
# Every integer the API takes fits in 64 bits (19 digits); anything longer is refused before conversion.
MAX_INT_DIGITS = 20


class BodyError(ValueError):
    """The body is JSON, but not JSON the API accepts (the message says why)."""


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise BodyError(f"an integer of {digits} digits: at most {MAX_INT_DIGITS}")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BodyError(f"number {text[:40]} is not finite: numbers must be finite")
    return value


def _parse_constant(name: str) -> NoReturn:
    raise BodyError(f"{name} is not JSON: numbers must be finite")


def _check_text(text: str) -> None:
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise BodyError("a string holds a lone surrogate (an unpaired \\ud800-\\udfff escape): not Unicode "
                            "text") from exc


def check_document(doc: Any) -> None:
    """Depth and strings of a parsed document, without recursion (the document may be as deep as the parser
    allowed)."""
    stack: list[tuple[Any, int]] = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            _check_text(value)
            continue
        if not isinstance(value, dict | list):
            continue
        if depth > MAX_DEPTH:
            raise BodyError(f"the document is nested more than {MAX_DEPTH} levels deep")
        if isinstance(value, dict):
            for key, item in value.items():
                _check_text(key)
                stack.append((item, depth + 1))
        else:
            stack.extend((item, depth + 1) for item in value)


def loads(text: str | bytes) -> Any:
    """json.loads with the API's limits; raises json.JSONDecodeError (not JSON) or BodyError (JSON refused)."""
    try:
        doc = json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)
    except RecursionError as exc:
        # The C parser gave up on the nesting before our own check could see it; the check is what we report.
        raise BodyError(f"the document is nested more than {MAX_DEPTH} levels deep") from exc
    check_document(doc)
    return doc


class BodyParser(FlaskParser):
    """webargs' Flask parser, parsing JSON bodies with `loads` (a refused body is a 400 with the reason)."""

    def _raw_load_json(self, req: Request) -> Any:
        if not is_json_request(req):
            return core.missing
        data = req.get_data(cache=True)
        try:
            return loads(data.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise json.JSONDecodeError(f"Bytes decoding error : {exc.reason}", doc=str(exc.object),
                                       pos=exc.start) from exc
        except BodyError as exc:
            raise BadRequest(f"the body is not acceptable JSON: {exc}") from exc


class Blueprint(SmorestBlueprint):
    """flask-smorest's Blueprint with BodyParser for its @arguments."""

    ARGUMENTS_PARSER = BodyParser()
