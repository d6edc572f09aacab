# t/browser.sh -- driving a page in headless Chromium from a test (through
# t/browser.py).  Sourced by t/0470 and t/0472 after lib.sh.

# browse FILE [browser.py options]: runs the commands on stdin in Chromium;
# their answers, one per line, are in out (line N: $(at N)).
browse() {
	_f=$1
	shift
	timeout 300 python3 "$SRC/t/browser.py" "$@" "$_f" >out 2>berr
	_rc=$?
	[ $_rc -eq 0 ] || diag "browser.py $_f exited $_rc:" "$(cat berr)"
	return $_rc
}
at() { sed -n "${1}p" out; }
# near A B: A and B (numbers) differ by at most 1.
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(d <= 1 && d >= -1) }'; }
