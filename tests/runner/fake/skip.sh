# Skipped cases among passing ones: lib.sh's form, cmocka's ("not ok N
# # SKIP name"), and a "#" in a description (escaped "\#") that is none.
echo "ok 1 - one"
echo "ok 2 - the widget test # SKIP no widget here"
echo "not ok 3 # SKIP test_needs_cupti"
echo 'ok 4 - a \# SKIP in a description'
echo "1..4"
