# contrib/trials/lib.sh: run one command bare and under heapprof's modes,
# and print a table comparing stdout, exit status and wall time.
#
# Sourced by the trial scripts beside it.  Each trial calls
#
#     trial NAME [--filter CMD] [--timeout S] -- [--modes "M..."] COMMAND [ARG]...
#
# which runs COMMAND four ways, each under timeout(1) (status 124 is a hang):
#
#     bare      COMMAND as it is
#     default   LD_PRELOAD=libheapprof.so (the default rate, lg_prof_sample:19)
#     exact     LD_PRELOAD=libheapprof.so HEAPPROF_CONF=lg_prof_sample:0
#     check     heapprof check -- COMMAND  (the leak gate: exact, reachability)
#     exact-lu  exact with prof_unwinder:libunwind (only when MODES names it:
#               every stack walked by libunwind, as the fast unwinder's
#               fallback does for the stacks it cannot walk)
#
# and prints one row per mode: status, seconds, whether stdout equals the bare
# run's (after --filter, a shell command that normalises it, e.g. sorts lines
# or removes PIDs), and the first line heapprof or the program wrote on
# stderr that the bare run did not.  REPEAT=N runs every mode N times (races);
# MODES="bare exact" runs only some.  Outputs stay in $TRIAL_OUT (default a
# directory under ${TMPDIR:-/tmp}) for a closer look.
#
# heapprof check's own exit status is the command's when that failed, else
# 23 when a counted process leaked: a 23 under check is the gate speaking,
# not a change in the host (the table says "gate" then).

set -u
TRIALS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$TRIALS_DIR/../.." && pwd)
HP_BUILD=${HP_BUILD:-$ROOT/build}
HP_LIB=$HP_BUILD/libheapprof.so
HP_CMD=$HP_BUILD/heapprof
REPEAT=${REPEAT:-1}
MODES=${MODES:-bare default exact check}
TIMEOUT=${TIMEOUT:-60}
: "${TRIAL_OUT:=${TMPDIR:-/tmp}/heapprof-trials.$(id -u)}"
mkdir -p "$TRIAL_OUT"
[ -e "$HP_LIB" ] || { echo "no $HP_LIB: make first" >&2; exit 2; }

# Work in a scratch directory so that dumps and verdict files land there.
trial_scratch() {
    local d="$TRIAL_OUT/$1.work"
    mkdir -p "$d"
    printf '%s' "$d"
}

_run_mode() { # mode timeout outprefix -- cmd...
    local mode=$1 to=$2 out=$3; shift 4
    local t0 t1 rc
    t0=$(date +%s.%N)
    case $mode in
    bare)    timeout -k 5 "$to" "$@" >"$out.stdout" 2>"$out.stderr" </dev/null ;;
    default) LD_PRELOAD=$HP_LIB timeout -k 5 "$to" "$@" >"$out.stdout" 2>"$out.stderr" </dev/null ;;
    exact)   LD_PRELOAD=$HP_LIB HEAPPROF_CONF=lg_prof_sample:0 \
             timeout -k 5 "$to" "$@" >"$out.stdout" 2>"$out.stderr" </dev/null ;;
    exact-lu) LD_PRELOAD=$HP_LIB HEAPPROF_CONF=lg_prof_sample:0,prof_unwinder:libunwind \
             timeout -k 5 "$to" "$@" >"$out.stdout" 2>"$out.stderr" </dev/null ;;
    check)   timeout -k 5 "$to" "$HP_CMD" check -- "$@" >"$out.stdout" 2>"$out.stderr" </dev/null ;;
    esac
    rc=$?
    t1=$(date +%s.%N)
    echo "$rc $(echo "$t1 - $t0" | bc -l | xargs printf '%.2f')"
}

# trial NAME [--filter CMD] [--timeout S] -- [--modes "M..."] COMMAND...
trial() {
    local name=$1; shift
    local filter=cat to=$TIMEOUT
    while [ $# -gt 0 ]; do
        case $1 in
        --filter) filter=$2; shift 2 ;;
        --timeout) to=$2; shift 2 ;;
        --) shift; break ;;
        *) echo "trial: bad option $1" >&2; return 2 ;;
        esac
    done
    local modes=$MODES
    if [ "${1:-}" = --modes ]; then modes=$2; shift 2; fi
    local base="$TRIAL_OUT/$name" bare_rc="" i mode r rc secs same note verdict
    printf '\n== %s: %s\n' "$name" "$*"
    printf '%-8s %-3s %6s %8s  %-6s %s\n' mode run status seconds stdout "verdict / first new stderr line"
    for i in $(seq 1 "$REPEAT"); do
        for mode in $modes; do
            r=$(_run_mode "$mode" "$to" "$base.$mode.$i" -- "$@")
            rc=${r% *}; secs=${r#* }
            sh -c "$filter" <"$base.$mode.$i.stdout" >"$base.$mode.$i.norm" 2>/dev/null
            if [ "$mode" = bare ] && [ "$i" = 1 ]; then bare_rc=$rc; fi
            if [ -e "$base.bare.1.norm" ] && cmp -s "$base.bare.1.norm" "$base.$mode.$i.norm"; then
                same=same
            else
                same=DIFF
            fi
            note=$(grep -vxF -f "$base.bare.1.stderr" "$base.$mode.$i.stderr" 2>/dev/null | head -1 | cut -c1-90)
            [ -s "$base.bare.1.stderr" ] || note=$(head -1 "$base.$mode.$i.stderr" | cut -c1-90)
            verdict=OK
            if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then verdict=HANG
            elif [ "$rc" -gt 128 ] && [ "$rc" != "${bare_rc:-x}" ]; then verdict=CRASH
            elif [ "$mode" = check ] && [ "$rc" = 23 ] && [ "${bare_rc:-x}" = 0 ]; then verdict=gate
            elif [ "$rc" != "${bare_rc:-x}" ] || [ "$same" = DIFF ]; then verdict=DIFFERS
            fi
            printf '%-8s %-3s %6s %8s  %-6s %-7s %s\n' "$mode" "$i" "$rc" "$secs" "$same" "$verdict" "$note"
        done
    done
}
