# ferry: thin wrapper over CMake. Two builds, one per MPI ABI, side by side.
.PHONY: all deps build openmpi mpich install test demo bench clean pfs-up pfs-down pfs-status cluster-up cluster-down cluster-status

JOBS ?= $(shell nproc)
CMAKE_COMMON = -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo

all: build

deps: .deps.stamp
.deps.stamp: scripts/deps.sh scripts/mpich-runtime.sh
	bash scripts/deps.sh
	@touch $@

build: openmpi mpich

build/openmpi/build.ninja: .deps.stamp
	cmake -S . -B build/openmpi $(CMAKE_COMMON) \
	  -DCMAKE_C_COMPILER=gcc -DMPI_C_COMPILER=mpicc.openmpi \
	  -DFERRY_MPI_FLAVOR=openmpi -DFERRY_MPIEXEC=mpiexec.openmpi \
	  "-DFERRY_MPIEXEC_EXTRA=--oversubscribe" -DFERRY_TEST_RANKS=4

build/mpich/build.ninja: .deps.stamp
	cmake -S . -B build/mpich $(CMAKE_COMMON) \
	  -DCMAKE_C_COMPILER=gcc -DMPI_C_COMPILER=mpicc.mpich \
	  -DFERRY_MPI_FLAVOR=mpich -DFERRY_MPIEXEC=mpiexec.mpich -DFERRY_TEST_RANKS=2

openmpi: build/openmpi/build.ninja
	cmake --build build/openmpi -j $(JOBS)

mpich: build/mpich/build.ninja
	cmake --build build/mpich -j $(JOBS)

# Both builds side by side in one prefix (layout: cmake/install_dirs.cmake).
PREFIX ?= /opt/ferry
install: build
	cmake --install build/openmpi --prefix $(abspath $(PREFIX))
	cmake --install build/mpich --prefix $(abspath $(PREFIX))

test: build
	bash scripts/test.sh

demo: build
	bash scripts/demo.sh

bench: build
	bash scripts/bench.sh

# The GlusterFS testbed (scripts/pfs.sh): exit 77 where it cannot run here.
pfs-up:
	bash scripts/pfs.sh up

pfs-down:
	bash scripts/pfs.sh down

pfs-status:
	bash scripts/pfs.sh status

# The emulated cluster (scripts/cluster.sh, docs/cluster.md): exit 77 where
# it cannot run here. CLUSTER_ARGS passes options, e.g. "--rate 200mbit".
cluster-up: .deps.stamp
	bash scripts/cluster.sh up $(CLUSTER_ARGS)

cluster-down:
	bash scripts/cluster.sh down

cluster-status:
	bash scripts/cluster.sh status

clean:
	rm -rf build .deps.stamp
