"""The OpenAPI 3 document of the REST API, generated from the service descriptor and its
``google.api.http`` annotations: paths, verbs, parameters and the JSON schemas of the messages
(protobuf's JSON mapping). Nothing here is written per RPC or per message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from service.codec import is_repeated
from service.errors import ERRORS
from service.handlers import SERVICE

if TYPE_CHECKING:
    from service.rest import Route

_SCALARS: dict[int, dict[str, str | int]] = {
    FieldDescriptor.TYPE_INT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_SINT32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_SFIXED32: {"type": "integer", "format": "int32"},
    FieldDescriptor.TYPE_UINT32: {"type": "integer", "format": "int64", "minimum": 0, "maximum": 4294967295},
    FieldDescriptor.TYPE_FIXED32: {"type": "integer", "format": "int64", "minimum": 0, "maximum": 4294967295},
    FieldDescriptor.TYPE_INT64: {"type": "string", "format": "int64"},
    FieldDescriptor.TYPE_SINT64: {"type": "string", "format": "int64"},
    FieldDescriptor.TYPE_SFIXED64: {"type": "string", "format": "int64"},
    FieldDescriptor.TYPE_UINT64: {"type": "string", "format": "uint64"},
    FieldDescriptor.TYPE_FIXED64: {"type": "string", "format": "uint64"},
    FieldDescriptor.TYPE_BOOL: {"type": "boolean"},
    FieldDescriptor.TYPE_STRING: {"type": "string"},
    FieldDescriptor.TYPE_BYTES: {"type": "string", "format": "byte"},
    FieldDescriptor.TYPE_DOUBLE: {"type": "number", "format": "double"},
    FieldDescriptor.TYPE_FLOAT: {"type": "number", "format": "float"},
}
_WELL_KNOWN: dict[str, dict[str, Any]] = {
    "google.protobuf.Struct": {"type": "object", "additionalProperties": True},
    "google.protobuf.Value": {"description": "any JSON value"},
    "google.protobuf.ListValue": {"type": "array", "items": {}},
}
_PROBLEM = {
    "type": "object", "additionalProperties": False,
    "description": "An error (RFC 9457). `code` is the same as the gRPC ErrorInfo reason.",
    "properties": {
        "type": {"type": "string"}, "title": {"type": "string"}, "status": {"type": "integer"},
        "detail": {"type": "string"}, "code": {"type": "string", "enum": sorted(ERRORS)},
        "field": {"type": "string", "description": "the offending field, in the record's JSON spelling (deal.hands[1])"},
        "fieldViolations": {"type": "array", "items": {"type": "object", "additionalProperties": False, "properties": {
            "field": {"type": "string"}, "description": {"type": "string"}}, "required": ["field", "description"]}},
    },
    "required": ["type", "title", "status", "detail", "code"],
}


def _comments() -> dict[str, str]:
    """The schema's comments by full name (messages, fields, services, methods), read from the
    descriptor set the build writes beside the generated code (``tools/protogen.py``)."""
    from importlib import resources

    from google.protobuf import descriptor_pb2

    try:
        data = resources.files("naipes.v1").joinpath("naipes.binpb").read_bytes()
    except (FileNotFoundError, ModuleNotFoundError):
        return {}
    out: dict[str, str] = {}
    for file in descriptor_pb2.FileDescriptorSet.FromString(data).file:
        names: dict[tuple[int, ...], str] = {}
        for i, message in enumerate(file.message_type):
            names[(4, i)] = f"{file.package}.{message.name}"
            for j, field in enumerate(message.field):
                names[(4, i, 2, j)] = f"{file.package}.{message.name}.{field.name}"
        for i, service in enumerate(file.service):
            names[(6, i)] = f"{file.package}.{service.name}"
            for j, method in enumerate(service.method):
                names[(6, i, 2, j)] = f"{file.package}.{service.name}.{method.name}"
        for location in file.source_code_info.location:
            name = names.get(tuple(location.path))
            if name and location.leading_comments.strip():
                out[name] = " ".join(line.strip() for line in location.leading_comments.strip().splitlines())
    return out


COMMENTS = _comments()


def _described(schema: dict[str, Any], full_name: str) -> dict[str, Any]:
    text = COMMENTS.get(full_name)
    if text and "$ref" not in schema:
        schema["description"] = text
    elif text:
        schema = {"allOf": [schema], "description": text}
    return schema


def _schema_name(descriptor: Descriptor) -> str:
    package = SERVICE.file.package
    full = descriptor.full_name
    return full[len(package) + 1:] if full.startswith(package + ".") else full.replace(".", "_")


class _Schemas:
    def __init__(self) -> None:
        self.components: dict[str, Any] = {}

    def ref(self, descriptor: Descriptor) -> dict[str, Any]:
        if descriptor.full_name in _WELL_KNOWN:
            return dict(_WELL_KNOWN[descriptor.full_name])
        name = _schema_name(descriptor)
        if name not in self.components:
            self.components[name] = {}  # placeholder: recursive messages
            self.components[name] = self.message(descriptor)
        return {"$ref": f"#/components/schemas/{name}"}

    def field(self, field: FieldDescriptor) -> dict[str, Any]:
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            schema = self.ref(_message_of(field))
        elif field.type == FieldDescriptor.TYPE_ENUM and field.enum_type is not None:
            schema = {"type": "string", "enum": [v.name for v in field.enum_type.values]}
        elif field.full_name in CODES:
            schema = {"type": "string", "enum": CODES[field.full_name]}
        else:
            schema = dict(_SCALARS[field.type])
        if is_repeated(field):
            return {"type": "array", "items": schema}
        return schema

    def message(self, descriptor: Descriptor) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object", "additionalProperties": False,
                                  "properties": {f.json_name: _described(self.field(f), f.full_name) for f in descriptor.fields}}
        if descriptor.full_name in REQUIRED:
            schema["required"] = list(REQUIRED[descriptor.full_name])
        return _described(schema, descriptor.full_name)


_P = SERVICE.file.package + "."
# What a request must hold (else MISSING_FIELD) and what an answer always holds, by message
# (tests/test_service_layout.py validates every answer of the examples and playouts against the
# document, so that a generated client can rely on these).
REQUIRED: dict[str, tuple[str, ...]] = {
    _P + "HandRecord": ("game", "seats", "dealer", "deal"),
    _P + "ResolveTrickRequest": ("game", "cards"),
    _P + "SettleHandRequest": ("game", "seats"),
    _P + "DealRequest": ("game", "seats", "dealer", "seed"),
    _P + "ValidationResult": ("game", "valid", "finished", "tricks", "events"),
    _P + "Violation": ("action", "code", "message"),
    _P + "Next": ("seat", "legal"),
    _P + "Trick": ("leader", "cards"),
    _P + "Payment": ("payee", "amount", "reason"),
    _P + "Event": ("kind", "text"),
    _P + "LegalActionsResponse": ("game", "valid", "finished", "legal", "actions"),
    _P + "ResolveTrickResponse": ("winnerIndex", "card", "complete", "events"),
    _P + "DealResponse": ("game", "seats", "dealer", "deal", "seed", "commitment", "algorithm"),
}


def _codes() -> dict[str, list[str]]:
    from engine.errors import VIOLATION_CODES

    return {_P + "Violation.code": list(VIOLATION_CODES), _P + "Problem.code": sorted(ERRORS)}


# The string fields that hold a code of a table, by full name: a violation's (engine/errors.py) and a
# stream entry's error (the error table, as a problem's `code`), as the JavaScript client types them.
CODES = _codes()


# Every body may come compressed (service/codings.py), which the document says in words: a
# Content-Encoding header parameter would have generated clients (and the contract tests) send the
# header with a plain body.
CODED_BODY = ("It may be sent compressed, saying so in Content-Encoding: gzip (x-gzip) or deflate (zlib-wrapped); "
              "the limits are the decoded body's.")


def _problem_answer() -> dict[str, Any]:
    return {"description": "an error of the error table",
            "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/ProblemDetails"}}}}


def _kept(responses: dict[str, Any]) -> dict[str, Any]:
    """``responses`` of an answer a client may keep (``service.rest._conditional``): its 200 says
    its ``ETag``, and an ``If-None-Match`` that holds it is a 304 without a body."""
    etag = {"description": "a strong tag of the answer's bytes as sent; asked again in If-None-Match, an unchanged answer "
                           "is 304 (Cache-Control: no-cache)", "schema": {"type": "string"}}
    return {**responses, "200": {**responses["200"], "headers": {"ETag": etag}},
            "304": {"description": "Not Modified: the answer is the one whose ETag the request's If-None-Match holds"}}


def document(routes: list[Route]) -> dict[str, Any]:
    schemas = _Schemas()
    schemas.components["ProblemDetails"] = _PROBLEM
    paths: dict[str, Any] = {}
    for route in routes:
        method = route.method
        op: dict[str, Any] = {"operationId": method.name, "tags": [SERVICE.name],
                              "summary": f"{SERVICE.full_name}.{method.name} (gRPC)"}
        if method.full_name in COMMENTS:
            op["description"] = COMMENTS[method.full_name]
        params = []
        for var in route.variables:
            params.append({"name": var, "in": "path", "required": True,
                           "schema": schemas.field(_field(method.input_type, var))})
        if route.body != "*":
            for f in method.input_type.fields:
                if f.name != route.body and f.json_name not in route.variables and f.type != FieldDescriptor.TYPE_MESSAGE:
                    params.append({"name": f.json_name, "in": "query", "required": False, "schema": schemas.field(f),
                                   **({"description": COMMENTS[f.full_name]} if f.full_name in COMMENTS else {})})
        if params:
            op["parameters"] = params
        # A streaming RPC: newline-delimited JSON, the schema of one line.
        media = "application/x-ndjson" if route.streaming else "application/json"
        if route.body:
            body = method.input_type if route.body == "*" else _message_of(_field(method.input_type, route.body))
            # A stream's body may be empty: a stream of no messages, answered by none (as gRPC's).
            op["requestBody"] = {"required": not route.streaming, "content": {media: {"schema": schemas.ref(body)}},
                                 "description": CODED_BODY}
            if route.streaming:
                op["requestBody"]["description"] = (f"one {body.name} per line (or the bare {_message_of(body.fields[0]).name} "
                                                    f"of its first field); an empty body is a stream of none, answered by none. "
                                                    f"{CODED_BODY}")
        answer = method.output_type
        if route.response_body:
            answer = _message_of(_field(answer, route.response_body))
        op["responses"] = {
            "200": {"description": f"one {answer.name} per line, in order" if route.streaming else "OK",
                    "content": {media: {"schema": schemas.ref(answer)}}},
            "default": _problem_answer(),
        }
        if route.verb == "GET":
            op["responses"] = _kept(op["responses"])
        paths.setdefault(route.template, {})[route.verb.lower()] = op
    # (These answer the errors of HTTP itself too, a wrong method or a request gunicorn cannot read.)
    paths["/v1/openapi.json"] = {"get": {"operationId": "OpenApi", "summary": "this document",
                                         "responses": _kept({"200": {"description": "the OpenAPI document", "content": {
                                             "application/json": {"schema": {"type": "object"}}}},
                                             "default": _problem_answer()})}}
    paths["/healthz"] = {"get": {"operationId": "Healthz", "summary": "liveness (gRPC: grpc.health.v1.Health)",
                                 "responses": {"200": {"description": "serving", "content": {"application/json": {
                                     "schema": {"type": "object", "properties": {"status": {"type": "string"}}}}}},
                                     "default": _problem_answer()}}}
    paths["/metrics"] = {"get": {"operationId": "Metrics", "summary": "Prometheus metrics of the calls of both transports",
                                 "responses": {"200": {"description": "Prometheus' text format", "content": {"text/plain": {
                                     "schema": {"type": "string"}}}},
                                     "default": _problem_answer()}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Naipes", "version": SERVICE.file.package,
                 "description": f"Generated from {SERVICE.file.name}: REST bindings of {SERVICE.full_name}."},
        "paths": paths,
        "components": {"schemas": schemas.components},
    }


def _field(descriptor: Descriptor, path: str) -> FieldDescriptor:
    names = path.split(".")
    for name in names[:-1]:
        descriptor = _message_of(descriptor.fields_by_name.get(name) or descriptor.fields_by_camelcase_name[name])
    return descriptor.fields_by_name.get(names[-1]) or descriptor.fields_by_camelcase_name[names[-1]]


def _message_of(field: FieldDescriptor) -> Descriptor:
    assert field.message_type is not None, field.full_name
    return field.message_type
