#!/bin/sh
# Headless Chromium (Debian's /usr/bin/chromium, from make deps) on a page
# shipped here (t/real/page.html, read from disk: no network), bare, at the
# default rate, in exact mode and under heapprof check:
#   dump-dom     --dump-dom: the document after its script ran, on stdout
#   screenshot   --screenshot at 800x600: a PNG, read back by t/real/png.py
# Each run gets a fresh --user-data-dir and the flags that keep Chromium
# off the network and away from a GPU.  Held to the bare run: the status,
# the DOM byte for byte, the PNG's dimensions and, separately, its pixels
# (decoded: the SHA-256 of the rows); and no FATAL line on standard error
# that the bare run did not print.  The rest of Chromium's standard error
# (D-Bus complaints with times and pids) is not compared.  Chromium, under
# /usr/lib, is not a process heapprof check counts: the gate's status is
# the browser's.
#
# Chromium's zygote forks the renderers and refuses to do so from a
# process with more than one thread (it dies with SIGTRAP; the browser says
# "Did not receive ping from zygote child" and aborts with status 134).  A
# library that starts a thread of its own at start-up fails here.
#
# Diagnostics, never assertions: the same two invocations with
# --single-process and with --no-zygote (REAL_CHROMIUM_VARIANTS, empty for
# none), each compared with its own bare run; the result goes to the
# summary.  Every run is under timeout -s KILL (REAL_CHROMIUM_TIMEOUT
# seconds, default 120; the whole process group goes): a hang is a status
# of 137 that differs from bare.
. "$(dirname "$0")/driver.sh"

CHROMIUM=/usr/bin/chromium
PY=/usr/bin/python3
[ -x "$CHROMIUM" ] && [ -x "$PY" ] || { echo "Bail out! $CHROMIUM or $PY is missing: run make deps"; exit 1; }
TMO=${REAL_CHROMIUM_TIMEOUT:-120}
VARIANTS=${REAL_CHROMIUM_VARIANTS---single-process --no-zygote}
PAGE=file://$_real_t/page.html
FLAGS="--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
--disable-background-networking --disable-component-update --disable-sync
--hide-scrollbars --window-size=800,600"
plan 12

# browse NAME MODE WHAT [FLAG...]: one run of Chromium; WHAT is dom or
# shot.  Leaves NAME.MODE.res (status, DOM or the PNG's size, FATAL lines)
# and, for shot, NAME.MODE.png and NAME-pixels.MODE.res.
browse() {
	_n=$1 _m=$2 _w=$3
	shift 3
	_ud=$T_DIR/profiles/$_n.$_m
	rm -rf "$_ud" "$REAL_OUT/$_n.$_m.png"
	mkdir -p "$_ud"
	case $_w in
	dom) set -- "$@" --dump-dom ;;
	shot) set -- "$@" --screenshot="$REAL_OUT/$_n.$_m.png" ;;
	esac
	# The flags are words on purpose.
	# shellcheck disable=SC2086
	real_run "$_n" "$_m" timeout -s KILL "$TMO" "$CHROMIUM" $FLAGS --user-data-dir="$_ud" "$@" "$PAGE"
	_o=$REAL_OUT/$_n.$_m
	{
		echo "status $(cat "$_o.rc")"
		echo "FATAL lines: $(grep -c ':FATAL:' "$_o.err")"
		case $_w in
		dom) cat "$_o.out" ;;
		shot) "$PY" "$_real_t/png.py" "$_o.png" | sed 's/ pixels .*//' ;;
		esac
	} >"$_o.res"
	if [ "$_w" = shot ]; then
		"$PY" "$_real_t/png.py" "$_o.png" | sed 's/.* pixels /pixels /' >"$REAL_OUT/$_n-pixels.$_m.res"
	fi
	rm -rf "$_ud"
}

chr_times() {
	real_time "$1" "$(cat "$REAL_OUT/$1.bare.ms")" "$(cat "$REAL_OUT/$1.default.ms")" \
		"$(cat "$REAL_OUT/$1.exact.ms")" ${2:+"$(cat "$REAL_OUT/$1.check.ms")"}
}

