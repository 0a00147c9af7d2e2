# A suite in the language of tests/e2e/lib.sh, for the ONLY tests of
# tests/runner/selftest.sh. MARK and MARK2: files two cases create.
set -u
root=$(cd "$(dirname "$0")/../../.." && pwd)
. "$root/tests/e2e/lib.sh"
expect_stdout 0 "alpha one" "case alpha: prints alpha one" -- echo "alpha one"
then_stdout_contains "alpha one" "case beta, a follow-up: sees the output before it"
expect_exit 3 "case gamma: exit 3" -- sh -c 'exit 3'
check "case delta: a check" 0
expect_exit 0 "case side effect: touches MARK" -- touch "$MARK"
begin; [ -e "$MARK" ] || problem "no MARK"; finish "case epsilon: begin and finish, after the side effect"
expect_exit 0 "case eta: touches MARK2" -- touch "$MARK2"
check "case theta: a # SKIP in a description is no directive" 0
skip "case zeta: cannot run here" "no zeta"
done_testing
