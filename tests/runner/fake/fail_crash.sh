# A failed case, then a crash: the signal still counts.
echo "not ok 1 - one"
echo "1..1"
kill -SEGV $$
