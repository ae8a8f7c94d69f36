#!/usr/bin/env bash
# The package as a user gets it: `npm pack`, a global install of the tarball into a throwaway prefix
# (dependencies from the npm registry, nothing else from the network), then the README's first steps
# run from a folder outside the repository: init, validate, build, and a start whose three URLs
# answer 200 application/xml. Also `start` on a port that is taken (one line, exit 1), and
# `start --no-serve`, which needs no port.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "package check FAILED: $*" >&2
  exit 1
}

echo "== npm pack"
(cd "$repo" && npm pack --silent --pack-destination "$work" > "$work/pack.txt")
tarball="$work/$(tail -n 1 "$work/pack.txt")"
listing="$(tar -tzf "$tarball")"
for path in package/LICENSE package/README.md package/bin/ratefile.js package/dist/cli.js package/examples/live.yaml \
  package/data/currency-codes.tsv package/templates/parserfile.yaml package/deploy/ratefile.service; do
  grep -qx "$path" <<< "$listing" || fail "$path is not in the tarball"
done
if grep -q '^package/src/\|^package/test/\|tsbuildinfo' <<< "$listing"; then fail "the tarball carries sources, tests or build state"; fi
# The package has no src/: a source map in it would point at files that are not there (the build emits none).
maps="$(grep '\.map$' <<< "$listing" || true)"
[ -z "$maps" ] || fail "the tarball carries $(wc -l <<< "$maps") source maps pointing at ../src, which it does not contain (first: $(head -n 1 <<< "$maps"))"

echo "== npm install -g $(basename "$tarball") (prefix $work/prefix)"
npm install -g --prefix "$work/prefix" --no-audit --no-fund "$tarball" > "$work/install.log" 2>&1 || { cat "$work/install.log"; fail "install"; }
# No install-time compile (prepare), and no engine warning on this Node.js line.
if grep -Ei 'EBADENGINE|prepare|tsc ' "$work/install.log"; then fail "the install printed the lines above"; fi
export PATH="$work/prefix/bin:$PATH"
command -v ratefile | grep -q "^$work/prefix/bin/ratefile$" || fail "ratefile is not the installed command"

project="$work/shop"
mkdir -p "$project"
cd "$project"
# The README's first steps, as written there, from a folder that is not the repository.
unset RATEFILE_CONFIG PORT
echo "== ratefile init, validate, build"
ratefile init
ratefile validate
ratefile build 2> "$work/build.log" || { cat "$work/build.log"; fail "build"; }
grep -q 'published 5 directions' "$work/build.log" || { cat "$work/build.log"; fail "build summary"; }
if grep -q 'Warning' "$work/build.log"; then cat "$work/build.log"; fail "a library warned"; fi
for file in parserfile.xml reffile.xml affiliatefile.xml; do [ -s "public/$file" ] || fail "public/$file not written"; done

port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
echo "== ratefile start --port $port"
ratefile start --port "$port" 2> "$work/start.log" &
server=$!
# Three URLs: 200 and application/xml each.
node - "$port" <<'EOF' || { cat "$work/start.log"; fail "start did not serve the exports"; }
const port = process.argv[2];
const deadline = Date.now() + 30_000;
for (const file of ['parserfile.xml', 'reffile.xml', 'affiliatefile.xml']) {
  for (;;) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/${file}`);
      const type = response.headers.get('content-type') ?? '';
      if (response.status !== 200 || !type.startsWith('application/xml')) throw new Error(`${file}: ${response.status} ${type}`);
      const body = await response.text();
      if (!body.startsWith('<?xml')) throw new Error(`${file}: not XML`);
      console.log(`${file}: ${response.status} ${type}`);
      break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
EOF

echo "== ratefile start --port $port while it is taken"
set +e
taken="$(ratefile start --port "$port" 2>&1 >/dev/null)"
code=$?
set -e
[ "$code" -eq 1 ] || fail "start on a taken port exited $code: $taken"
[ "$(printf '%s\n' "$taken" | wc -l)" -eq 1 ] || fail "start on a taken port said more than one line: $taken"
echo "$taken"
echo "== ratefile start --no-serve (the port is still taken: it must not matter)"
ratefile start --no-serve --port "$port" 2> "$work/no-serve.log" &
builder=$!
for _ in $(seq 1 150); do
  grep -q 'not serving' "$work/no-serve.log" && break
  kill -0 "$builder" 2>/dev/null || break
  sleep 0.2
done
grep -q 'not serving' "$work/no-serve.log" || { cat "$work/no-serve.log"; kill "$builder" 2>/dev/null || true; fail "start --no-serve"; }
kill -TERM "$builder"
wait "$builder" || fail "start --no-serve did not stop cleanly on SIGTERM"

kill -TERM "$server"
wait "$server" || fail "start did not stop cleanly on SIGTERM"
server=""
echo "package check passed"
