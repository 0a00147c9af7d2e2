# A fine suite, plan last, one case failing: the suite says so by exit 1.
echo "ok 1 - one"
echo "not ok 2 - two"
echo "# two: why it failed"
echo "1..2"
exit 1
