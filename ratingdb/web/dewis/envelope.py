"""A SOAP request envelope read into the operation's name and its arguments.

RPC style (SOAP 1.1 section 7): the body holds one element named after the operation, its
children are the arguments in order (PHP's ``SoapClient`` without a WSDL names them
``param0``, ``param1``, …; clients with a WSDL name them after its parts; only the order
counts here). SOAP encoding: each argument carries its type (``xsi:type="xsd:int"``), an
absent value ``xsi:nil="true"``.

Read with :mod:`defusedxml`: a document type declaration, entity declarations or external
references are refused (SOAP 1.1 section 3 forbids a DTD in a message), which refuses the
entity-expansion bombs ("billion laughs", "quadratic blowup") before anything expands. An
argument with child elements (a struct, an array) is kept as :class:`Compound`, which no
operation takes: nothing here recurses into it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import defusedxml.ElementTree as safe_xml
from defusedxml import DefusedXmlException

from ratingdb.web.dewis.faults import NOT_A_SOAP_REQUEST, DewisFault

ENVELOPES = (
    "http://schemas.xmlsoap.org/soap/envelope/",  # SOAP 1.1
    "http://www.w3.org/2003/05/soap-envelope",  # SOAP 1.2
)
XSI = "http://www.w3.org/2001/XMLSchema-instance"


@dataclass(frozen=True, slots=True)
class Compound:
    """An argument with child elements (a struct or an array): its declared type."""

    declared: str


#: a decoded argument
Value = str | int | float | bool | None | Compound


@dataclass(frozen=True, slots=True)
class Call:
    operation: str
    #: the operation element's namespace (the client's ``uri``), echoed in the answer
    namespace: str
    arguments: tuple[Value, ...]


def _split(tag: str) -> tuple[str, str]:
    if tag.startswith("{"):
        namespace, _, local = tag[1:].partition("}")
        return namespace, local
    return "", tag


def _local(qname: str) -> str:
    return qname.rpartition(":")[2]


def read_call(body: bytes) -> Call:
    """The call in ``body``; a :class:`DewisFault` for anything that is not a SOAP RPC
    request (bad XML, a DTD or entities, no body, no operation)."""
    try:
        root = safe_xml.fromstring(body, forbid_dtd=True)
    except (DefusedXmlException, safe_xml.ParseError, ValueError) as err:
        raise DewisFault(f"{NOT_A_SOAP_REQUEST}: {_reason(err)}") from None
    namespace, local = _split(root.tag)
    if local != "Envelope" or namespace not in ENVELOPES:
        raise DewisFault(f"{NOT_A_SOAP_REQUEST}: no SOAP envelope")
    found = root.find(f"{{{namespace}}}Body")
    if found is None:
        raise DewisFault(f"{NOT_A_SOAP_REQUEST}: no SOAP body")
    elements = list(found)
    if len(elements) != 1:
        raise DewisFault(f"{NOT_A_SOAP_REQUEST}: the body must hold exactly one operation")
    operation = elements[0]
    op_namespace, op_name = _split(operation.tag)
    return Call(op_name, op_namespace, tuple(_value(arg) for arg in operation))


def _value(element: Any) -> Value:
    declared = _local(element.get(f"{{{XSI}}}type", ""))
    if element.get(f"{{{XSI}}}nil", "").lower() in ("true", "1"):
        return None
    if len(element):
        return Compound(declared or "struct")
    content = element.text or ""
    if declared in ("int", "integer", "long", "short", "byte", "unsignedInt", "unsignedLong"):
        try:
            return int(content.strip())
        except ValueError:
            return content
    if declared == "boolean":
        return content.strip().lower() in ("true", "1")
    if declared in ("float", "double", "decimal"):
        try:
            return float(content.strip())
        except ValueError:
            return content
    return content  # xsd:string, or untyped


def _reason(err: Exception) -> str:
    if isinstance(err, DefusedXmlException):
        return "document type declarations and entities are not allowed"
    return "not well-formed XML"
