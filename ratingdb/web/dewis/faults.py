"""The faults of the DeWIS interface: every refusal is a SOAP fault whose ``faultstring`` is
the sentence a client matches on (the sentences of the DSB's service where the public
clients show them; docs/dewis.md lists which are sourced and which are chosen)."""

from __future__ import annotations

#: the real service's sentences, as the public clients match them (their grammar kept)
NOT_A_VALID_UNION_ID = "that is not a valid union id"
UNION_DOES_NOT_EXIST = "that union does not exists"
NOT_A_VALID_FEDERATION_ID = "that is not a valid federation id"
FEDERATION_DOES_NOT_EXIST = "that federation does not exists"
NOT_A_MEMBER = "that is not a member"
NOT_A_VALID_SURNAME = "that is not a valid surname"
SURNAME_TOO_SHORT = "surname too short"
NOT_A_VALID_TOURNAMENT = "that is not a valid tournament"
NOT_A_VALID_TOURNAMENT_CODE = "that is not a valid tournament code"
TOURNAMENT_LEVEL_NOT_VALID = "tournament level not valid"
NO_VALID_ID = "no valid id given"
#: chosen here (no public client shows the real sentence)
RATING_OFFICER_DOES_NOT_EXIST = "that rating officer does not exists"
NOT_A_VALID_LIMIT = "that is not a valid limit"
NOT_A_VALID_OFFSET = "that is not a valid offset"
NOT_A_VALID_AGE = "that is not a valid age"
NOT_A_VALID_SEX = "that is not a valid sex"
NOT_A_VALID_DATE = "that is not a valid date"
NOT_A_VALID_PERIOD = "from and to must lie in the same year, from not after to"
NOT_A_VALID_SEARCH = "that is not a valid search text"
UNKNOWN_OPERATION = "unknown operation"
NOT_A_SOAP_REQUEST = "that is not a SOAP request"
REQUEST_TOO_LARGE = "request too large"
BUSY = "too many requests, try again later"
INTERNAL = "internal error of the rating database, reported to its administrators"
UNAVAILABLE = "the rating database is not available, try again later"


class DewisFault(Exception):
    """A refusal sent as a SOAP fault: ``faultstring`` as the client reads it; ``client``:
    the request's fault (``SOAP-ENV:Client``) or the server's (``SOAP-ENV:Server``)."""

    def __init__(self, faultstring: str, *, client: bool = True) -> None:
        super().__init__(faultstring)
        self.faultstring = faultstring
        self.client = client
