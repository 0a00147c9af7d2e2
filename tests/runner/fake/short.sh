# Plans 5 cases, runs 3.
echo "1..5"
echo "ok 1 - one"
echo "ok 2 - two"
echo "ok 3 - three"
