# Thin wrappers over npm scripts: one entry per job.
.PHONY: install lint generate check test bench demo

install:
	npm ci

lint:
	npm run lint

generate:
	npm run generate

check:
	npm run check

# What CI runs: spec lint + typecheck, generated-output drift check, then the whole vitest suite.
test:
	npm run lint
	npm run check --if-present
	npm test

bench:
	npm run bench

# The main job for a newcomer: install if needed, then the whole flow against the in-process sandbox.
demo:
	@test -f node_modules/.package-lock.json || npm ci --no-audit --no-fund
	@npm run --silent demo
