# shellcheck shell=bash
# Sourced by the command-line tests (tests/*/cli*.sh), the frame they share:
#   . "$(dirname "$0")/../cli_lib.sh"
#   cli_begin NAME "$1" "$2" [SUBDIR...]   STREAMCL and WORKDIR from ctest
#   ... ok TEXT / fail TEXT per case ...
#   cli_end                                 last: the summary line and status
# cli_begin checks the arguments (exit 2 with the usage), makes WORKDIR afresh
# with its SUBDIRs, and sets streamcl, work and the counts passed, failed.
cli_begin() {
    cli_name=$1 streamcl=$2 work=$3
    shift 3
    [ -x "$streamcl" ] && [ -n "$work" ] || { echo "usage: $0 STREAMCL WORKDIR"; exit 2; }
    rm -rf "$work" && mkdir -p "$work" || exit 2
    local sub
    for sub in "$@"; do mkdir -p "$work/$sub" || exit 2; done
    passed=0 failed=0
}
ok() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
# the line ctest's PASS_REGULAR_EXPRESSION looks for; non-zero on a failure
cli_end() {
    echo "$cli_name: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
