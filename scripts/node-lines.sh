#!/usr/bin/env bash
# The Node lines the project supports, from the npm registry: the official binary ships in the node-linux-<arch>
# package (bin/node, nothing else), so a machine with any npm gets every line without nvm, a download site or root.
# Each line is installed once into a cache outside the repository and reused.
#
#   scripts/node-lines.sh lines | main            prints the supported lines, or the one CI runs `make test` on
#   scripts/node-lines.sh bin <major>             prints the folder holding that line's `node` (installs it if needed):
#                                                 export PATH="$(scripts/node-lines.sh bin 24):$PATH"
#   scripts/node-lines.sh test [--no-build] [<major>...]
#                                                 the stranger phase (npm run test:registry: the packages installed from
#                                                 their tarballs in empty folders) and 50 sandbox start/stop cycles, on
#                                                 each line (default: the supported lines but MAIN_LINE, on which CI
#                                                 runs the whole `make test`). Builds first unless --no-build. Exit 1
#                                                 if any step failed.
#
# npm itself stays the machine's: its bin starts with `#!/usr/bin/env node`, so with a line first on PATH, npm, npx,
# vitest and every bin they start run on that line. The cache is $CARD_API_NODE_CACHE, by default
# ${XDG_CACHE_HOME:-~/.cache}/card-api-kit/node/<major>; delete a line's folder to take its newest release.
set -euo pipefail

SUPPORTED_LINES="22 24 26"
MAIN_LINE=24
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${CARD_API_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/card-api-kit/node}"

usage() {
  echo "usage: scripts/node-lines.sh lines | main | bin <major> | test [--no-build] [<major>...]  (supported lines: $SUPPORTED_LINES)" >&2
  exit 2
}

# npm's name for this machine's binary package.
binary_package() {
  local arch
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) arch=x64 ;;
    Linux-aarch64 | Linux-arm64) arch=arm64 ;;
    *)
      echo "scripts/node-lines.sh: the npm registry carries Node's current binaries for Linux x64 and arm64 only, not $(uname -s) $(uname -m); install Node $1 another way" >&2
      exit 2
      ;;
  esac
  echo "node-linux-$arch"
}

# The bin folder of Node <major>, installed into the cache if it is not there yet. Prints nothing else on stdout.
bin_dir() {
  local major=$1 package dir bin
  [[ "$major" =~ ^[0-9]+$ ]] || usage
  package="$(binary_package "$major")"
  dir="$CACHE/$major"
  bin="$dir/node_modules/$package/bin"
  if ! [ -x "$bin/node" ] || [ "$("$bin/node" -p 'process.versions.node.split(".")[0]' 2>/dev/null)" != "$major" ]; then
    # A folder this script did not make is never emptied: $CARD_API_NODE_CACHE may point anywhere.
    if [ -e "$dir" ] && ! [ -e "$dir/.card-api-node-line" ]; then
      echo "scripts/node-lines.sh: $dir exists and was not made by this script; remove it or set CARD_API_NODE_CACHE to another folder" >&2
      exit 2
    fi
    rm -rf "$dir"
    mkdir -p "$dir"
    touch "$dir/.card-api-node-line"
    echo "installing $package@$major from the npm registry into $dir" >&2
    # Its own package.json: without one npm would look for a project in the folders above.
    echo '{"private":true}' >"$dir/package.json"
    npm install --prefix "$dir" --no-save --no-package-lock --ignore-scripts --no-audit --no-fund --loglevel=error "$package@$major" >&2
  fi
  echo "$bin"
}

# Runs one step with Node <major> first on PATH; records it in $failed if it fails.
failed=""
step() {
  local major=$1 name=$2 bin
  shift 2
  echo "== Node $major: $name" >&2
  if ! bin="$(bin_dir "$major")" || ! PATH="$bin:$PATH" "$@"; then failed="$failed (Node $major: $name)"; fi
}

test_lines() {
  local build=1
  if [ "${1:-}" = "--no-build" ]; then
    build=0
    shift
  fi
  local lines=("$@")
  if [ ${#lines[@]} -eq 0 ]; then
    for major in $SUPPORTED_LINES; do [ "$major" = "$MAIN_LINE" ] || lines+=("$major"); done
  fi
  cd "$ROOT"
  # Every line first, so that a line the registry cannot give stops the run before any test.
  for major in "${lines[@]}"; do echo "Node $major: $("$(bin_dir "$major")/node" --version)" >&2; done
  # The registry phase installs what `make build` wrote; any line builds the same output.
  if [ "$build" = 1 ]; then npm run --silent build; fi
  for major in "${lines[@]}"; do
    step "$major" "stranger phase (npm run test:registry)" npm run --silent test:registry
    step "$major" "50 sandbox start/stop cycles (npm run cycles)" npm run --silent cycles -- --cycles 50
  done
  if [ -n "$failed" ]; then
    echo "failed:$failed" >&2
    return 1
  fi
  echo "passed on Node ${lines[*]}" >&2
}

case "${1:-}" in
  lines)
    [ $# -eq 1 ] || usage
    echo "$SUPPORTED_LINES"
    ;;
  main)
    [ $# -eq 1 ] || usage
    echo "$MAIN_LINE"
    ;;
  bin)
    [ $# -eq 2 ] || usage
    bin_dir "$2"
    ;;
  test)
    shift
    test_lines "$@"
    ;;
  --help | -h)
    sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'
    ;;
  *) usage ;;
esac
