#!/bin/sh
# make deps on a busy machine: another apt holding its locks makes
# `apt-get update` fail at once; make deps tries again (DEPS_RETRY_SECONDS
# apart) and then installs. Run against a fake apt-get, dpkg-query and id
# on PATH, so nothing is installed. In the language of tests/e2e/lib.sh.
set -u
root=$(cd "$(dirname "$0")/../../.." && pwd)
. "$root/tests/e2e/lib.sh"
cd "$root" || exit 1

fake=$T/bin
mkdir -p "$fake"
# apt-get: "update" fails while $T/busy holds a number above 0 (counting
# down), and every call is logged with its arguments.
cat > "$fake/apt-get" <<'SH'
#!/bin/sh
echo "apt-get $*" >> "$FAKE_LOG"
case " $* " in
*" update "*)
	left=$(cat "$FAKE_BUSY")
	if [ "$left" -gt 0 ]; then
		echo $((left - 1)) > "$FAKE_BUSY"
		echo "E: Could not get lock /var/lib/apt/lists/lock" >&2
		exit 100
	fi ;;
esac
exit 0
SH
printf '#!/bin/sh\nexit 1\n' > "$fake/dpkg-query" # nothing is installed
printf '#!/bin/sh\necho 0\n' > "$fake/id"          # as root
chmod +x "$fake/apt-get" "$fake/dpkg-query" "$fake/id"
export FAKE_LOG="$T/log" FAKE_BUSY="$T/busy"

echo 2 > "$T/busy"
: > "$T/log"
PATH="$fake:$PATH" make --no-print-directory deps DEPS_PKGS=fake-pkg DEPS_RETRY_SECONDS=0 \
	> "$T/out" 2>&1
rc=$?
begin
[ "$rc" = 0 ] || problem "exit $rc: $(cat "$T/out")"
[ "$(grep -c ' update' "$T/log")" = 3 ] || problem "updates: $(cat "$T/log")"
grep -q 'install -y -q --no-install-recommends fake-pkg' "$T/log" || problem "no install: $(cat "$T/log")"
grep -q 'Lock::Timeout=600 install' "$T/log" || problem "install does not wait for dpkg's lock"
[ "$(grep -c 'apt is busy' "$T/out")" = 2 ] || problem "not said twice: $(cat "$T/out")"
finish "apt busy twice: make deps waits, then installs"

echo 100 > "$T/busy"
: > "$T/log"
PATH="$fake:$PATH" make --no-print-directory deps DEPS_PKGS=fake-pkg DEPS_RETRY_SECONDS=0 \
	> "$T/out" 2>&1
rc=$?
begin
[ "$rc" != 0 ] || problem "exit 0"
[ "$(grep -c ' update' "$T/log")" = 60 ] || problem "updates: $(grep -c ' update' "$T/log")"
grep -q ' install ' "$T/log" && problem "installed anyway"
finish "apt busy for good: make deps gives up after 60 tries, installing nothing"

done_testing
