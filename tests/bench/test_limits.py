"""The arithmetic of bench/compare.py's "limited by" column on synthetic
samples: link use over stretches of at least a second, timed where
cluster.sh read the counters; the cluster's CPU share per process; which
resource the row names. An earlier version of that arithmetic printed link use of
1858% and negative CPU shares: every figure here must stay physical."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import compare  # noqa: E402

RATE = 50_000_000  # bits/s, a compute node's link
SRATE = 200_000_000
TCK, CORES = 100, 2


def sample(t, node1=(0, 0), storage=(0, 0), ticks=None, busy=0, total=0, t_cpu=None):
    """One reading: bytes (from, to) each link carried so far at time t."""
    return {"t": t, "t_cpu": t if t_cpu is None else t_cpu,
            "links": {"node1": (RATE, *node1), "storage1": (SRATE, *storage)},
            "ticks": dict(ticks or {}), "busy": busy, "total": total}


def full(seconds, rate=RATE):
    return int(rate / 8 * seconds)


def lim(a, b):
    return compare.limits_between(a, b, clk_tck=TCK, cores=CORES)


class LinkUse(unittest.TestCase):
    def test_full_link_is_100_percent(self):
        x = lim(sample(10.0), sample(12.0, node1=(full(2), 0)))
        self.assertAlmostEqual(x["link_use"], 1.0, places=3)
        self.assertEqual(x["link"], "node1")

    def test_either_direction_counts_and_the_busiest_link_wins(self):
        x = lim(sample(0.0), sample(1.0, node1=(0, full(0.5)), storage=(full(0.9, SRATE), 0)))
        self.assertEqual(x["link"], "storage1")
        self.assertAlmostEqual(x["link_use"], 0.9, places=3)

    def test_unlimited_link_is_not_counted(self):
        a, b = sample(0.0), sample(1.0, node1=(full(1), 0))
        b["links"]["node1"] = (0, full(1), 0)
        self.assertIsNone(lim(a, b)["link"])

    def test_readings_a_moment_apart_are_not_a_stretch(self):
        # a tbf burst lets a tenth of a second carry more than its share; the
        # busiest stretch of at least a second stays near the rate
        s = [sample(0.0), sample(1.0, node1=(full(1.0), 0)), sample(1.1, node1=(full(1.0) + full(0.2), 0)),
             sample(2.1, node1=(full(2.1), 0))]
        w = compare.window_limits(s, clk_tck=TCK, cores=CORES)
        self.assertLessEqual(w["link_use"], 1.1)
        self.assertGreaterEqual(w["link_use"], 0.95)

    def test_busiest_stretch_is_found(self):
        # idle for 3 s (open, verification), then 2 s at 80%
        s = [sample(float(t)) for t in range(4)]
        s += [sample(4.0, node1=(full(0.8), 0)), sample(5.0, node1=(full(1.6), 0)), sample(6.0, node1=(full(1.6), 0))]
        w = compare.window_limits(s, clk_tck=TCK, cores=CORES)
        self.assertAlmostEqual(w["link_use"], 0.8, places=2)

    def test_short_window_uses_all_of_it(self):
        w = compare.window_limits([sample(0.0), sample(0.5, node1=(full(0.25), 0))], clk_tck=TCK, cores=CORES)
        self.assertAlmostEqual(w["link_use"], 0.5, places=3)

    def test_link_time_is_where_the_counters_were_read(self):
        # the whole reading took 2 s; the links were read at its start: the
        # middle would make one second look like two
        out = "time links 100.0\nlink node1 50000000 %d 0\ncpu 7 5\ntime cpu 101.5 102.0\n"
        a = compare.parse_counters(out % 0, mid=101.0)
        b = compare.parse_counters(out.replace("100.0", "101.0").replace("101.5 102.0", "102.5 103.0")
                                   % full(1), mid=102.0)
        self.assertEqual((a["t"], a["t_cpu"]), (100.0, 101.75))
        a.update(busy=0, total=0)
        b.update(busy=0, total=0)
        self.assertAlmostEqual(lim(a, b)["link_use"], 1.0, places=3)

    def test_counters_without_times_fall_back_to_the_middle(self):
        c = compare.parse_counters("link node1 0 1 2\ngarbage\ncpu x y\n", mid=5.0)
        self.assertEqual((c["t"], c["t_cpu"], c["links"]["node1"]), (5.0, 5.0, (0, 1, 2)))


class Cpu(unittest.TestCase):
    def test_host_busy_share(self):
        x = lim(sample(0.0, busy=100, total=1000), sample(1.0, busy=250, total=1200))
        self.assertAlmostEqual(x["cpu_busy"], 0.75)

    def test_cluster_share_per_process(self):
        # 2 s on 2 cores = 400 ticks; pid 1 used 100, pid 2 (new) 60
        a = sample(0.0, ticks={"1": 1000})
        b = sample(2.0, ticks={"1": 1100, "2": 60})
        self.assertAlmostEqual(lim(a, b)["cpu_cluster"], 0.4)

    def test_ended_process_never_makes_it_negative(self):
        # a rank with 5000 ticks ends inside the window: before, the sum over
        # all processes dropped by its whole life
        a = sample(0.0, ticks={"1": 100, "9": 5000})
        b = sample(1.0, ticks={"1": 150})
        x = lim(a, b)
        self.assertGreaterEqual(x["cpu_cluster"], 0.0)
        self.assertAlmostEqual(x["cpu_cluster"], 0.25)

    def test_pid_whose_ticks_went_down_counts_nothing(self):
        a = sample(0.0, ticks={"1": 900})
        b = sample(1.0, ticks={"1": 20})  # another process now has pid 1
        self.assertEqual(lim(a, b)["cpu_cluster"], 0.0)

    def test_cpu_time_is_the_cpu_reading(self):
        a = sample(0.0, ticks={"1": 0}, t_cpu=0.5)
        b = sample(2.0, ticks={"1": 100}, t_cpu=1.5)
        self.assertAlmostEqual(lim(a, b)["cpu_cluster"], 0.5)


class Bound(unittest.TestCase):
    def test_names(self):
        self.assertEqual(compare.bound_by({"link_use": 0.8, "cpu_busy": 1.0}), "network")
        self.assertEqual(compare.bound_by({"link_use": 0.5, "cpu_busy": 0.9}), "cpu")
        self.assertEqual(compare.bound_by({"link_use": 0.5, "cpu_busy": 0.5}), "neither")
        self.assertEqual(compare.bound_by({"link_use": 0.5, "cpu_busy": None}), "neither")


if __name__ == "__main__":
    unittest.main()
