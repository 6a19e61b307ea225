#!/usr/bin/env bash
# Copy seeds from the conformance corpus (tests/corpus) into
# fuzz/corpus/<target>/ (not committed; libFuzzer grows these directories).
# Usage: fuzz/seed_corpus.sh [target...]   (default: every target)
set -euo pipefail
cd "$(dirname "$0")"
corpus=../tests/corpus
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(chunk_decode frame_open frame_edit b2nd_frame schunk_ops roundtrip differential recordio_scanner plugin_chunks)

seed() { # seed <target> <file>...
  local dir=corpus/$1
  shift
  mkdir -p "$dir"
  for f in "$@"; do
    [ -f "$f" ] && cp "$f" "$dir/$(echo "${f#$corpus/}" | tr / _)"
  done
  return 0
}

for t in "${targets[@]}"; do
  case $t in
    chunk_decode)
      seed "$t" "$corpus"/chunks/* "$corpus"/blosc1/* "$corpus"/malformed/*.chunk "$corpus"/malformed/*.blosc1 \
        "$corpus"/known_bugs/*.chunk "$corpus"/known_bugs/*.blosc1 "$corpus"/frames/*/*.chunk \
        "$corpus"/plugins/chunks/* ;;
    frame_open | frame_edit)
      seed "$t" "$corpus"/frames/* "$corpus"/frames/*/chunks.b2frame "$corpus"/b2nd/* \
        "$corpus"/malformed/*.b2frame "$corpus"/malformed/*.b2nd "$corpus"/known_bugs/*.b2frame \
        "$corpus"/plugins/b2nd/* ;;
    b2nd_frame)
      seed "$t" "$corpus"/b2nd/* "$corpus"/malformed/*.b2nd "$corpus"/plugins/b2nd/* ;;
    plugin_chunks)
      # The first bytes draw the plugin set-up, the rest is data: the
      # reference's plugin chunks and arrays make varied draws.
      seed "$t" "$corpus"/plugins/chunks/* "$corpus"/plugins/b2nd/* ;;
    recordio_scanner)
      seed "$t" ../tests/recordio/*.rio ../tests/recordio/*.grail-* ;;
    roundtrip | differential | schunk_ops)
      # Any bytes drive these; the first bytes pick the parameters.
      seed "$t" "$corpus"/chunks/00[0-4]* "$corpus"/frames/f0[1-3]* ;;
    *) echo "unknown target $t" >&2; exit 2 ;;
  esac
  # Findings kept as regression inputs are seeds too.
  [ -d "regressions/$t" ] && seed "$t" regressions/"$t"/*
  echo "$t: $(ls "corpus/$t" | wc -l) seeds"
done
