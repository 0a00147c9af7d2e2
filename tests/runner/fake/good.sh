# A fine suite, plan first.
echo "1..3"
echo "ok 1 - one"
echo "ok 2 - two"
echo "# a note"
echo "ok 3 - three"
