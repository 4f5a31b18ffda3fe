# Where an install puts things. Both builds share one prefix
# (`make install PREFIX=/opt/ferry`), so each build gets a tree of its own,
# laid out like its build tree (bin/ beside lib/): its tools find ../lib and
# ../share/ferry from where they are, in the build tree and installed alike.
#
#   PREFIX/<flavor>/bin, lib, share/ferry     this build's tools, libferry, scripts
#   PREFIX/include, share/man, share/doc      one copy, the same from either build
#   PREFIX/<libdir>/pkgconfig/ferry-<flavor>.pc, <libdir>/cmake/ferry-<flavor>/
#   PREFIX/bin/<tool>.<flavor>                links, as Debian names mpicc.openmpi
set(FERRY_INSTALL_TREE "${FERRY_MPI_FLAVOR}" CACHE STRING "this build's folder under the install prefix")
set(FERRY_INSTALL_BINDIR "${FERRY_INSTALL_TREE}/bin")
set(FERRY_INSTALL_LIBDIR "${FERRY_INSTALL_TREE}/lib")
set(FERRY_INSTALL_DATADIR "${FERRY_INSTALL_TREE}/share/ferry")
# installed programs find libferry in ../lib, wherever the prefix is moved
set(CMAKE_INSTALL_RPATH "$ORIGIN/../lib")
