#!/bin/bash
# Sandboxes: bubblewrap, unshare (user, pid, mount namespaces), firejail.
# The workload inside prints its pid namespace view and runs a small
# allocating program (sort of 20,000 lines).
. "$(dirname "$0")/lib.sh"
cd "$(trial_scratch sandboxes)"
W='seq 20000 | sort -r | md5sum; echo pid=$$; ls /proc/self/ns >/dev/null; echo done'
trial unshare-pid -- unshare -p -f --mount-proc sh -c "$W"
trial unshare-user -- unshare --user --map-root-user sh -c "$W"
trial unshare-user-pid -- unshare --user --map-root-user -p -f --mount-proc sh -c "$W"
trial unshare-net-ipc-uts --filter "grep -v ^pid=" -- unshare -n -i -u sh -c "$W"
if command -v bwrap >/dev/null; then
    trial bwrap -- bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --unshare-all --die-with-parent sh -c "$W"
    trial bwrap-userns -- bwrap --unshare-user --uid 1000 --ro-bind / / --dev /dev --proc /proc --unshare-pid sh -c "$W"
else echo "bwrap: not installed (apt-get install bubblewrap)"; fi
if command -v firejail >/dev/null; then
    trial firejail --filter 'grep -v "^Parent\|^Child\|^$"' -- firejail --quiet --noprofile sh -c "$W"
    trial firejail-seccomp -- firejail --quiet --noprofile --seccomp --private-tmp sh -c "$W"
else echo "firejail: not installed (apt-get install firejail)"; fi
