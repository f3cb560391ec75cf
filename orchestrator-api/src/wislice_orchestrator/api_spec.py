"""The OpenAPI document's error responses as the service sends them (errors.py): application/problem+json, and on
every operation the errors any request can meet before its view runs (guards.py, json_body.py).

Their names and descriptions are ours. flask-smorest names a status's response after http.HTTPStatus(code).name and
describes it with its phrase, and Python 3.13 renamed some (413 REQUEST_ENTITY_TOO_LARGE became CONTENT_TOO_LARGE,
422 UNPROCESSABLE_ENTITY became UNPROCESSABLE_CONTENT): the generated document, and the checked-in openapi.json
compared with it, would depend on the interpreter that made it."""

from __future__ import annotations

from typing import Any, NamedTuple

from apispec import BasePlugin
from flask_smorest import Api
from flask_smorest.utils import prepare_response

from .errors import PROBLEM
from .schemas import ProblemSchema

METHODS = ("get", "put", "post", "patch", "delete")


class ErrorResponse(NamedTuple):
    name: str  # the component's name in #/components/responses
    description: str


# Every error response an operation documents by reference. A status missing here stops the document from being
# built (ErrorResponsesPlugin), rather than falling back to a name of the interpreter's.
ERROR_RESPONSES: dict[int, ErrorResponse] = {
    400: ErrorResponse("BAD_REQUEST", "The request cannot be read: a body that is not JSON the API accepts (NaN, "
                                      "Infinity, over-long integers, deep nesting, lone surrogates) or a bad header"),
    401: ErrorResponse("UNAUTHORIZED", "No valid bearer token"),
    413: ErrorResponse("BODY_TOO_LARGE", "The request body is larger than the service takes "
                                         "(WISLICE_MAX_CONTENT_LENGTH)"),
    422: ErrorResponse("VALIDATION_ERROR", "The request does not match the schema; errors lists each field at fault"),
}
DEFAULT_ERROR = ErrorResponse(Api.DEFAULT_ERROR_RESPONSE_NAME, "Any other error")


class ErrorResponsesPlugin(BasePlugin):
    """Every operation is secured: it documents its 401. One with a body also documents 400 (the body is not JSON
    the API accepts) and 413 (the body is too large). A response given by name (flask-smorest names the 422 of a
    request schema after http.HTTPStatus) is named as in ERROR_RESPONSES."""

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None,
                         **kwargs: Any) -> None:
        for method, operation in (operations or {}).items():
            if method not in METHODS:
                continue
            responses: dict[str, Any] = {}
            for code, response in operation.get("responses", {}).items():
                key = str(int(code)) if str(code).isdigit() else str(code)  # 422 and "422" are one response
                responses[key] = _ours(key, response)
            documented = [400, 413] if "requestBody" in operation else []
            if operation.get("security") != []:  # [] : public (the firmware download, its token in the query)
                documented.insert(0, 401)
            for status in documented:
                responses.setdefault(str(status), ERROR_RESPONSES[status].name)
            operation["responses"] = responses


def _ours(key: str, response: Any) -> Any:
    """A response given by reference (a component's name), renamed to ours; one given whole is kept."""
    if not isinstance(response, str) or key == "default":
        return response
    if not key.isdigit() or int(key) not in ERROR_RESPONSES:
        raise ValueError(f"the OpenAPI document has no response of its own for status {key} (named {response!r} "
                         "here): add one to api_spec.ERROR_RESPONSES")
    return ERROR_RESPONSES[int(key)].name


class WiSliceApi(Api):
    ERROR_SCHEMA = ProblemSchema

    def __init__(self, app: Any) -> None:
        super().__init__(app, spec_kwargs={"extra_plugins": [ErrorResponsesPlugin()]})

    def _register_responses(self) -> None:
        """The error responses operations refer to (ERROR_RESPONSES and the default), as application/problem+json,
        in place of flask-smorest's one per http.HTTPStatus. Lazily: only those some operation names appear."""
        for name, description in [*ERROR_RESPONSES.values(), DEFAULT_ERROR]:
            response: dict[str, Any] = {"description": description, "schema": self.ERROR_SCHEMA}
            prepare_response(response, self.spec, PROBLEM)
            self.spec.components.response(name, response, lazy=True)
