"""The interface described as a WSDL 1.1 document (RPC style, SOAP encoding), for clients
that load one: ChessLeagueManager's older DeWIS functions load the DSB's
``/services/files/dewis.wsdl``, node-soap and zeep need one. The plugins call without it.

Every operation of :data:`~ratingdb.web.dewis.operations.OPERATIONS` with its arguments
(:data:`~ratingdb.web.dewis.operations.PARAMETERS`); every answer is one ``return`` of type
``xsd:anyType``: its value carries its own ``xsi:type`` (:mod:`.encoding`), which the clients
decode as without a WSDL. The service's address is the server's own, as the request shows it.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from ratingdb.web.dewis.encoding import DEFAULT_NAMESPACE, SOAP_ENC, XSD
from ratingdb.web.dewis.operations import OPERATIONS, PARAMETERS

WSDL = "http://schemas.xmlsoap.org/wsdl/"
WSDL_SOAP = "http://schemas.xmlsoap.org/wsdl/soap/"
HTTP = "http://schemas.xmlsoap.org/soap/http"


def document(location: str, namespace: str = DEFAULT_NAMESPACE) -> bytes:
    """The WSDL of every operation, answered at ``location``."""
    ns = escape(namespace)
    body = f'<soap:body use="encoded" namespace="{ns}" encodingStyle="{SOAP_ENC}"/>'
    messages, operations, bindings = [], [], []
    for name in OPERATIONS:
        parts = "".join(
            f'<part name="{part}" type="xsd:{kind}"/>' for part, kind in PARAMETERS[name]
        )
        messages.append(
            f'<message name="{name}Request">{parts}</message>'
            f'<message name="{name}Response"><part name="return" type="xsd:anyType"/></message>'
        )
        operations.append(
            f'<operation name="{name}"><input message="tns:{name}Request"/>'
            f'<output message="tns:{name}Response"/></operation>'
        )
        bindings.append(
            f'<operation name="{name}"><soap:operation soapAction="{ns}#{name}"/>'
            f"<input>{body}</input><output>{body}</output></operation>"
        )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<definitions name="dewis" targetNamespace="{ns}" xmlns:tns="{ns}" '
        f'xmlns:soap="{WSDL_SOAP}" xmlns:xsd="{XSD}" xmlns:soapenc="{SOAP_ENC}" '
        f'xmlns="{WSDL}">'
        + "".join(messages)
        + '<portType name="dewisPortType">'
        + "".join(operations)
        + '</portType><binding name="dewisBinding" type="tns:dewisPortType">'
        f'<soap:binding style="rpc" transport="{HTTP}"/>'
        + "".join(bindings)
        + '</binding><service name="dewis"><port name="dewisPort" binding="tns:dewisBinding">'
        f"<soap:address location={quoteattr(location)}/></port></service></definitions>"
    ).encode("utf-8")
