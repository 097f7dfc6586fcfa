#!/bin/sh
# Compiles the ns-3 validation programs against the ns3 wheel installed in a Python environment.
#   validation/ns3/build.sh PYTHON OUTDIR [PROGRAM]
# PYTHON: the interpreter whose site-packages holds the ns3 wheel (pip install ns3==3.44.post0).
# PROGRAM: wired_bottleneck (default), lte_uplink (LENA, issue 21) or lte_downlink (LENA, issue 41).
set -eu
PY=${1:-.venv/bin/python}
OUT=${2:-build/validation}
PROG=${3:-wired_bottleneck}
NS=$("$PY" -c 'import pathlib, sysconfig; print(pathlib.Path(sysconfig.get_paths()["purelib"]) / "ns3")')
test -d "$NS/include/ns3" || { echo "no ns-3 headers under $NS (pip install ns3==3.44.post0)" >&2; exit 1; }
LIB="$NS/lib64"
test -d "$LIB" || LIB="$NS/lib"
LIBS="-lns3.44-core -lns3.44-network -lns3.44-internet -lns3.44-point-to-point -lns3.44-applications"
case "$PROG" in
    wired_bottleneck) LIBS="$LIBS -lns3.44-traffic-control" ;;
    # The wheel's config-store library (a dependency of lte) calls GTK without listing it
    # as a dependency; those calls are never made, so undefined symbols in shared
    # libraries are allowed.
    lte_uplink | lte_downlink) LIBS="$LIBS -lns3.44-lte -lns3.44-mobility -Wl,--allow-shlib-undefined" ;;
    *) echo "unknown program $PROG (wired_bottleneck, lte_uplink or lte_downlink)" >&2; exit 1 ;;
esac
mkdir -p "$OUT"
# The wheel's libraries are a release build with logging and asserts compiled in;
# the programs use the same definitions (from the wheel's ns3Targets.cmake).
# shellcheck disable=SC2086 # LIBS is a list of words
${CXX:-g++} -std=c++20 -O2 -DNS3_BUILD_PROFILE_RELEASE -DNS3_LOG_ENABLE -DNS3_ASSERT_ENABLE \
    -I"$NS/include" "$(dirname "$0")/$PROG.cc" -o "$OUT/$PROG" \
    -L"$LIB" -Wl,-rpath,"$LIB" $LIBS
echo "built $OUT/$PROG"
