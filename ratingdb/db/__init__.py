"""PostgreSQL: models, connection (DATABASE_URL or the embedded server), sessions."""
