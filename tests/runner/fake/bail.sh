# Bails out after a case, exit 2.
echo "ok 1 - one"
echo "Bail out! the database is gone"
exit 2
