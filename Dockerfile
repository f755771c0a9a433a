# agent-zot serving MCP over streamable HTTP (see docker-compose.yml).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN useradd --create-home --uid 10001 agentzot \
    && mkdir -p /data /exports /zotero \
    && chown agentzot:agentzot /data /exports
WORKDIR /app

# The dependency layer: rebuilt only when pyproject.toml changes. The package itself is a stub here; the
# CPU build of torch comes from PyTorch's own index (PyPI's Linux wheel pulls the CUDA libraries).
COPY pyproject.toml README.md ./
RUN mkdir agent_zot && touch agent_zot/__init__.py \
    && pip install --extra-index-url https://download.pytorch.org/whl/cpu ".[qdrant,neo4j]" \
    && pip uninstall -y agent-zot \
    && rm -rf agent_zot

COPY agent_zot ./agent_zot
RUN pip install --no-deps .

USER agentzot
ENV AGENT_ZOT_DATA_DIR=/data \
    AGENT_ZOT_EXPORT_DIR=/exports \
    AGENT_ZOT_ZOTERO_DATA_DIR=/zotero \
    AGENT_ZOT_HTTP_HOST=0.0.0.0
VOLUME ["/data"]
EXPOSE 8765
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s \
    CMD ["python", "-c", "import socket; socket.create_connection(('127.0.0.1', 8765), 2)"]
ENTRYPOINT ["agent-zot"]
CMD ["serve", "--transport", "http"]
