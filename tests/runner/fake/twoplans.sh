echo "1..1"
echo "ok 1 - one"
echo "1..1"
