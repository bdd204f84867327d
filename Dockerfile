# ratingdb against an external PostgreSQL (see docker-compose.yml).
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md alembic.ini ./
COPY ratingdb ./ratingdb
COPY migrations ./migrations
RUN pip install --no-cache-dir -e .
ENTRYPOINT ["ratingdb"]
CMD ["--help"]
