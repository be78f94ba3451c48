# syntax=docker/dockerfile:1
# One image, every role: `docker run IMAGE <start|gateway|api|worker|migrate>` (default: start).
# TypeScript runs through tsx at runtime (a production dependency), so the server has no build step; the
# browser UIs (operator console, widget) are built in the `ui` stage and only their output is copied.

FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only (tsx is one of them); dev tools (jest, swc, tsc) stay out of the image.
# npm install, not npm ci: the lock is written where only linux-x64 optional packages can be fetched, so it
# lacks the other platforms' entries and npm ci would refuse it; the versions it pins still apply.
# --ignore-scripts: the package's `prepare` builds the UIs, which needs the dev tools this stage leaves out.
RUN npm install --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force

FROM node:20-bookworm-slim AS ui
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund --ignore-scripts
COPY . .
RUN npm run build:ui

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    HOST=0.0.0.0 \
    PORT=4000 \
    API_PORT=4001 \
    DATA_DIR=/app/data
WORKDIR /app
# Code and dependencies stay root-owned (read-only to the app user).
COPY --from=deps /app/node_modules ./node_modules
COPY . .
COPY --from=ui /app/dist ./dist
# DATA_DIR must be writable by the unprivileged user: `start` keeps PGlite and blobs there, and
# `start`/`migrate` keep their generated secrets there (split roles get theirs from the environment).
RUN mkdir -p /app/data && chown node:node /app/data
# Mount a volume at /app/data for `start` (it holds the embedded database).
# The stock `node` user (uid 1000) has a home for npx's cache and logs.
USER node

# The gateway listens on PORT (4000). The api role listens on API_PORT (4001): set API_HOST=0.0.0.0
# for it in a container; `start` keeps the api on loopback behind its embedded gateway.
EXPOSE 4000 4001

# Asks the gateway first, then the api, on this container's loopback. The worker role has no HTTP
# listener: disable the health check for it (docker-compose.yml does) or this reports unhealthy.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "const ports=[process.env.PORT||4000,process.env.API_PORT||4001];(async()=>{for(const p of ports){try{const r=await fetch('http://127.0.0.1:'+p+'/health',{signal:AbortSignal.timeout(4000)});if(r.ok)process.exit(0)}catch{}}process.exit(1)})()"]

# `npx tsx bin/platform.ts` works too but must not be PID 1: npx runs tsx through `sh -c` and, on SIGTERM,
# the shell dies and leaves the app running until the container is killed, so no graceful drain.
# `node --import tsx` is the same program as a single process that receives SIGTERM itself.
ENTRYPOINT ["node", "--import", "tsx", "bin/platform.ts"]
CMD ["start"]
