"""Answers and faults written as PHP's ``SoapClient`` (non-WSDL mode, RPC/encoded) reads
them, the way PHP's own ``SoapServer`` writes them: the answer element ``<op>Response`` in
the request's namespace holds one ``return``; every value carries its ``xsi:type``.

Python values map so: ``dict`` → ``SOAP-ENC:Struct`` (its keys as element names, in order;
PHP reads an object), ``list`` → ``SOAP-ENC:Array`` of ``item`` elements with its
``SOAP-ENC:arrayType`` (PHP reads an array, also of one item or none), ``int`` →
``xsd:int``, ``bool`` → ``xsd:boolean``, ``str`` → ``xsd:string``, ``None`` →
``xsi:nil``. Numbers with decimals are strings made by the operations (exact, never a
binary float).
"""

from __future__ import annotations

import re
from typing import Any
from xml.sax.saxutils import escape

SOAP_ENV = "http://schemas.xmlsoap.org/soap/envelope/"
SOAP_ENC = "http://schemas.xmlsoap.org/soap/encoding/"
XSD = "http://www.w3.org/2001/XMLSchema"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
#: the namespace of the answer when the request's operation had none
DEFAULT_NAMESPACE = "https://soap"
CONTENT_TYPE = "text/xml; charset=utf-8"
#: characters XML 1.0 cannot carry (control characters but tab, newline, return)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _open(namespace: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<SOAP-ENV:Envelope xmlns:SOAP-ENV="{SOAP_ENV}" xmlns:ns1="{escape(namespace)}" '
        f'xmlns:xsd="{XSD}" xmlns:xsi="{XSI}" xmlns:SOAP-ENC="{SOAP_ENC}" '
        f'SOAP-ENV:encodingStyle="{SOAP_ENC}"><SOAP-ENV:Body>'
    )


_CLOSE = "</SOAP-ENV:Body></SOAP-ENV:Envelope>"


def answer(operation: str, namespace: str, value: Any) -> bytes:
    """The envelope answering ``operation`` with ``value`` as its ``return``."""
    parts = [_open(namespace or DEFAULT_NAMESPACE), f"<ns1:{operation}Response>"]
    _element(parts, "return", value)
    parts.append(f"</ns1:{operation}Response>{_CLOSE}")
    return "".join(parts).encode("utf-8")


def fault(faultstring: str, *, client: bool = True) -> bytes:
    """The envelope of a SOAP fault (SOAP 1.1 section 4.4)."""
    code = "SOAP-ENV:Client" if client else "SOAP-ENV:Server"
    return (
        f"{_open(DEFAULT_NAMESPACE)}<SOAP-ENV:Fault><faultcode>{code}</faultcode>"
        f"<faultstring>{_text(faultstring)}</faultstring></SOAP-ENV:Fault>{_CLOSE}"
    ).encode()


def _text(value: str) -> str:
    return escape(_NOT_XML.sub("", value))


def _array_type(items: list[Any]) -> str:
    if items and all(isinstance(i, dict) for i in items):
        kind = "SOAP-ENC:Struct"
    elif items and all(isinstance(i, str) for i in items):
        kind = "xsd:string"
    elif items and all(isinstance(i, int) and not isinstance(i, bool) for i in items):
        kind = "xsd:int"
    else:
        kind = "xsd:anyType"
    return f"{kind}[{len(items)}]"


def _element(parts: list[str], name: str, value: Any) -> None:
    if value is None:
        parts.append(f'<{name} xsi:nil="true"/>')
    elif isinstance(value, bool):
        parts.append(f'<{name} xsi:type="xsd:boolean">{"true" if value else "false"}</{name}>')
    elif isinstance(value, int):
        parts.append(f'<{name} xsi:type="xsd:int">{value}</{name}>')
    elif isinstance(value, str):
        parts.append(f'<{name} xsi:type="xsd:string">{_text(value)}</{name}>')
    elif isinstance(value, dict):
        parts.append(f'<{name} xsi:type="SOAP-ENC:Struct">')
        for key, item in value.items():
            _element(parts, key, item)
        parts.append(f"</{name}>")
    elif isinstance(value, list):
        parts.append(
            f'<{name} SOAP-ENC:arrayType="{_array_type(value)}" xsi:type="SOAP-ENC:Array">'
        )
        for item in value:
            _element(parts, "item", item)
        parts.append(f"</{name}>")
    else:
        raise TypeError(f"no SOAP encoding for {type(value).__name__}")
