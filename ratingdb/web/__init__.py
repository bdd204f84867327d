"""The web service: server-rendered pages for everyone and a JSON API with an OpenAPI
document, over the same ``ratingdb.queries`` layer as the command line (WO 6.5).

``ratingdb serve`` runs :func:`ratingdb.web.app.create_app` under uvicorn; docs/web.md
describes the pages, the endpoints, roles and permissions.
"""
