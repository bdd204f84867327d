# ratingdb against an external PostgreSQL (see docker-compose.yml): the wheel, which carries
# the migrations (setup.py), installed into a clean image.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml setup.py README.md alembic.ini ./
COPY ratingdb ./ratingdb
COPY migrations ./migrations
RUN pip wheel --no-cache-dir --no-deps -w /wheels .

FROM python:3.11-slim
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
WORKDIR /data
ENTRYPOINT ["ratingdb"]
CMD ["--help"]
