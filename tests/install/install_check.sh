#!/usr/bin/env bash
# make install, tested from a build: both builds into one temporary prefix
# side by side, then with the build trees hidden (a private mount namespace
# lays an empty tmpfs over them where it can), an outside program built
# against this build's flavor with pkg-config and with CMake's find_package,
# run through the installed library; the installed tools run.
#   install_check.sh SRC BUILD FLAVOR VERSION [SIBLING_BUILD] -- LAUNCHER...
set -u
src=$(realpath "$1") build=$(realpath "$2") flavor=$3 version=$4 sibling=${5:-}
[ -n "$sibling" ] && [ -d "$sibling" ] && sibling=$(realpath "$sibling")
while [ $# -gt 0 ] && [ "$1" != "--" ]; do shift; done
shift
launcher=("$@")
work=$(mktemp -d /tmp/ferry-install-check.XXXXXX) || exit 2
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
fail=0
no() { echo "FAIL: $*"; fail=1; }

# 1. install this build, then the other one beside it: nothing of the first may change
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log"; no "install"; exit 1; }
(cd "$prefix" && find . -type f -exec sha256sum {} + | sort -k2) >"$work/first.sum"
others=()
if [ -n "$sibling" ] && [ -f "$sibling/CMakeCache.txt" ] && ls "$sibling"/lib/libferry.so* >/dev/null 2>&1; then
  other=$(sed -n 's/^FERRY_MPI_FLAVOR:STRING=//p' "$sibling/CMakeCache.txt")
  if [ -n "$other" ] && [ "$other" != "$flavor" ]; then
    cmake --install "$sibling" --prefix "$prefix" >>"$work/install.log" 2>&1 || no "install of the $other build"
    others+=("$other")
    (cd "$prefix" && sha256sum -c --quiet "$work/first.sum") || no "installing $other changed files of $flavor"
  fi
fi
[ ${#others[@]} -gt 0 ] || echo "note: no other build beside $build: one flavor installed"
for f in "${flavor}" "${others[@]}"; do
  for p in "$f/lib/libferry.so" "$f/bin/ferry-bench" "$f/bin/ferry-tune" "$f/bin/ferry-topo" "$f/bin/ferry-run" \
    "$f/bin/ferry-decouple-bench" "$f/share/ferry/ferry_topo_plot.py" "$f/share/ferry/ferry_plot_setup.py" \
    "bin/ferry-bench.$f" "include/ferry.h" "share/man/man7/ferry.7" "share/man/man1/ferry-tune.1" \
    "share/doc/ferry/LICENSE"; do
    [ -e "$prefix/$p" ] || no "$p is not installed"
  done
  pc=$(find "$prefix" -name "ferry-$f.pc")
  [ -n "$pc" ] || no "no ferry-$f.pc"
  [ -n "$(find "$prefix" -name "ferry-${f}Config.cmake")" ] || no "no CMake package ferry-$f"
done
pcdir=$(dirname "$(find "$prefix" -name "ferry-$flavor.pc" | head -1)")
# no build or source path in what the installed programs load or have compiled in
for elf in "$prefix"/*/bin/* "$prefix"/*/lib/libferry.so; do
  readelf -d "$elf" 2>/dev/null | grep -E 'RPATH|RUNPATH' | grep -qE "$build|$src" && no "$elf has a build-tree run path"
  objcopy -O binary --only-section=.rodata "$elf" "$work/rodata" 2>/dev/null &&
    grep -qaE "$build|${sibling:-/nonexistent}" "$work/rodata" && no "$elf has a build-tree path compiled in"
done

# 2. with the build trees hidden: an outside program, built two ways, through the installed library
cp -r "$src/tests/install/outside" "$work/outside"
cat >"$work/phase2.sh" <<PHASE2
set -u
cd "$work"
fail=0
no() { echo "FAIL: \$*"; fail=1; }
export PKG_CONFIG_PATH="$pcdir"
cc outside/outside.c \$(pkg-config --cflags --libs ferry-$flavor) -ldl -o out_pc >pc.log 2>&1 || { cat pc.log; no "pkg-config build"; }
cmake -S outside -B cm -DFERRY_FLAVOR=$flavor -DCMAKE_PREFIX_PATH="$prefix" >cm.log 2>&1 &&
  cmake --build cm >>cm.log 2>&1 || { cat cm.log; no "CMake find_package build"; }
for o in ${others[@]+"${others[@]}"}; do # the other flavor's package refuses this MPI by name
  cmake -S outside -B wrong -DFERRY_FLAVOR=\$o -DCMAKE_PREFIX_PATH="$prefix" -DMPI_C_COMPILER=mpicc.$flavor >wrong.log 2>&1 &&
    no "find_package(ferry-\$o) accepted $flavor's MPI"
  grep -q "ferry-\$o is built for" wrong.log || { cat wrong.log; no "no clear refusal of the wrong MPI"; }
done
run() { # EXE FILE
  local pass=()
  case "${launcher[0]}" in
    *mpich* | *hydra*) pass=(-genv FERRY_STATS_JSON "$work/\$2.json") ;;
    *) pass=(-x "FERRY_STATS_JSON=$work/\$2.json") ;;
  esac
  $(printf '%q ' "${launcher[@]}") -n 2 "\${pass[@]}" "./\$1" "$work/\$2" >"\$2.out" 2>&1 || { cat "\$2.out"; no "\$1 failed"; }
  grep -q "^outside: ferry $version ($flavor) from $prefix/$flavor/lib/libferry.so" "\$2.out" ||
    { cat "\$2.out"; no "\$1 did not go through the installed $flavor libferry"; }
  grep -q "\"file\":\"$work/\$2\"" "$work/\$2.json" 2>/dev/null || no "\$1: no ferry record of its file"
}
[ -x out_pc ] && run out_pc f_pc.dat
[ -x cm/outside_cmake ] && run cm/outside_cmake f_cm.dat
# the other flavor's installed library in this flavor's program: refused,
# naming this flavor's installed library (not a path of a build tree)
for o in ${others[@]+"${others[@]}"}; do
  case "${launcher[0]}" in
    *mpich* | *hydra*) pre=(-genv LD_PRELOAD "$prefix/\$o/lib/libferry.so") ;;
    *) pre=(-x "LD_PRELOAD=$prefix/\$o/lib/libferry.so") ;;
  esac
  $(printf '%q ' "${launcher[@]}") -n 1 "\${pre[@]}" "$prefix/$flavor/bin/ferry-bench" open -n 1 -o "$work/wrong.dat" >wrong_abi.out 2>&1
  grep -q "^ferry: error: .*: use the .* build of ferry ($prefix/$flavor/lib/libferry.so)\$" wrong_abi.out ||
    { cat wrong_abi.out; no "the \$o library in a $flavor program does not name $prefix/$flavor/lib/libferry.so"; }
