#!/usr/bin/env bash
# Byte identity of a full replay: a fresh embedded database, a synthetic federation, the full
# replay (timed), then `ratingdb export evaluations` hashed. Run it before and after a change
# that must not move a number; the two hashes must be equal.
# usage: scripts/export_hash.sh [--players N] [--years Y] [--seed S] [--ratingdb PATH] [--keep FILE]
# (--keep FILE: also write the export there, to diff two runs row by row)
set -eu
players=250000; years=17; seed=1; bin=ratingdb; keep=
while [ $# -gt 0 ]; do
  case "$1" in
    --players) players=$2; shift 2 ;;
    --years) years=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --ratingdb) bin=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
home=$(mktemp -d)
trap 'RATINGDB_HOME="$home" "$bin" db stop >/dev/null 2>&1; rm -rf "$home"' EXIT
export RATINGDB_HOME="$home"; unset DATABASE_URL
"$bin" db upgrade >/dev/null
"$bin" synth --players "$players" --years "$years" --seed "$seed" >/dev/null
t0=$(date +%s.%N)
"$bin" recalc --full --quiet >/dev/null
t1=$(date +%s.%N)
out=${keep:-$home/export.csv}
"$bin" export evaluations > "$out"
hash=$(sha256sum < "$out" | cut -d' ' -f1)
rows=$(wc -l < "$out")
echo "players=$players years=$years seed=$seed full_replay_s=$(python3 -c "print(round($t1 - $t0, 1))") rows=$rows sha256=$hash"