for m in $REAL_MODES check; do
	browse dump-dom "$m" dom
	browse screenshot "$m" shot
done
# The bare screenshot once more: are the pixels the same from run to run?
browse screenshot-again bare shot
chr_times dump-dom check
chr_times screenshot check

# The bare runs themselves: what the others are held to.
like "$(cat "$REAL_OUT/dump-dom.bare.rc") $(tr '\n' ' ' <"$REAL_OUT/dump-dom.bare.out")" \
	'^0 <!DOCTYPE html>.*<p id="stats">primes below 200,000: 17,984; words 60,000' \
	"bare: --dump-dom exits 0 with the document its script built"
is "$(sed -n '1p;3p' "$REAL_OUT/screenshot.bare.res" | tr '\n' ' ')" "status 0 800x600 depth 8 colour 2 " \
	"bare: --screenshot exits 0 with an 800x600 PNG"
cmp -s "$REAL_OUT/screenshot-pixels.bare.res" "$REAL_OUT/screenshot-again-pixels.bare.res"
ok $? "bare: two screenshots have the same pixels"

real_compare dump-dom "status, the DOM, no FATAL line" "default exact check"
real_compare screenshot "status, the PNG's size, no FATAL line" "default exact check"
real_compare screenshot-pixels "the PNG's pixels" "default exact check"
for m in default exact check; do
	cmp -s "$REAL_OUT/screenshot-pixels.bare.res" "$REAL_OUT/screenshot-pixels.$m.res" ||
		[ ! -s "$REAL_OUT/screenshot.$m.png" ] ||
		real_diag "screenshot, $m: $("$PY" "$_real_t/png.py" "$REAL_OUT/screenshot.bare.png" "$REAL_OUT/screenshot.$m.png")"
done

# Why a preloaded run failed: the zygote's death, as the browser tells it.
for m in default exact check; do
	for n in dump-dom screenshot; do
		z=$(grep -c 'Did not receive ping from zygote child' "$REAL_OUT/$n.$m.err")
		f=$(grep -o ':FATAL:.*' "$REAL_OUT/$n.$m.err" | head -n 1)
		[ "$z" -eq 0 ] && [ -z "$f" ] && continue
		real_diag "$n, $m: status $(cat "$REAL_OUT/$n.$m.rc"); 'Did not receive ping from zygote child' $z times${f:+; first FATAL: $f}"
	done
done

# The variants, compared with their own bare runs: diagnostics only.
for v in $VARIANTS; do
	for m in $REAL_MODES; do
		browse "dump-dom$v" "$m" dom "$v"
		browse "screenshot$v" "$m" shot "$v"
	done
	for n in "dump-dom$v" "screenshot$v" "screenshot$v-pixels"; do
		line="variant $v, $n:"
		for m in default exact; do
			if cmp -s "$REAL_OUT/$n.bare.res" "$REAL_OUT/$n.$m.res"; then
				line="$line $m as bare;"
			else
				line="$line $m DIFFERS ($(head -n 1 "$REAL_OUT/$n.$m.res"), bare $(head -n 1 "$REAL_OUT/$n.bare.res"));"
			fi
		done
		real_fact "$line"
	done
	chr_times "dump-dom$v"
	chr_times "screenshot$v"
done

real_fact "chromium: $("$CHROMIUM" --version 2>/dev/null)"
for m in $REAL_MODES check; do
	real_fact "$m: statuses dump-dom $(cat "$REAL_OUT/dump-dom.$m.rc"), screenshot $(cat "$REAL_OUT/screenshot.$m.rc");" \
		"FATAL lines $(cat "$REAL_OUT"/dump-dom.$m.err "$REAL_OUT"/screenshot.$m.err | grep -c ':FATAL:');" \
		"heapprof's lines:$(cat "$REAL_OUT/dump-dom.$m.err" "$REAL_OUT/screenshot.$m.err" |
			grep -e '^<heapprof>: ' -e '^heapprof check: ' | sed -E 's/pid [0-9]+/pid N/' |
			sort | uniq -c | awk '{ $1 = $1; printf " [%s]", $0 }')"
done
real_summary
done_testing
