# Shared by the MPI test scripts (sourced): skip (77) unless crfpipe was
# built with MPI and mpirun is there; run jobs of a few ranks on this one
# machine.
set -eu
: "${CRFPIPE:?run through make check}"
: "${top_srcdir:?run through make check}"
if ! "$CRFPIPE" --version | grep -q 'MPI'; then
    echo "SKIP: crfpipe was built without MPI (configure --with-mpi; ./quickstart check does)"
    exit 77
fi
if ! command -v mpirun >/dev/null 2>&1; then
    echo "SKIP: no mpirun in PATH (Debian: apt-get install openmpi-bin)"
    exit 77
fi
# Open MPI refuses root unless told; tests run as whoever runs make check.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Waiting ranks yield the CPU: the test machine may have fewer cores than
# ranks, and busy-polling ranks would starve the one that computes.
export OMPI_MCA_mpi_yield_when_idle=1
# Only the local machine, whatever the network looks like.
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
tmp=$(mktemp -d "${TMPDIR:-/tmp}/crfpipe-mpi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
finish() {
    if [ "$fails" -gt 0 ]; then echo "$fails failure(s)" >&2; exit 1; fi
    exit 0
}
# mpi N CMD...: run CMD as N ranks, at most 5 minutes.
mpi() {
    local n=$1
    shift
    timeout 300 mpirun --oversubscribe -np "$n" "$@"
}
DATA=$top_srcdir/tests/data/ewt-sample.conllu
TPL=$top_srcdir/samples/pos/pos.tpl
# objectives FILE: the per-iteration objectives of a --verbose run's log.
objectives() { sed -n 's/^iter \([0-9]*\) objective \([^ ]*\).*$/\1 \2/p' "$1"; }
# same_trajectory A B TOL N: the first N objectives agree to TOL, relative.
same_trajectory() {
    objectives "$1" >"$tmp/oa"
    objectives "$2" >"$tmp/ob"
    local na nb
    na=$(wc -l <"$tmp/oa")
    nb=$(wc -l <"$tmp/ob")
    if [ "$na" -lt "$4" ] || [ "$nb" -lt "$4" ]; then
        fail "trajectories too short: $na and $nb iterations, wanted $4"
        return
    fi
    if ! join "$tmp/oa" "$tmp/ob" | head -n "$4" | awk -v tol="$3" '
        { d = $2 - $3; if (d < 0) d = -d; s = $2 < 0 ? -$2 : $2;
          r = s > 0 ? d / s : d; if (r > m) m = r;
          if (r > tol) { printf "iteration %d: %s vs %s (relative %.3g)\n", $1, $2, $3, r; bad = 1 } }
        END { printf "largest relative difference %.3g\n", m; exit bad }'; then
        fail "objective trajectories differ by more than $3"
    fi
}
# layout MODEL: the model dump without weights (labels, features, and
# which weights exist, in order).
layout() { "$CRFPIPE" model dump "$1" | awk '/^[UB]\t/ { sub(/\t[^\t]*$/, "") } { print }'; }
