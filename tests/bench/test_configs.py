"""Which configurations bench/compare.py launches per build: the limit, the
natives asked for (--natives: ROMIO of either build as it chooses and with
collective buffering forced on and off, OMPIO of Open MPI's), then ferry's
strategies asked for (--strategies). make demo's cluster part leaves OMPIO
and the forced ROMIOs out (docs/cluster.md); nothing else may go with it."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import compare  # noqa: E402


def fake_build(root, flavor):
    """A build directory as compare.Build reads it: its CMake cache, a
    ferry-bench and a libferry (empty files: nothing is launched here)."""
    d = os.path.join(root, flavor)
    os.makedirs(os.path.join(d, "bin"))
    os.makedirs(os.path.join(d, "lib"))
    with open(os.path.join(d, "CMakeCache.txt"), "w") as f:
        f.write(f"FERRY_MPI_FLAVOR:STRING={flavor}\nFERRY_MPIEXEC:FILEPATH=mpiexec.{flavor}\n")
    for p in ("bin/ferry-bench", "lib/libferry.so"):
        open(os.path.join(d, p), "w").close()
    return d


class Configs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dirs = {fl: fake_build(self.tmp.name, fl) for fl in ("openmpi", "mpich")}

    def tearDown(self):
        self.tmp.cleanup()

    def names(self, flavor, **kw):
        b = compare.Build(self.dirs[flavor], {"openmpi": 8, "mpich": 2}, **kw)
        return [c[0] for c in b.configs()]

    def test_default_all(self):
        self.assertEqual(self.names("openmpi"), ["fpp-posix", "ompio", "romio321", "romio321-cb", "romio321-nocb",
                                                 "ferry-independent", "ferry-twophase", "ferry-local", "ferry-auto"])
        self.assertEqual(self.names("mpich"), ["fpp-posix", "romio", "romio-cb", "romio-nocb", "ferry-independent",
                                               "ferry-twophase", "ferry-local", "ferry-auto"])

    def test_like_only(self):
        kw = dict(strategies=["independent", "twophase"], natives=["romio-cb", "romio-nocb"])
        self.assertEqual(self.names("openmpi", **kw), ["fpp-posix", "romio321-cb", "romio321-nocb",
                                                       "ferry-independent", "ferry-twophase"])
        self.assertEqual(self.names("mpich", natives=["romio-nocb"], strategies=["auto"]),
                         ["fpp-posix", "romio-nocb", "ferry-auto"])

    def test_demo_cluster(self):
        # make demo's cluster part: --strategies auto --natives romio
        kw = dict(strategies=["auto"], natives=["romio"])
        self.assertEqual(self.names("openmpi", **kw), ["fpp-posix", "romio321", "ferry-auto"])
        self.assertEqual(self.names("mpich", **kw), ["fpp-posix", "romio", "ferry-auto"])

    def test_ompio_only(self):
        kw = dict(strategies=["twophase"], natives=["ompio"])
        self.assertEqual(self.names("openmpi", **kw), ["fpp-posix", "ompio", "ferry-twophase"])
        self.assertEqual(self.names("mpich", **kw), ["fpp-posix", "ferry-twophase"])

    def test_aggregators_keep_their_pairing(self):
        b = compare.Build(self.dirs["openmpi"], {"openmpi": 8, "mpich": 2}, aggregators=4, natives=["romio"])
        self.assertEqual([c[0] for c in b.configs()], ["fpp-posix", "ompio-agg4", "romio321-cb4", "ferry-twophase"])


if __name__ == "__main__":
    unittest.main()
