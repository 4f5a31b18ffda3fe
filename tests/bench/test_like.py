"""Like for like in bench/compare.py, without MPI: the ROMIO hints files of
the natives with collective buffering forced on (NATIVE-cb) and off
(NATIVE-nocb), the launches that carry them, the cb_nodes and
cb_buffer_size read from ferry's hints display, and the xlike ratio of
each ferry strategy against its like-for-like native in the summary and in
both tables."""
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
sys.path.insert(0, HERE)
import compare  # noqa: E402
from test_configs import fake_build  # noqa: E402


def arg_after(cmd, flag, key):
    """The value of KEY set by -x KEY=V (Open MPI) or -genv KEY V (MPICH), or None."""
    for i, c in enumerate(cmd):
        if flag == "-x" and c == "-x" and cmd[i + 1].startswith(key + "="):
            return cmd[i + 1].split("=", 1)[1]
        if flag == "-genv" and c == "-genv" and cmd[i + 1] == key:
            return cmd[i + 2]
    return None


class Hints(unittest.TestCase):
    def test_cb_file(self):
        t = compare.romio_hints_text("cb", 4, 16 * compare.MiB)
        self.assertEqual(t.splitlines(), ["romio_cb_write enable", "romio_cb_read enable", "cb_nodes 4",
                                          "cb_buffer_size 16777216", "cb_config_list *:4"])

    def test_cb_spread_over_hosts(self):
        # ROMIO's "*:k" takes up to k ranks of each host in turn: as many
        # hosts as aggregators gives one each, as ferry places them
        per = lambda n, h: compare.romio_hints_text("cb", n, 1, h).splitlines()[-1]
        self.assertEqual(per(4, 4), "cb_config_list *:1")
        self.assertEqual(per(3, 2), "cb_config_list *:2")
        self.assertEqual(per(1, 1), "cb_config_list *:1")

    def test_nocb_file(self):
        self.assertEqual(compare.romio_hints_text("nocb", 4, 1 << 24).splitlines(),
                         ["romio_cb_write disable", "romio_cb_read disable"])

    def test_like_mode(self):
        for name, mode in (("romio321-cb", "cb"), ("romio-cb", "cb"), ("romio321-nocb", "nocb"),
                           ("romio-nocb", "nocb"), ("romio321-cb4", "cb"), ("romio-cb2", "cb"),
                           ("romio321", None), ("romio", None), ("ompio", None), ("ompio-agg4", None),
                           ("ferry-twophase", None), ("fpp-posix", None)):
            self.assertEqual(compare.like_mode(name), mode, name)

    def test_ferry_display(self):
        shown = ['ferry: hints for "/dev/shm/x/warmup.dat" (ferry 0.1.0, openmpi)\n',
                 "  hint                         value                    source\n",
                 "  cb_buffer_size               8388608 (8 MiB)          env\n",
                 "  cb_nodes                     4                        derived\n",
                 "  cb_config_list               *:1                      default\n",
                 'ferry: hints for "/dev/shm/x/warmup.dat" (ferry 0.1.0, openmpi)\n',
                 "  cb_buffer_size               16777216 (16 MiB)        default\n",
                 "  cb_nodes                     2                        derived\n"]
        self.assertEqual(compare.ferry_cb_hints(shown), {"cb_nodes": 4, "cb_buffer_size": 8 << 20})
        self.assertIsNone(compare.ferry_cb_hints(shown[:3]))
        self.assertIsNone(compare.ferry_cb_hints([]))

    def test_env_leaves_callers_romio_hints_out(self):
        os.environ["ROMIO_HINTS"] = "/nonexistent/hints"
        try:
            self.assertNotIn("ROMIO_HINTS", compare.run_env())
        finally:
            del os.environ["ROMIO_HINTS"]


