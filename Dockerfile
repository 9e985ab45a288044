# syntax=docker/dockerfile:1
# One image for every Tenet process; the command picks the app (default: the all-in-one `apps/tenet`):
#   docker build -t tenet:0.1.0 .
#   docker run -p 8800:8800 tenet:0.1.0                                        # all-in-one
#   docker run tenet:0.1.0 node dist/apps/guideline-matcher/main.js             # one service
# Stages: `build` compiles with the dev toolchain (npm run build → dist/), `prod-deps` installs production
# dependencies only (better-sqlite3 13 ships Node-API prebuilds; the toolchain compiles it only where none fits), `runtime`
# carries dist/ and those node_modules, runs as the unprivileged `node` user under tini (PID 1 forwards
# SIGTERM to node, whose shutdown hook closes the app; zombies are reaped), and probes /healthz.
# The base is pinned to the Node version the build is tested with; pin its digest in your registry mirror.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

FROM ${NODE_IMAGE} AS toolchain
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*

FROM toolchain AS build
WORKDIR /src
COPY package.json package-lock.json ./
# `npm ci` refuses this lock file (it lacks other platforms' optional swc/msgpackr binaries), hence install.
RUN npm install --no-audit --no-fund
COPY nx.json tsconfig.base.json tsconfig.json ./
COPY scripts ./scripts
COPY examples ./examples
COPY libs ./libs
COPY apps ./apps
RUN npm run build

FROM toolchain AS prod-deps
WORKDIR /app
COPY --from=build /src/dist/package.json /src/dist/package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund \
 && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data \
 && chown node:node /data
WORKDIR /app
# TENET_HOST: the all-in-one binds loopback by default; in a container it must listen on every interface.
# NODE_OPTIONS: the young generation every Tenet process runs with, as `npm run start:prod` passes it (ADR 0035): 16 MB,
# where V8's default grows to 64 MB during start-up in the busier processes and keeps ~30 MB of it resident at idle.
# Whatever command the container runs gets it (compose and the k8s manifests run this image).
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=8 \
    PORT=8800 \
    TENET_HOST=0.0.0.0 \
    TENET_DATA_DIR=/data
# Root-owned code: the `node` user can read it but not change it (the k8s manifests also mount it read-only).
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=prod-deps /app/package.json ./package.json
COPY --from=build /src/dist ./dist
USER node
EXPOSE 8800
VOLUME ["/data"]
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/apps/tenet/main.js"]
