# Plans 2, runs 1, then dies of a signal (as a crashing unit test program).
echo "1..2"
echo "ok 1 - one"
kill -SEGV $$
