# A skipped case among passing ones.
echo "ok 1 - one"
echo "ok 2 - the widget test # SKIP no widget here"
echo "ok 3 - three"
echo "1..3"
