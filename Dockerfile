FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY pyproject.toml README.md alembic.ini ./
COPY bot ./bot
COPY migrations ./migrations
COPY cubes ./cubes
# The full rules, served by the web site at /rules/<format> (bot/web/rules.py).
COPY docs/rules ./docs/rules
RUN pip install -e . \
    && useradd --create-home --uid 10001 botuser \
    && mkdir -p /app/data \
    && chown botuser:botuser /app/data

USER botuser
# The default SQLite database lives here; mount a volume to keep it across container restarts.
VOLUME ["/app/data"]
CMD ["python", "-m", "bot"]
