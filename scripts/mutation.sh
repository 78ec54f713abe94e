#!/usr/bin/env bash
# Mutation testing (PIT, Maven profile "mutation"): mutates token, budget, gateway.metering and
# gateway.pricing (subpackages included), runs their fast tests against every mutant, prints the score per
# package and in total, and fails when the total is below 90 % (PIT's mutationThreshold). Report:
# target/pit-reports/index.html. Extra arguments go to Maven, e.g. to mutate one feature while working on it:
#   scripts/mutation.sh -DtargetClasses='app.talkide.controlplane.budget.*' -DtargetTests='app.talkide.controlplane.budget.*'
set -euo pipefail
cd "$(dirname "$0")/.."

# PIT starts its test JVMs on the JVM that runs Maven (it ignores Maven toolchains), and the classes are
# compiled for Java 21: run Maven on a JDK 21+.
source scripts/lib/java.sh
JAVA_HOME="$(java_home)"
export JAVA_HOME
echo "mutation: Maven and PIT on $JAVA_HOME"

rm -f target/pit-reports/mutations.xml # a report left by an earlier run must not pass for this one
rc=0
./mvnw -B -ntp -Pmutation -Djacoco.skip=true test-compile org.pitest:pitest-maven:mutationCoverage "$@" || rc=$?

report=target/pit-reports/mutations.xml
if [ ! -f "$report" ]; then
  echo "mutation: PIT wrote no report ($report)" >&2
  exit $(( rc == 0 ? 1 : rc ))
fi
# A mutant counts as killed when PIT says detected (killed, timed out, memory or run error): the score PIT
# holds to mutationThreshold. Survivors and uncovered mutants are listed so the log says what to test.
python3 - "$report" <<'EOF'
import sys, xml.etree.ElementTree as ET
from collections import defaultdict
base = "app.talkide.controlplane."
counts = defaultdict(lambda: [0, 0])
missed = []
for m in ET.parse(sys.argv[1]).getroot():
    cls = m.findtext("mutatedClass")
    pkg = cls.rsplit(".", 1)[0].removeprefix(base)
    detected = m.get("detected") == "true"
    counts[pkg][0] += detected
    counts[pkg][1] += 1
    if not detected:
        missed.append(f"  {m.get('status'):<12} {cls.removeprefix(base)}:{m.findtext('lineNumber')} "
                      f"{m.findtext('description')}")
for line in sorted(missed):
    print(line)
print(f"{'package':<32} {'killed':>7} {'mutants':>7} {'score':>6}")
for pkg in sorted(counts):
    killed, total = counts[pkg]
    print(f"{pkg:<32} {killed:>7} {total:>7} {100 * killed / total:>5.1f}%")
killed = sum(c[0] for c in counts.values())
total = sum(c[1] for c in counts.values())
print(f"{'total':<32} {killed:>7} {total:>7} {100 * killed / total:>5.1f}%  (threshold 90%)")
EOF
exit $rc
