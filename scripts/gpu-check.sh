#!/usr/bin/env bash
# Makes the GPU check's bundle: everything a bare x86-64 CUDA node (nvcc and CMake, but no Node,
# no npm, no network) needs to build the addon and run the check (test/gpu/check.ts).
#
#   bash scripts/gpu-check.sh --bundle [DIR] [--no-tsc]     (DIR: .gpu-bundle, git-ignored)
#
# then, on the GPU node, from a copy of DIR:  bash DIR/run.sh
#
# DIR gets run.sh (scripts/gpu-check-run.sh), node.xz (this machine's Node binary, xz-compressed,
# cached by checksum under node_modules/.cache) and ttg-gpu.tar.xz (package.json, the compiled
# dist/, the native sources, the test fixtures, the runtime and test JS dependencies, and Node's
# libuv headers, which the addon's build needs). Fails if DIR would exceed 58 MiB.
set -euo pipefail

LIMIT_BYTES=$((58 * 1024 * 1024))
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=""
tsc=1
mode=""
for a in "$@"; do
  case "$a" in
    --bundle) mode=bundle ;;
    --no-tsc) tsc=0 ;;
    -*) echo "gpu-check: unknown option $a" >&2; exit 2 ;;
    *) dir=$a ;;
  esac
done
if [ "$mode" != bundle ]; then
  echo "usage: bash scripts/gpu-check.sh --bundle [DIR] [--no-tsc]   (then on the GPU node: bash DIR/run.sh)" >&2
  exit 2
fi
dir=${dir:-$root/.gpu-bundle}
cd "$root"

node_bin=$(command -v node) || { echo "gpu-check: node not found" >&2; exit 1; }
node_bin=$(readlink -f "$node_bin")
[ "$tsc" = 1 ] && npx tsc -p tsconfig.json
[ -f dist/test/gpu/check.js ] || { echo "gpu-check: dist/ is missing: run npx tsc -p tsconfig.json" >&2; exit 1; }

# Node, compressed once per binary: xz of ~100 MB takes ~25 s on two cores.
cache=$root/node_modules/.cache/ttg-gpu-check
mkdir -p "$cache"
sum=$(sha256sum "$node_bin" | cut -c1-16)
node_xz=$cache/node-$sum.xz
if [ ! -f "$node_xz" ]; then
  xz -T0 -6 -c "$node_bin" > "$node_xz.tmp" && mv "$node_xz.tmp" "$node_xz"
fi
uv_dir=$(dirname "$node_bin")/../include/node
[ -f "$uv_dir/uv.h" ] || uv_dir=/usr/include/node
[ -f "$uv_dir/uv.h" ] || { echo "gpu-check: uv.h not found beside $node_bin or in /usr/include/node" >&2; exit 1; }

stage=$(mktemp -d "${TMPDIR:-/tmp}/ttg-gpu-stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
app=$stage/ttg-gpu
mkdir -p "$app/.node/include/node" "$app/test/fixtures"
cp package.json "$app/"
# the native sources (cmake-js reads native/package.json: Node-API headers from node_modules)
tar -cf - native/CMakeLists.txt native/package.json native/src native/include native/bench | tar -xf - -C "$app"
cp -r test/fixtures/kernels "$app/test/fixtures/"
# the compiled JS, without maps and declarations
(cd dist && find src test bench examples -name '*.js' -print0 | tar --null -cf - -T -) | (mkdir -p "$app/dist" && tar -xf - -C "$app/dist")
cp -r "$uv_dir/uv.h" "$uv_dir/uv" "$app/.node/include/node/"
# JS dependencies: the runtime ones (cmake-js builds the addon) and what the suites run with
"$node_bin" scripts/gpu-check-deps.mjs > "$stage/modules"
(tar -cf - --exclude='node_modules/.cache' --exclude='*.md' --exclude='*.map' --exclude='*.d.ts' -T "$stage/modules") | tar -xf - -C "$app"
git -C "$root" log -1 --format='%H %s' > "$app/COMMIT" 2>/dev/null || echo unknown > "$app/COMMIT"
"$node_bin" -v > "$app/NODE_VERSION"

mkdir -p "$dir"
rm -f "$dir/ttg-gpu.tar.xz" "$dir/node.xz" "$dir/run.sh"
tar -cf - -C "$stage" ttg-gpu | xz -T0 -6 > "$dir/ttg-gpu.tar.xz"
cp "$node_xz" "$dir/node.xz"
cp scripts/gpu-check-run.sh "$dir/run.sh"
bytes=$(du -cb "$dir"/run.sh "$dir"/node.xz "$dir"/ttg-gpu.tar.xz | tail -1 | cut -f1)
echo "gpu-check: bundle $dir: $(( bytes / 1024 / 1024 )) MiB ($bytes bytes; limit $LIMIT_BYTES), node $("$node_bin" -v), $(cut -c1-12 "$app/COMMIT")"
if [ "$bytes" -gt "$LIMIT_BYTES" ]; then
  echo "gpu-check: the bundle exceeds $((LIMIT_BYTES / 1024 / 1024)) MiB" >&2
  exit 1
fi
