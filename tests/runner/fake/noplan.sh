# Two cases, no plan.
echo "ok 1 - one"
echo "ok 2 - two"
