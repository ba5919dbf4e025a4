"""Every Catch test name must survive catch_discover_tests: CMake reads the
names as a list, and an unbalanced square bracket in one name swallows the
names after it, so those tests silently stop running under ctest (it happened:
"in [0, 1)" hid 300 tests). Usage: test_names_test.py MGSIM_TESTS_BINARY"""
import subprocess
import sys

names = subprocess.run([sys.argv[1], "--list-test-names-only"], capture_output=True,  # exit code: the count
                       text=True).stdout.splitlines()
bad = [n for n in names if n.count("[") != n.count("]")]
for name in bad:
    print(f"unbalanced square brackets in a test name (ctest would drop the names after it): {name}")
print(f"{len(names)} test names, {len(bad)} unbalanced")
sys.exit(1 if bad or not names else 0)
