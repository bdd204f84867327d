"""The DeWIS web-service interface: the SOAP operations (RPC style, SOAP encoding, no WSDL)
that club and federation websites have called on the DSB's DeWIS service for years, answered
from ratingdb's own data (docs/dewis.md).

* :mod:`.envelope` reads a request envelope (defusedxml: no DTD, no entities) into the
  operation's name and its positional arguments;
* :mod:`.encoding` writes an answer or a fault as PHP's ``SoapClient`` reads it
  (``xsi:type`` on every value, ``SOAP-ENC:Array`` for lists, ``SOAP-ENC:Struct`` for
  records);
* :mod:`.arguments` turns the arguments into the values an operation takes, or a fault;
* :mod:`.operations` answers each operation through :mod:`ratingdb.queries`, under the
  publication rules of the public pages (members only, former members textual);
* :mod:`.service` is the endpoint (``/services/soap/index.php``, ``/dewis/soap``).
"""
