# Thin wrappers over npm scripts: one entry per job.
.PHONY: install build pack lint generate check test test-registry test-lines bench demo node-check

# The two commands a newcomer runs stop at once, with the one command that fixes it, on a Node the project does not
# support (the sandbox needs node:sqlite: 22.13+). scripts/node-lines.sh installs a supported line without root.
node-check:
	@node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 13) ? 0 : 1)' || { \
	  echo "card-api-kit needs Node.js 22.13+ or 24+ (this is $$(node --version)); one command gets Node 24 without root:" >&2; \
	  echo '  export PATH="$$(scripts/node-lines.sh bin 24):$$PATH"' >&2; \
	  exit 2; }

install:
	npm ci

# Every library to packages/<name>/dist (tsc -b), the gen-card-api CLI bundled with its assets.
build:
	npm run build

# Every package as the tarball a registry would serve, into packs/ (npm install ./packs/<name>.tgz until they are published).
pack: build
	npm run pack

lint:
	npm run lint

generate:
	npm run generate

check:
	npm run check

# What CI runs on Node 24 (then test-lines on 22 and 26): spec lint, generated-output drift check, the spec diff
# against the release, the whole vitest suite (its typecheck is tsc over the repository), and the packages built and
# proven as a stranger gets them through a real registry; side by side, one line per check that passes, ending on the
# total (scripts/test.ts). It runs on the `node` first on PATH.
test: node-check
	@npm run --silent test:all

# Publishes every package to a local Verdaccio and installs, compiles and runs them outside the repository.
test-registry: build
	npm run test:registry

# The other supported Node lines (22 and 26, from the npm registry; `make test` covers the line on PATH): the build,
# then on each the registry phase and 50 sandbox start/stop cycles. The same script CI runs (scripts/node-lines.sh).
test-lines:
	@scripts/node-lines.sh test

bench:
	npm run bench

# The main job for a newcomer: install if needed, then the whole flow against the in-process sandbox.
demo: node-check
	@test -f node_modules/.package-lock.json || npm ci --no-audit --no-fund
	@npm run --silent demo
