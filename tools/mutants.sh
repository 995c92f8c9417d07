#!/usr/bin/env bash
# Mutation testing of cclab's core crates with cargo-mutants (https://mutants.rs).
# A periodic job, NOT part of CI: the whole of cclab-cc and cclab-sim takes hours, so it
# runs in shards that can go to different machines or different nights.
#
#   tools/mutants.sh                      # everything, shard 0/1 (hours)
#   tools/mutants.sh --shard 2/8          # the third of eight slices (shards count from 0)
#   tools/mutants.sh --file crates/cc/src/algorithms/reno.rs     # one file
#   tools/mutants.sh --list               # list the mutants, run nothing
#   tools/mutants.sh --iterate            # skip mutants caught in the previous run
#
# Any argument is passed on to `cargo mutants`. Settings (timeouts, excluded test-support
# code) are in .cargo/mutants.toml. Environment:
#   MUTANTS_PACKAGES  crates to mutate (default "cclab-cc cclab-sim")
#   MUTANTS_OUT       output folder (default target/mutants/<shard>); results in
#                     $MUTANTS_OUT/mutants.out/{caught,missed,timeout,unviable}.txt
#   MUTANTS_BUILD_TIMEOUT  seconds a mutant's build may take (default 600; cargo-mutants'
#                     own default is a multiple of the baseline build, which is a couple of
#                     seconds when incremental)
#   MUTANTS_JOBS      mutants built and tested at once (default 1; each needs its own copy
#                     of the tree and target folder)
#   MUTANTS_IN_PLACE  1: mutate this checkout in place instead of a scratch copy (faster: it
#                     reuses target/; for a throwaway CI checkout, refused on a dirty tree)
#
# Exit status is cargo-mutants': 0 all caught, 2 some missed, 3 some timed out, 4 the
# unmutated baseline failed. Missed mutants are the job's result, not a failure of the
# job; review them as docs/testing.md says.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! cargo mutants --version >/dev/null 2>&1; then
    echo "error: cargo-mutants is not installed; run: cargo install --locked cargo-mutants" >&2
    exit 1
fi

shard="0/1"
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --shard) shard="$2"; shift 2 ;;
        --shard=*) shard="${1#--shard=}"; shift ;;
        *) args+=("$1"); shift ;;
    esac
done

packages=()
for p in ${MUTANTS_PACKAGES:-cclab-cc cclab-sim}; do
    packages+=(--package "$p")
done

out="${MUTANTS_OUT:-target/mutants/shard-${shard/\//-of-}}"
mkdir -p "$out"

copy=(--jobs "${MUTANTS_JOBS:-1}")
if [ "${MUTANTS_IN_PLACE:-0}" = 1 ]; then
    if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
        echo "error: MUTANTS_IN_PLACE=1 mutates the working tree; commit or stash first" >&2
        exit 1
    fi
    copy=(--in-place)
fi

set -x
exec cargo mutants "${packages[@]}" --shard "$shard" --output "$out" "${copy[@]}" \
    --build-timeout "${MUTANTS_BUILD_TIMEOUT:-600}" \
    ${args[@]+"${args[@]}"}
