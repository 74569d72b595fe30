#!/usr/bin/env bash
# Builds SeaweedFS's weed (the S3 server the tests run) into bin/weed from
# its module on the Go module proxy. `go install` refuses it (its go.mod
# has replace directives), so the module is copied out of the module cache
# and built as a main module. The build cache makes later runs quick.
set -euo pipefail
version=${WEED_VERSION:?WEED_VERSION}
out=${1:-bin/weed}
go=${GO:-go}
dir=$($go mod download -json "github.com/seaweedfs/seaweedfs@$version" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')
[ -n "$dir" ] || { echo "build-weed: module github.com/seaweedfs/seaweedfs@$version not found" >&2; exit 1; }
src=${TMPDIR:-/tmp}/loam-weed-src-$version
if [ ! -f "$src/.copied" ]; then
  rm -rf "$src"
  cp -r "$dir" "$src"
  chmod -R u+w "$src"
  touch "$src/.copied"
fi
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
echo "build-weed: building SeaweedFS $version into $out (a first build takes several minutes)"
(cd "$src" && GOFLAGS=-mod=mod $go build -o "$out.tmp" ./weed)
mv "$out.tmp" "$out"
