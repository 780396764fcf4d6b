#!/usr/bin/env bash
# Regenerates the SCIP dumps in testdata/scip/ from the fixture sources with the real indexers.
#
# Indexer versions used for the committed dumps:
#   scip-go          0.2.9  (go install github.com/scip-code/scip-go/cmd/scip-go@v0.2.9), go1.26
#   scip-typescript  0.4.0  (npm install -g @sourcegraph/scip-typescript@0.4.0), typescript 5.9
#   scip-python      0.6.6  (npm install -g @sourcegraph/scip-python@0.6.6), python 3.11
#
# Everything runs offline: no fixture has third-party dependencies, and scip-python is given an
# empty environment file so it does not query pip. Output paths given to scip-go are relative
# because scip-go records its arguments in the dump's metadata. The script leaves no files in the
# fixture directories; it fails if an indexer did.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out="$here/scip"
export PATH="$PATH:$(go env GOPATH)/bin"
export GOTOOLCHAIN=local GOPROXY=off GOFLAGS=

for tool in scip-go scip-typescript scip-python go python3; do
	command -v "$tool" >/dev/null || { echo "regen.sh: $tool not found on PATH (.ci/install-tools installs it)" >&2; exit 1; }
done

snapshot() { (cd "$here" && find goapp gobreak gowork tsworkspace pyproject | LC_ALL=C sort); }
before=$(snapshot)
mkdir -p "$out"

# Go: one module, pinned module and standard library versions (the defaults are the git
# revision and the local toolchain).
goflags=(--module-version=0.1.0 --go-version=go1.26.0 --quiet)
(cd "$here/goapp" && scip-go index "${goflags[@]}" --output ../scip/goapp.scip)
(cd "$here/gobreak" && scip-go index "${goflags[@]}" --output ../scip/gobreak.scip)

# Go workspace: one dump per module (each indexed on its own, as CI of a multi-module repository
# would), plus one dump of the whole go.work workspace indexed from its root.
for m in billing pricing user; do
	(cd "$here/gowork/$m" && GOWORK=off scip-go index "${goflags[@]}" --output "../../scip/gowork-$m.scip")
done
(cd "$here/gowork" && scip-go index "${goflags[@]}" --output ../scip/gowork.scip ./billing/... ./pricing/... ./user/...)

# TypeScript: the root tsconfig.json references the three packages, so scip-typescript indexes
# each of them as its own project (no pnpm install needed; @shop/* resolves through tsconfig paths).
scip-typescript index --cwd "$here/tsworkspace" --output "$out/tsworkspace.scip" --no-progress-bar >/dev/null

# Python: --cwd must be absolute (with --cwd . scip-python 0.6.6 writes an index with no documents).
envfile=$(mktemp)
trap 'rm -f "$envfile"' EXIT
echo '[]' >"$envfile"
scip-python index --cwd "$here/pyproject" --project-name shop --project-version 0.1.0 \
	--environment "$envfile" --output "$out/pyproject.scip" --quiet >/dev/null 2>&1

find "$here" -name __pycache__ -type d -prune -exec rm -rf {} +
after=$(snapshot)
if [ "$before" != "$after" ]; then
	echo "regen.sh: an indexer left files in the fixtures:" >&2
	diff <(echo "$before") <(echo "$after") >&2 || true
	exit 1
fi
ls -l "$out"
