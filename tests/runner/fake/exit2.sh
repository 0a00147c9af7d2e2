# Prints every case it planned, all ok, then exits 2.
echo "1..2"
echo "ok 1 - one"
echo "ok 2 - two"
exit 2
