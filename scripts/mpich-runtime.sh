# The MPICH runtime that runs ferry's MPICH build across the emulated
# cluster's nodes (docs/cluster.md): MPICH 5.0.2 from PyPI's `mpich` wheel
# (hydra, libmpi.so.12 with the ch4 ofi and ucx netmods, libfabric, UCX).
# Debian's MPICH 4.0.2 hangs in MPI_Finalize across nodes; 4.2 and later do
# not. Programs built with Debian's mpicc.mpich link libmpich.so.12, the same
# ABI: the link libmpich.so.12 -> libmpi.so.12 beside the wheel's library
# lets them (and build/mpich/lib/libferry.so) run on it unchanged, with
# $MPICH_RT_LIB on LD_LIBRARY_PATH. Sourced, not run: scripts/deps.sh
# installs it, scripts/cluster.sh uses it.

MPICH_RT_VERSION=5.0.2
MPICH_RT_SHA256=8fed465ebff269ea2ebac179a25de02671ddf8df476e0f115be089015015cfd4
MPICH_RT=${FERRY_MPICH_RT:-/opt/ferry-deps/mpich-$MPICH_RT_VERSION}
MPICH_RT_LIB=$MPICH_RT/lib
MPICH_RT_MPIEXEC=$MPICH_RT/bin/mpiexec.hydra

# mpich_rt_present: the runtime is installed whole (the link is made last)
mpich_rt_present() {
  [ -x "$MPICH_RT_MPIEXEC" ] && [ -x "$MPICH_RT/bin/hydra_pmi_proxy" ] && [ -e "$MPICH_RT_LIB/libmpich.so.12" ]
}

# mpich_rt_install PYTHON: the pinned wheel (its hash checked) through pip
# into $MPICH_RT, then the ABI link. Debian's python puts a --prefix install
# under PREFIX/local unless DEB_PYTHON_INSTALL_LAYOUT=deb (other pythons
# ignore the variable).
mpich_rt_install() {
  local py=$1 req
  req=$(mktemp) || return 1
  echo "mpich==$MPICH_RT_VERSION --hash=sha256:$MPICH_RT_SHA256" >"$req"
  rm -rf "$MPICH_RT"
  DEB_PYTHON_INSTALL_LAYOUT=deb PIP_ROOT_USER_ACTION=ignore "$py" -m pip install -q --no-deps \
    --require-hashes --no-warn-script-location --prefix "$MPICH_RT" -r "$req"
  local rc=$?
  rm -f "$req"
  [ $rc -eq 0 ] && [ -f "$MPICH_RT_LIB/libmpi.so.12" ] || return 1
  ln -sfn libmpi.so.12 "$MPICH_RT_LIB/libmpich.so.12"
  mpich_rt_present
}