done
# installed tools run from anywhere, by their links too
"$prefix/$flavor/bin/ferry-decouple-bench" --help >/dev/null 2>&1 || no "installed ferry-decouple-bench does not start"
"$prefix/bin/ferry-topo.$flavor" machines >/dev/null 2>&1 || no "installed ferry-topo does not run"
out=\$("$prefix/bin/ferry-tune.$flavor" --pattern ior --ranks 1 --mpiexec /bin/false --budget 1 2>&1)
echo "\$out" | grep -E "cannot run ferry-bench|no libferry at" && no "installed ferry-tune does not find its ferry-bench and libferry"
exit \$fail
PHASE2
hide=()
for d in ${sibling:+"$sibling"} "$build" "$src"; do # inner ones first: the source tree may hold the builds
  [ -d "$d" ] && hide+=("mount -t tmpfs ferry-hidden $(printf %q "$d")")
done
if unshare -m true 2>/dev/null && unshare -m bash -c "${hide[0]}" 2>/dev/null; then
  echo "build trees hidden (empty tmpfs over $build, $src${sibling:+, $sibling})"
  unshare -m bash -c "$(printf '%s && ' "${hide[@]}") bash $(printf %q "$work/phase2.sh")" || fail=1
else
  echo "note: cannot hide the build trees here (no private mount namespace); checked the run paths instead"
  bash "$work/phase2.sh" || fail=1
fi
[ $fail = 0 ] && echo "ok: $flavor installed beside ${others[*]:-nothing}, built outside with pkg-config and CMake, ran through $prefix"
exit $fail
