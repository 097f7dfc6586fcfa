#!/bin/sh
# Compiles the ns-3 validation programs against the ns3 wheel installed in a Python environment.
#   validation/ns3/build.sh PYTHON OUTDIR
# PYTHON: the interpreter whose site-packages holds the ns3 wheel (pip install ns3==3.44.post0).
set -eu
PY=${1:-.venv/bin/python}
OUT=${2:-build/validation}
NS=$("$PY" -c 'import pathlib, sysconfig; print(pathlib.Path(sysconfig.get_paths()["purelib"]) / "ns3")')
test -d "$NS/include/ns3" || { echo "no ns-3 headers under $NS (pip install ns3==3.44.post0)" >&2; exit 1; }
LIB="$NS/lib64"
test -d "$LIB" || LIB="$NS/lib"
mkdir -p "$OUT"
# The wheel's libraries are a release build with logging and asserts compiled in;
# the programs use the same definitions (from the wheel's ns3Targets.cmake).
${CXX:-g++} -std=c++20 -O2 -DNS3_BUILD_PROFILE_RELEASE -DNS3_LOG_ENABLE -DNS3_ASSERT_ENABLE \
    -I"$NS/include" "$(dirname "$0")/wired_bottleneck.cc" -o "$OUT/wired_bottleneck" \
    -L"$LIB" -Wl,-rpath,"$LIB" \
    -lns3.44-core -lns3.44-network -lns3.44-internet -lns3.44-point-to-point \
    -lns3.44-traffic-control -lns3.44-applications
echo "built $OUT/wired_bottleneck"