class Commands(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dirs = {fl: fake_build(self.tmp.name, fl) for fl in ("openmpi", "mpich")}
        self.files = {"cb": "/h/cb", "nocb": "/h/nocb"}

    def tearDown(self):
        self.tmp.cleanup()

    def cmds(self, flavor, **kw):
        b = compare.Build(self.dirs[flavor], {"openmpi": 8, "mpich": 2}, **kw)
        return {c[0]: b.command(c, [], "/w", 0, romio_hints=self.files) for c in b.configs()}

    def test_openmpi(self):
        c = self.cmds("openmpi")
        for name, mode in (("romio321-cb", "cb"), ("romio321-nocb", "nocb")):
            self.assertEqual(arg_after(c[name], "-x", "ROMIO_HINTS"), self.files[mode], name)
            i = c[name].index("--mca", c[name].index("btl") + 1)
            self.assertEqual(c[name][i:i + 3], ["--mca", "io", "romio321"], name)
        for name in ("romio321", "ompio", "fpp-posix", "ferry-twophase", "ferry-independent", "ferry-auto"):
            self.assertIsNone(arg_after(c[name], "-x", "ROMIO_HINTS"), name)

    def test_mpich(self):
        c = self.cmds("mpich")
        self.assertEqual(arg_after(c["romio-cb"], "-genv", "ROMIO_HINTS"), "/h/cb")
        self.assertEqual(arg_after(c["romio-nocb"], "-genv", "ROMIO_HINTS"), "/h/nocb")
        self.assertNotIn("--mca", c["romio-cb"])
        for name in ("romio", "ferry-local", "ferry-auto"):
            self.assertIsNone(arg_after(c[name], "-genv", "ROMIO_HINTS"), name)

    def test_aggregators_use_the_same_files(self):
        c = self.cmds("openmpi", aggregators=4)
        self.assertEqual(arg_after(c["romio321-cb4"], "-x", "ROMIO_HINTS"), "/h/cb")
        self.assertIsNone(arg_after(c["ompio-agg4"], "-x", "ROMIO_HINTS"))
        hints = arg_after(c["ferry-twophase"], "-x", "FERRY_HINTS")
        self.assertIn(":cb_nodes=4:cb_buffer_size=16777216", hints)

    def test_display_only_when_asked(self):
        b = compare.Build(self.dirs["openmpi"], {"openmpi": 8, "mpich": 2})
        cfg = ("ferry-twophase", "ferry", "twophase")
        self.assertEqual(arg_after(b.command(cfg, [], "/w", 2, display=True), "-x", "FERRY_HINTS_DISPLAY"), "1")
        self.assertIsNone(arg_after(b.command(cfg, [], "/w", 2), "-x", "FERRY_HINTS_DISPLAY"))

    def test_aggregators_settings_need_no_launch(self):
        b = compare.Build(self.dirs["mpich"], {"openmpi": 8, "mpich": 2}, aggregators=2, cb_buffer=4 << 20)
        x = compare.like_settings(b, self.tmp.name, "/w", 0, 0, 0, 1, {}, 1)
        self.assertEqual((x["cb_nodes"], x["cb_buffer_size"]), (2, 4 << 20))
        with open(x["files"]["cb"]) as f:
            self.assertEqual(f.read(), compare.romio_hints_text("cb", 2, 4 << 20))
        with open(x["files"]["nocb"]) as f:
            self.assertEqual(f.read(), compare.romio_hints_text("nocb"))


def rec(cfg, exp, w, r):
    """One ferry-bench --json record as summarize reads it."""
    return {"label": f"{cfg}|{exp}", "verify": {"ok": True}, "ranks": 8, "bytes": {"write": 1 << 20},
            "config": {"xfer": None}, "time": {"open": 0.01, "write": 0.1, "read": 0.1, "close": 0.01},
            "bandwidth": {"write": w * compare.MiB, "read": r * compare.MiB},
            "ferry_stats": None}


def runs_of(table, build="openmpi", fs="/dev/shm", exp="tile"):
    """Three rounds per configuration, each at the given (write, read) MiB/s."""
    return [{"build": build, "fs": fs, "config": cfg, "round": k, "records": [rec(cfg, exp, w, r)]}
            for cfg, (w, r) in table.items() for k in range(3)]


SPEEDS = {"fpp-posix": (1000, 2000), "ompio": (400, 800), "romio321": (300, 600),
          "romio321-cb": (200, 100), "romio321-nocb": (50, 400),
          "ferry-independent": (100, 200), "ferry-twophase": (300, 300), "ferry-local": (100, 50),
          "ferry-auto": (400, 200), "ferry-rules": (100, 100)}


class XLike(unittest.TestCase):
    def setUp(self):
        self.rows = {r["config"]: r for r in compare.summarize(runs_of(SPEEDS))}

    def x(self, cfg, op):
        return self.rows[cfg][op]["x_like"], self.rows[cfg][op]["like"]

    def test_each_strategy_against_its_like(self):
        self.assertEqual(self.x("ferry-twophase", "write"), (300 / 200, "romio321-cb"))
        self.assertEqual(self.x("ferry-twophase", "read"), (300 / 100, "romio321-cb"))
        self.assertEqual(self.x("ferry-local", "write"), (100 / 200, "romio321-cb"))
        self.assertEqual(self.x("ferry-local", "read"), (50 / 100, "romio321-cb"))
        self.assertEqual(self.x("ferry-independent", "write"), (100 / 50, "romio321-nocb"))
        self.assertEqual(self.x("ferry-independent", "read"), (200 / 400, "romio321-nocb"))

    def test_auto_against_the_better_per_direction(self):
        # cb writes faster, nocb reads faster: auto meets each
        self.assertEqual(self.x("ferry-auto", "write"), (400 / 200, "romio321-cb"))
        self.assertEqual(self.x("ferry-auto", "read"), (200 / 400, "romio321-nocb"))
        self.assertEqual(self.x("ferry-rules", "read"), (100 / 400, "romio321-nocb"))

    def test_natives_and_limit_get_none(self):
        for cfg in ("fpp-posix", "ompio", "romio321", "romio321-cb", "romio321-nocb"):
            for op in ("write", "read"):
                self.assertEqual(self.x(cfg, op), (None, None), cfg)

    def test_native_column_counts_every_native(self):
        # the best native of the write cell is ompio (400), of the read cell ompio (800)
        self.assertAlmostEqual(self.rows["ferry-auto"]["write"]["x_native"], 1.0)
        self.assertAlmostEqual(self.rows["ferry-independent"]["read"]["x_native"], 200 / 800)

    def test_without_like_natives(self):
        rows = compare.summarize(runs_of({c: v for c, v in SPEEDS.items() if not compare.like_mode(c)}))
        for r in rows:
            self.assertIsNone(r["write"]["x_like"], r["config"])

    def test_cells_kept_apart(self):
        # a like native of another file system or build does not count
        rows = compare.summarize(runs_of({"romio321-cb": (100, 100)}, fs="/tmp")
                                 + runs_of({"ferry-twophase": (100, 100)})
                                 + runs_of({"romio-cb": (50, 50)}, build="mpich"))
        tp = next(r for r in rows if r["config"] == "ferry-twophase")
        self.assertIsNone(tp["write"]["x_like"])


class Tables(unittest.TestCase):
    def setUp(self):
        rows = compare.summarize(runs_of(SPEEDS))
        order = {c: i for i, c in enumerate(SPEEDS)}
        for r in rows:
            r["_order"], r["mpi"] = order[r["config"]], "Open MPI"
        self.rows = rows

    def test_text(self):
        text = compare.table(self.rows, {"tile": 0}, 3)
        lines = text.splitlines()
        head = next(l for l in lines if l.startswith("experiment"))
        self.assertEqual(head.split()[2:10], ["write", "xlim", "xnat", "xlike", "read", "xlim", "xnat", "xlike"])
        self.assertIn("ferry-twophase and ferry-local against romio321-cb", text)
        self.assertIn("ferry-independent against romio321-nocb", text)
        self.assertIn("ferry-auto against the better of the two", text)
        # rows after an experiment's first leave its cell blank: config, then the cells
        data = lines[lines.index(head) + 1:]
        row = lambda cfg: next(l for l in data if f" {cfg} " in l).split()
        self.assertEqual((row("ferry-twophase")[4], row("ferry-twophase")[8]), ("1.50", "3.00"))
        self.assertEqual((row("ferry-auto")[4], row("ferry-auto")[8]), ("2.00", "0.50"))
        self.assertEqual((row("romio321-cb")[4], row("romio321-cb")[8]), ("-", "-"))
        # every row's cells end under their header, "-" too
        ends = [head.index("xlike") + 5, head.rindex("xlike") + 5]
        for cfg in SPEEDS:
            line = next(l for l in data if f" {cfg} " in l)
            for end in ends:
                self.assertEqual(len(line[:end].rstrip()), end, (cfg, line))
                self.assertEqual(line[end], " ", (cfg, line))

    def test_legend_without_like_natives(self):
        rows = [r for r in self.rows if not compare.like_mode(r["config"])]
        text = compare.table(rows, {"tile": 0}, 3)
        self.assertIn("xlike: no ROMIO with collective buffering forced in this run", text)
        only_cb = [r for r in self.rows if compare.like_mode(r["config"]) != "nocb"]
        self.assertIn("ferry-independent against ROMIO-nocb (not run)", compare.table(only_cb, {"tile": 0}, 3))

    def test_markdown(self):
        mach = {"date": "d", "cpu": "c", "cores": 2, "memory": "m", "arch": "a", "kernel": "k",
                "filesystems": {"/dev/shm": "tmpfs"}, "commit": "x", "load_before": [0], "load_after": [0]}
        md = compare.markdown(self.rows, {"tile": 0}, 3, mach, "cmd", [], [])
        head = next(l for l in md.splitlines() if l.startswith("| experiment"))
        self.assertEqual([c.strip() for c in head.split("|")[3:11]],
                         ["write", "×limit", "×native", "×like", "read", "×limit", "×native", "×like"])
        self.assertIn("×like: against the like-for-like native: ferry-twophase and ferry-local against "
                      "`romio321-cb`", md)
        tp = next(l for l in md.splitlines() if "| ferry-twophase |" in l).split("|")
        self.assertEqual((tp[6].strip(), tp[10].strip()), ("1.50", "3.00"))
        nat = next(l for l in md.splitlines() if "| romio321-nocb |" in l).split("|")
        self.assertEqual((nat[6].strip(), nat[10].strip()), ("-", "-"))


if __name__ == "__main__":
    unittest.main()
