# ratefile as a container image: `ratefile start` (build, rebuild on the config's schedule, serve) as an
# unprivileged user, on a read-only root file system. Three volumes:
#   /etc/ratefile              the config (RATEFILE_CONFIG names the file), templates, a file source's quotes;
#                              read-only is enough
#   /var/lib/ratefile/state    the config's `state:` (guard state, status, alerts): writable by uid 1000
#   /var/lib/ratefile/public   the config's `output:` (the exports): writable by uid 1000, served by nginx
# The config must say `output: /var/lib/ratefile/public` and `state: /var/lib/ratefile/state`.
#   docker build -t ratefile .       (podman: add --format docker, or the HEALTHCHECK is dropped)
# Usage, volumes, compose and the health check: docs/deploy.md. Built and run in CI by .ci/container.sh.

# Build: compile TypeScript with the dev dependencies, then drop them.
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund --ignore-scripts && rm -f dist/.tsbuildinfo

# Run: Node.js, the production dependencies, the compiled code and its data files; nothing else.
FROM node:22-bookworm-slim
# tini (Debian's) as PID 1: the kernel delivers no default signal action to PID 1, so a node there would
# ignore SIGTERM until ratefile has installed its handler (during the first build, or in a one-shot command
# like `build`) and `docker stop` would wait for its SIGKILL. tini forwards the signal to node and reaps
# children, under docker, podman, compose and Kubernetes alike, without anyone having to remember `--init`.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/* \
  && mkdir -p /etc/ratefile /var/lib/ratefile/state /var/lib/ratefile/public \
  && chown node:node /var/lib/ratefile /var/lib/ratefile/state /var/lib/ratefile/public \
  && chmod 0755 /var/lib/ratefile /var/lib/ratefile/state /var/lib/ratefile/public
WORKDIR /opt/ratefile
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY package.json LICENSE ./
COPY bin ./bin
COPY data ./data
COPY templates ./templates
RUN ln -s /opt/ratefile/bin/ratefile.js /usr/local/bin/ratefile

ENV NODE_ENV=production \
    RATEFILE_CONFIG=/etc/ratefile/ratefile.config.yaml \
    PORT=8080 \
    MALLOC_MMAP_THRESHOLD_=131072
# MALLOC_MMAP_THRESHOLD_: as in deploy/ratefile.service (glibc keeps a build's large buffers otherwise).
# PORT wins over the config's server.port (the health check below asks this port).

# The node user (uid 1000, gid 1000) of the base image. Volumes mounted from the host must be writable by it.
USER node
# `ratefile init` with no folder writes the starter here; relative paths in messages are relative to it.
WORKDIR /etc/ratefile
VOLUME ["/etc/ratefile", "/var/lib/ratefile/state", "/var/lib/ratefile/public"]
EXPOSE 8080

# 200 while what is published is right (ok or degraded), 503 when failing: see docs/pricing-and-guards.md.
# Node's own fetch: the slim base has no curl or wget.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`, { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# Inside a container 127.0.0.1 (ratefile's default) is reachable from nowhere else, not even through a
# published port: the image listens on every interface of the container, and you decide what reaches it
# (`-p 127.0.0.1:8080:8080`, or a compose network).
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/opt/ratefile/bin/ratefile.js"]
CMD ["start", "--host", "0.0.0.0"]
