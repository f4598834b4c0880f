"""Prints pytest's JUnit XML report (argv[1]) as TAP test points, one per
pytest test, for tests/python.sh: "ok", "not ok" with the failure's text
as comments, or "ok ... # SKIP reason", numbered after argv[2] (the test
points the shell test printed before; default 0). Prints no plan line (the
shell test's done_testing does)."""

import sys
import xml.etree.ElementTree as ET

n = int(sys.argv[2]) if len(sys.argv) > 2 else 0
for case in ET.parse(sys.argv[1]).iter("testcase"):
    n += 1
    name = "python: %s::%s" % (case.get("classname", "").rsplit(".", 1)[-1], case.get("name"))
    bad = case.find("failure")
    if bad is None:
        bad = case.find("error")
    skipped = case.find("skipped")
    if bad is not None:
        print("not ok %d - %s" % (n, name))
        for line in ((bad.get("message") or "") + "\n" + (bad.text or "")).splitlines()[-30:]:
            print("# " + line)
    elif skipped is not None:
        reason = (skipped.get("message") or "skipped").replace("\n", " ")
        print("ok %d # SKIP %s: %s" % (n, name, reason))
    else:
        print("ok %d - %s" % (n, name))
