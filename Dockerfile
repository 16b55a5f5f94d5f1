# Build: wheels of the locked dependencies (hash-checked) and of the app. Run: a slim image, a non-root user,
# migrate then serve. The migrations ship inside the package, so nothing else is copied.
FROM python:3.11-slim AS build
WORKDIR /src
RUN pip install --no-cache-dir --upgrade pip
COPY requirements.lock ./
RUN pip wheel --no-cache-dir --require-hashes --wheel-dir /wheels -r requirements.lock
COPY pyproject.toml README.md ./
COPY app ./app
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.11-slim
# Production: WARRANTY_SECRET_KEY must be given (`docker run -e WARRANTY_SECRET_KEY=...`).
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 WARRANTY_ENV=production WARRANTY_DATA_DIR=/data \
    WARRANTY_DATABASE_URL=sqlite+aiosqlite:////data/warranty.db
RUN useradd --create-home --uid 10001 warranty && mkdir /data && chown warranty /data
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir --no-index --no-deps /wheels/*.whl && pip check && rm -rf /wheels
WORKDIR /srv
USER warranty
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health')"
CMD ["sh", "-c", "warranty migrate && exec warranty serve --host 0.0.0.0 --port 8000 --workers ${WEB_CONCURRENCY:-1}"]
