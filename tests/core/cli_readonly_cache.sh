#!/bin/bash
# A cache directory nobody can write to: PoCL then offers no device at all,
# and the message must say so instead of blaming the device spec.
#   cli_readonly_cache.sh STREAMCL WORKDIR   (exit 77 = skipped: needs root and setpriv
#   to run the command as an unprivileged user, since root may write anywhere)
streamcl=$1 work=$2
[ "$(id -u)" = 0 ] && command -v setpriv > /dev/null || { echo "needs root and setpriv"; exit 77; }
rm -rf "$work" && mkdir -p "$work/cache" && chmod 555 "$work/cache" || exit 2
out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups \
        env -u POCL_CACHE_DIR XDG_CACHE_HOME="$work/cache" HOME="$work/cache" \
        "$streamcl" reduce --device cpu --mib 1 2>&1)
rc=$?
echo "exit $rc: $out"
[ $rc -ne 0 ] || { echo "FAIL: exit status 0"; exit 1; }
grep -q "offered no device (PoCL does so when its kernel cache directory" <<< "$out" ||
  { echo "FAIL: the message does not name PoCL's cache directory"; exit 1; }
echo "cli_readonly_cache: 1 passed, 0 failed"
