#!/usr/bin/env python3
"""ferry's comparison: every benchmark pattern under the file-per-process
POSIX limit, native MPI-IO and ferry (each collective strategy, and auto).

    bench/compare.py --quick            # make demo: a few minutes
    bench/compare.py --full             # make bench: as long as it needs
    bench/compare.py --tiny --builds build/openmpi   # the test of this driver
    bench/compare.py --cluster          # on the emulated cluster only, sizes for its links
    bench/compare.py --quick --aggregators 4         # two-phase against two-phase:
        # ferry-twophase on 4 virtual nodes (cb_nodes=4) against ROMIO two-phase
        # forced on and OMPIO, each with 4 aggregators and the same buffer

For each build (one per MPI ABI) and file system, every configuration runs
once per round, round after round (the first configuration rotates each
round), so slow drifts of the machine spread over all configurations instead
of hitting one. One launch of a configuration runs all experiments in turn
(ferry-bench --then), after a small unmeasured warm-up that takes the
process's one-time start-up (OMPIO loads its components at the first open,
ferry sets itself up); every file's own open and close are measured. The
table shows medians over the rounds, with ratios against the limit and
against the best native MPI-IO of the same build, file system and run. Every
number comes from ferry-bench's --json records of this run; nothing is
assumed. Bandwidth counts open, I/O and close, as IOR does.

Like for like: ROMIO (3.2.1 in Open MPI, MPICH's own) also runs with
collective buffering forced on (romio321-cb, romio-cb: romio_cb_write and
romio_cb_read enable, with the cb_nodes and cb_buffer_size ferry's two-phase
takes in the same build and file system, which ferry itself reports before
the rounds) and forced off (romio321-nocb, romio-nocb: disable, so ROMIO's
independent path with its data sieving), through a ROMIO hints file
(ROMIO_HINTS). Each ferry strategy's xlike is its ratio to the native that
does the same: twophase and local against -cb, independent against -nocb,
auto against the better of the two.

When the emulated cluster (scripts/cluster.sh, docs/cluster.md) is up, its
sharded volume (--cluster-volume dist: the plain one) joins as
`cluster:/mnt/ferry-cluster/shard` (--cluster: only it, at sizes for its
links): the ranks run across its nodes (2 per node, both builds), each node
through its own GlusterFS client, and ferry finds the nodes itself. There
each experiment also says what limited it: the busiest link's use of its
rate in its busiest stretch of a second or more, the host's CPU use over the
experiment, and how much of it the cluster's own processes took (cluster.sh
counters and /proc/stat, read every half second and as each record arrives).
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
KiB, MiB = 1024, 1024 * 1024
CLUSTER_SH = os.path.join(ROOT, "scripts", "cluster.sh")
CLUSTER_PREFIX = "cluster:"
STRATEGIES = ["independent", "twophase", "local", "auto"]
# on the cluster with I/O nodes (cluster.sh up --io-nodes M) also: the
# servers on the I/O nodes aggregate (ferry_io_nodes)
ION_STRATEGY = "ionode"
# ROMIO of either build (as it chooses, collective buffering forced on,
# forced off); OMPIO is Open MPI's
NATIVES = ["romio", "ompio", "romio-cb", "romio-nocb"]
# the native each ferry strategy is measured against (xlike): ROMIO with
# collective buffering on (cb), off (nocb), or the better of the two
LIKE = {"ferry-twophase": ("cb",), "ferry-local": ("cb",), "ferry-ionode": ("cb",), "ferry-independent": ("nocb",),
        "ferry-auto": ("cb", "nocb"), "ferry-rules": ("cb", "nocb")}
HACC_BYTES = 7 * 4 + 8 + 2  # per particle: 7 float32, an int64, a uint16
BT_POINT = 40               # 5 doubles per grid point


def size_name(n):
    return f"{n // MiB}m" if n % MiB == 0 else f"{n // KiB}k" if n % KiB == 0 else str(n)


def like_mode(config):
    """"cb" or "nocb" for a ROMIO configuration with collective buffering
    forced on or off (romio321-cb, romio-nocb, romio321-cb4), else None."""
    m = re.fullmatch(r"romio(?:321)?-(cb|nocb)\d*", config)
    return m.group(1) if m else None


def romio_hints_text(mode, cb_nodes=0, cb_buffer=0, hosts=1):
    """A ROMIO hints file (ROMIO_HINTS: one "key value" a line). cb: two-phase
    forced on with cb_nodes aggregators of cb_buffer bytes, spread evenly
    over the hosts ROMIO sees (its cb_config_list "*:*" would fill the first
    host's ranks before the next host's); nocb: forced off, so ROMIO's
    independent path, which sieves noncontiguous accesses by default."""
    if mode == "nocb":
        return "romio_cb_write disable\nromio_cb_read disable\n"
    per_host = -(-cb_nodes // max(1, hosts))
    return (f"romio_cb_write enable\nromio_cb_read enable\ncb_nodes {cb_nodes}\n"
            f"cb_buffer_size {cb_buffer}\ncb_config_list *:{per_host}\n")


def write_romio_hints(out, mode, cb_nodes=0, cb_buffer=0, hosts=1):
    """The hints file of romio_hints_text in the directory out; its path."""
    name = ("romio_hints-nocb" if mode == "nocb" else
            f"romio_hints-cb{cb_nodes}-{size_name(cb_buffer)}" + (f"-on{hosts}" if hosts > 1 else ""))
    path = os.path.join(out, name)
    with open(path, "w") as f:
        f.write(romio_hints_text(mode, cb_nodes, cb_buffer, hosts))
    return path


class Exp:
    """One experiment: a pattern with fixed arguments. per_rank(P) is the
    bytes one rank moves, for the file-per-process limit of the same bytes."""

    def __init__(self, name, pattern, args, per_rank, xfer=None):
        self.name, self.pattern, self.args = name, pattern, [str(a) for a in args]
        self.per_rank, self.xfer = per_rank, xfer

    def limit_args(self, ranks, shift=0):
        """With shift, each rank reads back the file of rank+shift: on the
        cluster the ranks of a node, so that no read comes from what its own
        node's client cached while writing (it would count the page cache,
        hundreds of MiB/s, not the network)."""
        b = self.per_rank(ranks)
        t = min(self.xfer or MiB, b)  # ior: the same transfers; others: 1 MiB calls
        return ["-a", "posix", "-F", "-t", t, "-b", b, "-s", 1] + (["-C", "-Q", shift] if shift else [])


def ior(xfer, block, segments):
    return Exp(f"ior-{size_name(xfer)}", "ior", ["-c", "-t", xfer, "-b", block, "-s", segments],
               lambda P: block * segments, xfer=xfer)


def hacc(n, mode="struct"):
    return Exp("hacc" if mode == "struct" else "hacc-pervar", "hacc", ["-n", n, "--mode", mode],
               lambda P: HACC_BYTES * n)


def tile(sx, sy, elem):
    return Exp("tile", "tile", ["--sz-tile-x", sx, "--sz-tile-y", sy, "--sz-element", elem],
               lambda P: sx * sy * elem)


def btio(n, steps):
    return Exp("btio", "btio", ["-n", n, "--steps", steps], lambda P: n ** 3 * BT_POINT * steps // P)


def flash(blocks):
    return Exp("flash", "flash", ["--blocks", blocks], lambda P: blocks * 8 ** 3 * 8 * 24)


PROFILES = {
    # the driver's own test: table and plots from a run of seconds
    "tiny": dict(rounds=3, fs=["/dev/shm"],
                 exps=lambda: [ior(16 * KiB, 64 * KiB, 2), ior(64 * KiB, 128 * KiB, 2), tile(64, 64, 8)]),
    # make demo
    "quick": dict(rounds=3, fs=["/dev/shm"],
                  exps=lambda: [ior(64 * KiB, 1 * MiB, 4), ior(1 * MiB, 2 * MiB, 2), hacc(50000),
                                tile(512, 512, 8), btio(48, 4), flash(16)]),
    # make bench; hacc at a third of HACC-IO's 1.5 million particles per rank
    # keeps a round of both modes within a minute on 2 cores
    "full": dict(rounds=5, fs=["/tmp", "/dev/shm"],
                 exps=lambda: [ior(8 * KiB, 1 * MiB, 4), ior(64 * KiB, 4 * MiB, 4), ior(1 * MiB, 8 * MiB, 2),
                               ior(4 * MiB, 8 * MiB, 2), hacc(500000), hacc(500000, "pervar"),
                               tile(1024, 1024, 16), btio(64, 8), flash(80)]),
    # the emulated cluster (make demo: two patterns, make bench: all): every
    # pattern of --full, each moving 12-32 MiB, which 4 links of 50 Mbit/s
    # into a storage node's 200 Mbit/s carry in 1-3 s a phase (measured:
    # docs/cluster.md); only the cluster's volume
    "cluster": dict(rounds=3, fs=[],
                    exps=lambda: [ior(8 * KiB, 512 * KiB, 4), ior(64 * KiB, 1 * MiB, 4), ior(1 * MiB, 2 * MiB, 2),
                                  ior(4 * MiB, 4 * MiB, 1), hacc(50000), hacc(50000, "pervar"),
                                  tile(512, 512, 8), btio(48, 4), flash(16)]),
}


class Build:
    """A ferry build directory: its MPI flavour, launcher, ferry-bench, libferry."""

    def __init__(self, path, ranks_by_flavor, aggregators=0, cb_buffer=16 * MiB,
                 strategies=STRATEGIES, natives=NATIVES, learn_store=None, rules=False):
        self.path = os.path.abspath(path)
        self.strategies, self.natives = strategies, natives
        # --aggregators: two-phase against two-phase, same aggregator count and buffer
        self.aggs, self.cb = aggregators, cb_buffer
        # --learn-store: where auto keeps what it learns (FERRY_LEARN_CACHE); --rules: auto without learning too
        self.learn_store, self.rules = learn_store, rules
        self.io_nodes = 0  # on the cluster: its I/O nodes (cluster_fs)
        cache = {}
        with open(os.path.join(self.path, "CMakeCache.txt")) as f:
            for line in f:
                if ":" in line and "=" in line and not line.startswith(("#", "//")):
                    k, v = line.rstrip("\n").split("=", 1)
                    cache[k.split(":")[0]] = v
        self.flavor = cache.get("FERRY_MPI_FLAVOR", "openmpi")
        self.mpiexec = cache.get("FERRY_MPIEXEC", "mpiexec")
        self.bench = os.path.join(self.path, "bin", "ferry-bench")
        self.lib = os.path.join(self.path, "lib", "libferry.so")
        self.ranks = ranks_by_flavor[self.flavor]
        self.name = self.flavor
        for f in (self.bench, self.lib):
            if not os.path.exists(f):
                sys.exit(f"compare: {f} is missing: build first (make build)")

    def configs(self, fs=""):
        """(name, kind, detail): detail is ferry's strategy[:more hints], or
        the native's io component (romio321, ompio; romio for MPICH's own)
        with :cb or :nocb for ROMIO's collective buffering forced on or off.
        On the cluster with I/O nodes, ferry-ionode joins."""
        cfgs = [("fpp-posix", "limit", None)]
        romio = "romio321" if self.flavor == "openmpi" else "romio"
        if self.aggs:
            n = self.aggs
            cfgs += [(f"ompio-agg{n}", "native", "ompio")] if self.flavor == "openmpi" else []
            return cfgs + [(f"{romio}-cb{n}", "native", f"{romio}:cb"), ("ferry-twophase", "ferry", "twophase")]
        if self.flavor == "openmpi" and "ompio" in self.natives:
            cfgs += [("ompio", "native", "ompio")]
        cfgs += [(romio, "native", romio)] if "romio" in self.natives else []
        cfgs += [(f"{romio}-{m}", "native", f"{romio}:{m}") for m in ("cb", "nocb") if f"romio-{m}" in self.natives]
        cfgs += [(f"ferry-{s}", "ferry", s) for s in self.strategies]
        if fs.startswith(CLUSTER_PREFIX) and self.io_nodes and ION_STRATEGY not in self.strategies:
            cfgs += [(f"ferry-{ION_STRATEGY}", "ferry", ION_STRATEGY)]
        return cfgs + ([("ferry-rules", "ferry", "auto:ferry_learn=off")] if self.rules else [])

    def ranks_on(self, fs, cluster_slots):
        """On the cluster: a rank on each of its slots (4 nodes of 2), both
        builds (MPICH on its 5.0.2 runtime there, docs/cluster.md)."""
        return cluster_slots if fs.startswith(CLUSTER_PREFIX) else self.ranks

    def command(self, cfg, exps, workdir, rpn, cluster_ranks=0, cluster_ppn=0, romio_hints=None, display=False):
        """One launch of a configuration: an unmeasured warm-up, then every
        experiment in turn (ferry-bench --then), so MPI starts once per round.
        With cluster_ranks, across the emulated cluster's nodes. romio_hints:
        {"cb": path, "nocb": path}, the ROMIO hints files of the natives with
        collective buffering forced. display: ferry prints its hints at each
        open (FERRY_HINTS_DISPLAY; ferry_cb_hints reads them)."""
        name, kind, detail = cfg
        component, _, forced = (detail or "").partition(":")
        ranks = cluster_ranks or self.ranks
        if cluster_ranks:
            # cluster.sh sets the launcher, interfaces and transports; ferry
            # finds the nodes through MPI (no virtual nodes)
            # with I/O nodes, every configuration on the same hosts: the
            # ranks fill the compute nodes, and the I/O nodes can take
            # ferry's servers
            cmd = ["bash", CLUSTER_SH, "mpirun", self.flavor] + (["--hosts", "all"] if self.io_nodes else []) + \
                ["-n", str(ranks)]
            if self.flavor == "openmpi":
                if kind == "native":
                    cmd += ["--mca", "io", component]
                setenv = lambda k, v: ["-x", f"{k}={v}"]
            else:
                setenv = lambda k, v: ["-genv", k, v]
            rpn = 0
        elif self.flavor == "openmpi":
            # shared memory only: this is one host, and it halves MPI_Init's cost
            cmd = [self.mpiexec, "--oversubscribe", "-n", str(self.ranks), "--mca", "pml", "ob1",
                   "--mca", "btl", "self,vader"]
            if kind == "native":
                cmd += ["--mca", "io", component]
                if self.aggs and component == "ompio":
                    cmd += ["--mca", "io_ompio_num_aggregators", str(self.aggs),
                            "--mca", "io_ompio_bytes_per_agg", str(self.cb)]
            setenv = lambda k, v: ["-x", f"{k}={v}"]
        else:
            cmd = [self.mpiexec, "-n", str(self.ranks)]
            setenv = lambda k, v: ["-genv", k, v]
        if kind == "native" and forced:
            cmd += setenv("ROMIO_HINTS", romio_hints[forced])
        if kind == "ferry":
            cmd += setenv("LD_PRELOAD", self.lib)
            strategy, _, more = detail.partition(":")
            hints = f"*:ferry_write_strategy={strategy}:ferry_read_strategy={strategy}" + (":" + more if more else "")
            if strategy == ION_STRATEGY and cluster_ranks:
                hints += ":ferry_io_nodes=" + ",".join(f"ion{i + 1}" for i in range(self.io_nodes))
            if self.learn_store:
                cmd += setenv("FERRY_LEARN_CACHE", self.learn_store)
            if self.aggs:  # N virtual nodes, one aggregator on each
                hints += f":cb_nodes={self.aggs}:cb_buffer_size={self.cb}"
                rpn = max(1, self.ranks // self.aggs)
            cmd += setenv("FERRY_HINTS", hints)
            if rpn:
                cmd += setenv("FERRY_RANKS_PER_NODE", str(rpn))
            if display:
                cmd += setenv("FERRY_HINTS_DISPLAY", "1")
        # the warm-up takes the process's one-time start-up (OMPIO loads its
        # components at the first open, ferry sets itself up): not measured
        warm = ["-a", "posix", "-F"] if kind == "limit" else ["-c"]
        cmd += [self.bench, "ior"] + warm + ["-t", "64k", "-b", "256k", "-o", os.path.join(workdir, "warmup.dat"),
                                             "--json", "--label", "warmup"]
        for e in exps:
            pattern, args = (("ior", e.limit_args(ranks, cluster_ppn)) if kind == "limit" else (e.pattern, e.args))
            cmd += ["--then", pattern] + [str(a) for a in args] + \
                ["-o", os.path.join(workdir, f"{e.name}.dat"), "--json", "--label", f"{name}|{e.name}"]
        return cmd

    def has_pattern(self, pattern, env):
        """flash needs the parallel HDF5 of this MPI; ferry-bench knows whether it has it."""
        r = subprocess.run([self.mpiexec, "-n", "1", self.bench, pattern, "--help"], env=env,
                           capture_output=True, text=True, timeout=120)
        return r.returncode == 0


def ferry_cb_hints(lines):
    """cb_nodes and cb_buffer_size from the first of ferry's hints displays
    (FERRY_HINTS_DISPLAY, on standard error): the aggregators its two-phase
    takes (source "derived") and its collective buffer, or None where it
    shows none."""
    got = {}
    for line in lines:
        f = line.split()
        if len(f) >= 2 and f[0] in ("cb_nodes", "cb_buffer_size") and f[0] not in got and f[1].isdigit():
            got[f[0]] = int(f[1])
    return got if len(got) == 2 else None


def like_settings(b, out, workdir, rpn, cluster_ranks, cluster_ppn, hosts, env, timeout):
    """What the natives with collective buffering forced get in one build and
    file system: the cb_nodes and cb_buffer_size of ferry's two-phase there
    (--aggregators gives both sides the same; otherwise ferry is asked: one
    launch of ferry-twophase's warm-up that displays its hints, since its
    aggregators follow the nodes and the file system's stripes), and the
    ROMIO hints files. hosts: the hosts ROMIO sees (cb_config_list)."""
    if b.aggs:
        cb_nodes, buf, source = b.aggs, b.cb, "--aggregators and --cb-buffer-size, as ferry-twophase"
    else:
        cmd = b.command(("ferry-twophase", "ferry", "twophase"), [], workdir, rpn, cluster_ranks, cluster_ppn,
                        display=True)
        status, _, err = launch(cmd, env, timeout)
        got = ferry_cb_hints(err.splitlines()) if status == 0 else None
        if got:
            cb_nodes, buf = got["cb_nodes"], got["cb_buffer_size"]
            source = "ferry-twophase's, from its hints display"
        else:
            per = cluster_ppn or rpn
            cb_nodes, buf = (-(-(cluster_ranks or b.ranks) // per) if per else 1), 16 * MiB
            source = f"ferry's hints display failed ({status}): one aggregator per node and 16 MiB assumed"
            sys.stderr.write(f"compare: {b.name}: ferry-twophase's hints display failed ({status}): {' '.join(cmd)}\n"
                             + "\n".join(err.strip().splitlines()[-8:]) + "\n")
    files = {"cb": write_romio_hints(out, "cb", cb_nodes, buf, hosts), "nocb": write_romio_hints(out, "nocb")}
    return {"cb_nodes": cb_nodes, "cb_buffer_size": buf, "source": source, "files": files,
            "romio_hints": {m: romio_hints_text(m, cb_nodes, buf, hosts) for m in ("cb", "nocb")}}


def run_env():
    # FERRY_* and ROMIO's hints from the caller's environment would change
    # what a configuration means (ferry reads ROMIO_HINTS too): only the
    # driver's own settings go to the launches
    env = {k: v for k, v in os.environ.items()
           if (not k.startswith("FERRY_") or k.startswith("FERRY_CLUSTER_"))
           and k not in ("LD_PRELOAD", "ROMIO_HINTS", "ROMIO_PRINT_HINTS")}
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl_vader_single_copy_mechanism="none", OMPI_MCA_rmaps_base_oversubscribe="1",
               HYDRA_LAUNCHER="fork")
    return env


def cluster_sample():
    """What the cluster and the host used so far (parse_counters), with the
    host's busy and total jiffies ("busy", "total", /proc/stat)."""
    t0 = time.time()
    try:
        out = subprocess.run(["bash", CLUSTER_SH, "counters"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    return dict(host_sample(), **parse_counters(out, (t0 + time.time()) / 2))


def parse_counters(out, mid):
    """cluster.sh counters' lines as a dict: "links" {node: (rate bits/s,
    bytes from, bytes to)} read at time "t", "ticks" {pid: cpu ticks} of the
    cluster's processes read at "t_cpu". cluster.sh says when it read each;
    where it does not, `mid` (the middle of the reading) stands in."""
    links, ticks, at = {}, {}, {}
    for line in out.splitlines():
        f = line.split()
        try:
            if len(f) == 5 and f[0] == "link":
                links[f[1]] = (int(f[2]), int(f[3]), int(f[4]))
            elif len(f) == 3 and f[0] == "cpu":
                ticks[f[1]] = int(f[2])
            elif len(f) >= 3 and f[0] == "time":
                at[f[1]] = sum(float(x) for x in f[2:]) / len(f[2:])
        except ValueError:
            continue
    return {"t": at.get("links", mid), "links": links, "t_cpu": at.get("cpu", mid), "ticks": ticks}


def host_sample():
    """The host's busy (all but idle and iowait) and total jiffies."""
    with open("/proc/stat") as f:
        cpu = [int(x) for x in f.readline().split()[1:]]
    idle = cpu[3] + (cpu[4] if len(cpu) > 4 else 0)
    return {"busy": sum(cpu) - idle, "total": sum(cpu)}


def limits_between(a, b, clk_tck=None, cores=None):
    """What a window between two samples used: the busiest link's share of
    its rate (either direction) and which link; the host's CPU busy share,
    and the cluster's own processes' share of the host's cores (a process
    that ended inside the window is not counted; one that started inside it
    counts from zero)."""
    clk_tck = clk_tck or os.sysconf("SC_CLK_TCK")
    cores = cores or os.cpu_count() or 1
    dt = b["t"] - a["t"]
    best, where = 0.0, None
    for node, (rate, frm, to) in b["links"].items():
        if node not in a["links"] or not rate or dt <= 0:
            continue
        moved = max(frm - a["links"][node][1], to - a["links"][node][2])
        u = moved * 8 / (rate * dt)
        if u > best:
            best, where = u, node
    total = b["total"] - a["total"]
    own = None
    dtc = b["t_cpu"] - a["t_cpu"]
    if b["ticks"] and dtc > 0:
        used = sum(max(0, t - a["ticks"].get(pid, 0)) for pid, t in b["ticks"].items())
        own = round(used / (clk_tck * dtc * cores), 3)
    return {"link_use": round(best, 3), "link": where,
            "cpu_busy": round((b["busy"] - a["busy"]) / total, 3) if total else None, "cpu_cluster": own}


def window_limits(samples, span=1.0, **kw):
    """What the samples of one record's window say: the busiest link's use
    in its busiest stretch of at least `span` seconds (the I/O phases are only
    part of a window: open, close and the verification share it), and the
    CPU over the whole window."""
    if len(samples) < 2:
        return None
    peak, i = None, 0
    for j in range(1, len(samples)):
        while j - i > 1 and samples[j]["t"] - samples[i + 1]["t"] >= span:
            i += 1
        if samples[j]["t"] - samples[i]["t"] >= span or (i == 0 and j == len(samples) - 1):
            x = limits_between(samples[i], samples[j], **kw)
            if peak is None or x["link_use"] > peak["link_use"]:
                peak = x
    whole = limits_between(samples[0], samples[-1], **kw)
    return dict(whole, link_use=peak["link_use"], link=peak["link"])


def launch(cmd, env, timeout, sample=None, every=0.5):
    """Run one job; returns (status, json records, stderr). Kills the whole
    process group of the launcher on timeout. With sample (a function), a
    thread samples every `every` seconds and as each record arrives, and
    each record gets "limits": what its window (since the previous record or
    the launch) used."""
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    recs, errs = [], []
    samples, lock, done = [sample()] if sample else [], threading.Lock(), threading.Event()

    def sampler():
        while not done.wait(every):
            x = sample()
            with lock:
                samples.append(x)

    def read_out():
        for line in p.stdout:
            if line.startswith("{"):
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if sample:
                    x = sample()
                    with lock:
                        samples.append(x)
                        rec["limits"] = window_limits(samples)
                        del samples[:-1]
                recs.append(rec)
    threads = [threading.Thread(target=read_out), threading.Thread(target=lambda: errs.extend(p.stderr))]
    if sample:
        threads.append(threading.Thread(target=sampler))
    for t in threads:
        t.start()
    try:
        p.wait(timeout=timeout)
        status = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        status = "timeout"
    done.set()
    for t in threads:
        t.join()
    return status, (recs if status != "timeout" else []), "".join(errs)


class Progress:
    def __init__(self, total):
        self.total, self.done, self.t0 = total, 0, time.time()
        self.tty = sys.stderr.isatty()

    def show(self, what):
        self.done += 1
        el = int(time.time() - self.t0)
        left = ""
        if self.done > 1:  # launches so far say how long the rest takes
            rest = int(el / (self.done - 1) * (self.total - self.done + 1))
            left = f", ~{rest // 60:d}m{rest % 60:02d}s left"
        line = f"[{self.done:4d}/{self.total} {el // 60:d}m{el % 60:02d}s{left}] {what}"
        if self.tty:
            sys.stderr.write("\r\033[K" + line[: shutil.get_terminal_size().columns - 1])
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def end(self):
        if self.tty:
            sys.stderr.write("\r\033[K")
        el = time.time() - self.t0
        sys.stderr.write(f"compare: {self.done} runs in {el // 60:.0f}m{el % 60:02.0f}s\n")


def machine(fs_list):
    def read(path, key):
        try:
            with open(path) as f:
                for line in f:
                    if line.startswith(key):
                        return line.split(":", 1)[1].strip()
        except OSError:
            pass
        return "?"

    def cmd(*c):
        try:
            return subprocess.run(c, capture_output=True, text=True, cwd=ROOT, timeout=30).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return "?"
    dirty = cmd("git", "status", "--porcelain", "--untracked-files=no", "src")
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "host": platform.node(), "kernel": platform.release(), "arch": platform.machine(),
        "cpu": read("/proc/cpuinfo", "model name"), "cores": os.cpu_count(),
        "memory": read("/proc/meminfo", "MemTotal"),
        "filesystems": {fs: cmd("findmnt", "-no", "FSTYPE", "-T", fs) for fs in fs_list},
        "commit": cmd("git", "rev-parse", "--short", "HEAD") + (" (src/ modified)" if dirty else ""),
        # other jobs on the machine distort every number: say how busy it was
        "load_before": [round(x, 2) for x in os.getloadavg()],
    }


def bandwidth(rec, op):
    v = (rec.get("bandwidth") or {}).get(op)
    return v / MiB if v else None


def ferry_choice(rec):
    fs = rec.get("ferry_stats") or {}
    out = {}
    for op, kind in (("write", "coll_write"), ("read", "coll_read")):
        s = ((fs.get(op) or {}).get("strategies") or {}).get(kind) or {}
        if s.get("strategy") not in (None, "none"):
            out[op] = {"strategy": s["strategy"], "reason": s.get("reason", "")}
    return out


def summarize(runs):
    """Medians per (build, fs, experiment, config) and the ratios: against
    the limit (x_limit), the best native (x_native) and, for ferry's
    strategies, the like-for-like native (x_like; LIKE; which one: like)."""
    groups = {}
    for r in runs:
        for rec in r["records"]:  # a failed launch still counts for the experiments it finished
            if rec["verify"]["ok"]:
                exp = rec["label"].split("|", 1)[1]
                groups.setdefault((r["build"], r["fs"], exp, r["config"]), []).append(rec)
    rows = []
    for (b, fs, e, cfg), recs in groups.items():
        row = {"build": b, "fs": fs, "exp": e, "config": cfg, "kind": cfg_kind(cfg), "n": len(recs),
               "ranks": recs[0]["ranks"], "bytes": recs[0]["bytes"]["write"], "xfer": recs[0]["config"].get("xfer")}
        for op in ("write", "read"):
            vals = [v for v in (bandwidth(x, op) for x in recs) if v]
            if vals:
                row[op] = {"median": statistics.median(vals), "min": min(vals), "max": max(vals)}
        row["time"] = {k: statistics.median(x["time"][k] for x in recs) for k in recs[0]["time"]}
        timers = {}
        for x in recs:
            for op in ("write", "read"):
                for k, t in ((((x.get("ferry_stats") or {}).get(op) or {}).get("timers")) or {}).items():
                    timers.setdefault(k, []).append(t["max"] / len(recs))
        row["ferry_timers"] = {k: sum(v) for k, v in timers.items()}  # mean over rounds of write+read
        row["ferry_choice"] = ferry_choice(recs[-1])
        lim = [x["limits"] for x in recs if x.get("limits") and x["limits"].get("link")]
        if lim:
            use = statistics.median(x["link_use"] for x in lim)
            cpu = [x["cpu_busy"] for x in lim if x["cpu_busy"] is not None]
            own = [x["cpu_cluster"] for x in lim if x.get("cpu_cluster") is not None]
            links = [x["link"] for x in lim]
            row["limits"] = {"link_use": round(use, 3), "link": max(set(links), key=links.count),
                             "cpu_busy": round(statistics.median(cpu), 3) if cpu else None,
                             "cpu_cluster": round(statistics.median(own), 3) if own else None}
            row["limits"]["bound"] = bound_by(row["limits"])
        rows.append(row)
    # ratios: against the limit, the best native and the like-for-like
    # native of the same build, fs, experiment
    for row in rows:
        peers = [x for x in rows if (x["build"], x["fs"], x["exp"]) == (row["build"], row["fs"], row["exp"])]
        want = LIKE.get(row["config"], ()) if row["kind"] == "ferry" else ()
        for op in ("write", "read"):
            if op not in row:
                continue
            lim = [x[op]["median"] for x in peers if x["kind"] == "limit" and op in x]
            nat = [x[op]["median"] for x in peers if x["kind"] == "native" and op in x]
            like = [x for x in peers if x["kind"] == "native" and op in x and like_mode(x["config"]) in want]
            best = max(like, key=lambda x: x[op]["median"]) if like else None
            row[op]["x_limit"] = row[op]["median"] / lim[0] if lim else None
            row[op]["x_native"] = row[op]["median"] / max(nat) if nat else None
            row[op]["x_like"] = row[op]["median"] / best[op]["median"] if best else None
            row[op]["like"] = best["config"] if best else None
    return rows


def testbed_fs(profile):
    """The sharded GlusterFS volume when scripts/pfs.sh says it is mounted
    (make demo and make bench start it); one line and nothing when not."""
    if profile == "tiny":
        return []
    pfs = os.path.join(ROOT, "scripts", "pfs.sh")
    try:
        st = subprocess.run(["bash", pfs, "status"], capture_output=True, text=True, timeout=120)
        ev = subprocess.run(["bash", pfs, "env"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as ex:
        print(f"compare: sharded volume skipped: {ex}", file=sys.stderr)
        return []
    shard = dict(l.split("=", 1) for l in ev.stdout.split() if "=" in l).get("FERRY_PFS_SHARD")
    if st.returncode != 0 or not shard or not os.path.ismount(shard):
        why = (st.stdout.strip().splitlines() or ["scripts/pfs.sh status failed"])[-1]
        print(f"compare: sharded volume skipped (testbed not up: {why})", file=sys.stderr)
        return []
    return [shard]


def cluster_fs(profile, volume):
    """The emulated cluster's sharded volume when scripts/cluster.sh says the
    cluster is up (make demo and make bench start it); one line and nothing
    when not. Returns ([fs], compute nodes, MPI slots per node, I/O nodes)."""
    if profile == "tiny":
        return [], 0, 0, 0
    try:
        st = subprocess.run(["bash", CLUSTER_SH, "status"], capture_output=True, text=True, timeout=120)
        ev = subprocess.run(["bash", CLUSTER_SH, "env"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as ex:
        print(f"compare: cluster skipped: {ex}", file=sys.stderr)
        return [], 0, 0, 0
    e = dict(l.split("=", 1) for l in ev.stdout.split() if "=" in l)
    key = "FERRY_CLUSTER_" + volume.upper()
    if st.returncode != 0 or key not in e:
        why = (st.stdout.strip().splitlines() or ["scripts/cluster.sh status failed"])[-1]
        print(f"compare: cluster skipped (not up: {why})", file=sys.stderr)
        return [], 0, 0, 0
    return ([CLUSTER_PREFIX + e[key]], int(e.get("FERRY_CLUSTER_NODES", 4)), int(e.get("FERRY_CLUSTER_SLOTS", 2)),
            int(e.get("FERRY_CLUSTER_IO_NODES", 0)))


def cluster_exec(*cmd):
    """A command inside node1, where the cluster's volume is mounted."""
    return subprocess.run(["bash", CLUSTER_SH, "exec", "node1"] + list(cmd), capture_output=True, timeout=300)


def pfs_ranks_per_node(fs, ranks, asked):
    """On a GlusterFS volume (the testbed) ferry runs as 4 virtual nodes
    (Open MPI's 8 ranks as 4 nodes of 2), so node-level
    strategies meet a network; --ranks-per-node overrides."""
    if asked or ranks < 8 or fs.startswith(CLUSTER_PREFIX):
        return asked
    try:
        t = subprocess.run(["findmnt", "-no", "FSTYPE", "-T", fs], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return asked
    return ranks // 4 if t.strip().startswith("fuse.glusterfs") else asked


def bound_by(lim):
    """Which resource limited an experiment on the cluster: the network when
    its busiest link ran at 75% of its rate or more in its busiest second, the CPU when the host's
    cores were 85% busy or more (by the cluster's processes or, on a shared
    host, by other jobs: the cluster's own share tells which), else neither
    (waiting: latency, locks)."""
    if lim["link_use"] >= 0.75:
        return "network"
    if lim["cpu_busy"] is not None and lim["cpu_busy"] >= 0.85:
        return "cpu"
    return "neither"


def limits_text(r):
    lim = r.get("limits")
    if not lim:
        return ""
    pct = lambda v: "-" if v is None else f"{v * 100:.0f}%"
    return (f"{lim['bound']}: {lim['link']} link {pct(lim['link_use'])}, "
            f"cpu {pct(lim['cpu_busy'])} (cluster {pct(lim.get('cpu_cluster'))})")


def cfg_kind(name):
    return "limit" if name == "fpp-posix" else "ferry" if name.startswith("ferry-") else "native"


def like_legend(rs, quote=lambda n: n):
    """Which native each ferry strategy's xlike is against, by the names of
    this build's ROMIO configurations with collective buffering forced."""
    name = {m: next((quote(r["config"]) for r in rs if like_mode(r["config"]) == m), None) for m in ("cb", "nocb")}
    if not any(name.values()):
        return "no ROMIO with collective buffering forced in this run (--natives romio-cb,romio-nocb)"
    name = {m: n or f"ROMIO-{m} (not run)" for m, n in name.items()}
    return (f"ferry-twophase and ferry-local against {name['cb']} (ROMIO's two-phase forced on, with ferry's "
            f"cb_nodes and cb_buffer_size), ferry-independent against {name['nocb']} (collective buffering off: "
            f"ROMIO's independent path with its data sieving), ferry-auto against the better of the two")


def table(rows, exp_order, rounds):
    def num(v, width, prec):
        return f"{v:{width}.{prec}f}" if v is not None else f"{'-':>{width}}"

    def op_cells(m):
        return (f"{num(m.get('median'), 9, 1)} {num(m.get('x_limit'), 6, 2)} {num(m.get('x_native'), 6, 2)} "
                f"{num(m.get('x_like'), 6, 2)}")
    lines = []
    keyed = {}
    for r in rows:
        keyed.setdefault((r["build"], r["fs"]), []).append(r)
    for (b, fs), rs in keyed.items():
        ranks = rs[0]["ranks"]
        lines.append(f"== {b}, {ranks} ranks, {fs}: medians of {rounds} rounds, MiB/s; "
                     f"xlim = / file-per-process POSIX, xnat = / best native MPI-IO, xlike = / like-for-like native")
        lines.append(f"   xlike: {like_legend(rs)}")
        lines.append(f"{'experiment':<12} {'config':<18} {'write':>9} {'xlim':>6} {'xnat':>6} {'xlike':>6} "
                     f"{'read':>9} {'xlim':>6} {'xnat':>6} {'xlike':>6}  ferry chose (write/read)")
        rs.sort(key=lambda r: (exp_order.get(r["exp"], 99), r["_order"]))
        last = None
        for r in rs:
            ch = r["ferry_choice"]
            chose = "/".join(ch[op]["strategy"] if op in ch else "-" for op in ("write", "read")) if ch else ""
            lines.append(f"{r['exp'] if r['exp'] != last else '':<12} {r['config']:<18} "
                         f"{op_cells(r.get('write', {}))} {op_cells(r.get('read', {}))}  {chose}"
                         + (f"  [{limits_text(r)}]" if r.get("limits") else ""))
            last = r["exp"]
        lines.append("")
    return "\n".join(lines)


def markdown(rows, exp_order, rounds, mach, command, plots, notes):
    out = [f"# ferry benchmark comparison", "",
           f"- date: {mach['date']}", f"- command: `{command}`",
           f"- machine: {mach['cpu']}, {mach['cores']} cores, {mach['memory']} RAM, "
           f"{mach['arch']}, Linux {mach['kernel']}",
           "- file systems: " + ", ".join(f"`{k}` ({v})" for k, v in mach["filesystems"].items()),
           f"- ferry commit: {mach['commit']}",
           f"- load average (1, 5, 15 min) before the run: {mach['load_before']}, after: {mach['load_after']}", ""]
    out += notes + [""] if notes else []
    keyed = {}
    for r in rows:
        keyed.setdefault((r["build"], r["fs"]), []).append(r)
    for (b, fs), rs in keyed.items():
        mpi = rs[0].get("mpi", "")
        lims = any(r.get("limits") for r in rs)
        out += [f"## {b} ({mpi}), {rs[0]['ranks']} ranks, `{fs}`", "",
                f"Medians of {rounds} rounds in MiB/s (min–max in results.json). ×limit: against file-per-process "
                "POSIX of the same bytes; ×native: against the best native MPI-IO configuration (the forced ROMIOs "
                "too); ×like: against the "
                f"like-for-like native: {like_legend(rs, lambda n: f'`{n}`')}."
                + (" limited by: the busiest link's use of its rate in its busiest second, the host's CPU use "
                   "and (in parentheses) the cluster's own processes' share of it over the experiment, medians "
                   "over the rounds, write and read together (network at 75% of a link or more, cpu at 85% or "
                   "more)."
                   if lims else ""), "",
                "| experiment | config | write | ×limit | ×native | ×like | read | ×limit | ×native | ×like "
                "| ferry chose (write / read) |" + (" limited by |" if lims else ""),
                "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|" + ("---|" if lims else "")]
        rs.sort(key=lambda r: (exp_order.get(r["exp"], 99), r["_order"]))
        for r in rs:
            w, rd = r.get("write", {}), r.get("read", {})
            f = lambda v, p=1: "-" if v is None else f"{v:.{p}f}"
            ch = r["ferry_choice"]
            chose = " / ".join(f"{ch[op]['strategy']} ({ch[op]['reason']})" if op in ch else "-"
                               for op in ("write", "read")) if ch else ""
            out.append(f"| {r['exp']} | {r['config']} | {f(w.get('median'))} | {f(w.get('x_limit'), 2)} | "
                       f"{f(w.get('x_native'), 2)} | {f(w.get('x_like'), 2)} | {f(rd.get('median'))} | "
                       f"{f(rd.get('x_limit'), 2)} | {f(rd.get('x_native'), 2)} | {f(rd.get('x_like'), 2)} | "
                       f"{chose} |" + (f" {limits_text(r)} |" if lims else ""))
        out.append("")
    if plots:
        out += ["## Plots", ""] + [f"- [{os.path.basename(p)}]({os.path.basename(p)})" for p in plots] + [""]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    prof = ap.add_mutually_exclusive_group()
    for p in PROFILES:
        prof.add_argument(f"--{p}", dest="profile", action="store_const", const=p, help=f"the {p} profile")
    ap.add_argument("--builds", default="build/openmpi,build/mpich", help="comma-separated build directories")
    ap.add_argument("--out", default=os.path.join(HERE, "out"), help="directory for results.json, tables, plots")
    ap.add_argument("--rounds", type=int, help="rounds per configuration (at least 3; default per profile)")
    ap.add_argument("--fs", help="comma-separated directories for the test files (default per profile)")
    ap.add_argument("--only", help="comma-separated experiment names to run (e.g. ior-64k,tile)")
    ap.add_argument("--strategies", default=",".join(STRATEGIES),
                    help="comma-separated ferry strategies to run (default: all of them)")
    ap.add_argument("--natives", default=",".join(NATIVES),
                    help="comma-separated native MPI-IOs to run: romio (either build's, as it chooses), ompio "
                         "(Open MPI's), romio-cb and romio-nocb (ROMIO with collective buffering forced on, with "
                         "ferry's cb_nodes and cb_buffer_size, and forced off: romio321-cb, romio-nocb, ...); "
                         "default all")
    ap.add_argument("--ompi-ranks", type=int, default=8)
    ap.add_argument("--mpich-ranks", type=int, default=2)
    ap.add_argument("--ranks-per-node", type=int, default=0,
                    help="ferry runs treat each K ranks as one node (FERRY_RANKS_PER_NODE)")
    ap.add_argument("--no-pfs", action="store_true",
                    help="without --fs: leave out the GlusterFS testbed's sharded volume (scripts/pfs.sh)")
    ap.add_argument("--no-cluster", action="store_true",
                    help="without --fs: leave out the emulated cluster (scripts/cluster.sh)")
    ap.add_argument("--cluster-only", action="store_true",
                    help="only the emulated cluster's volume (when it is up)")
    ap.add_argument("--cluster-volume", choices=["shard", "dist"], default="shard",
                    help="the cluster's sharded (Lustre-like) or plain distribute volume")
    ap.add_argument("--aggregators", type=int, default=0, metavar="N",
                    help="two-phase at equal aggregators: ferry-twophase on N virtual nodes (cb_nodes=N) against "
                         "ROMIO two-phase forced on (ROMIO_HINTS: cb_nodes N, spread over the hosts) and OMPIO "
                         "(io_ompio_num_aggregators N), all with --cb-buffer-size")
    ap.add_argument("--cb-buffer-size", type=int, default=16 * MiB, help="collective buffer with --aggregators")
    ap.add_argument("--learn-store", metavar="PATH",
                    help="the store of learned choices for ferry's runs (FERRY_LEARN_CACHE; default: the user's, "
                         "~/.cache/ferry/learned.json), e.g. a fresh file to measure a first run")
    ap.add_argument("--rules", action="store_true",
                    help="also run ferry's auto without learning (ferry-rules: ferry_learn=off), to see what learning changes")
    ap.add_argument("--timeout", type=int, default=1200, help="seconds per launch")
    ap.add_argument("--io-nodes", type=int, metavar="M",
                    help="the cluster must have M I/O nodes (scripts/cluster.sh up --io-nodes M); with them "
                         "every launch there may use them, and ferry-ionode joins the configurations")
    ap.add_argument("--cluster-timeout", type=int, default=300,
                    help="seconds per launch on the cluster (native OMPIO can hang there: docs/cluster.md)")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--commit", help="the ferry revision the builds were made from (default: this tree's HEAD)")
    a = ap.parse_args()
    profile = a.profile or "quick"
    P = PROFILES[profile]
    a.cluster_only = a.cluster_only or profile == "cluster"
    strategies = a.strategies.split(",")
    if not set(strategies) <= set(STRATEGIES + [ION_STRATEGY]):
        sys.exit(f"compare: --strategies takes some of {','.join(STRATEGIES + [ION_STRATEGY])}")
    natives = [n for n in a.natives.split(",") if n]
    if not set(natives) <= set(NATIVES):
        sys.exit(f"compare: --natives takes some of {','.join(NATIVES)}")
    rounds = a.rounds or P["rounds"]
    if rounds < 3:
        sys.exit("compare: at least 3 rounds: a median of fewer says little")
    cfs, cl_nodes, cl_ppn, cl_ions = (([], 0, 0, 0) if a.no_cluster or (a.fs and not a.cluster_only)
                                      else cluster_fs(profile, a.cluster_volume))
    if a.io_nodes is not None and cfs and cl_ions != a.io_nodes:
        sys.exit(f"compare: --io-nodes {a.io_nodes}, and the cluster has {cl_ions}: "
                 f"scripts/cluster.sh down, then up --io-nodes {a.io_nodes}")
    cluster_slots = cl_nodes * cl_ppn
    if a.cluster_only:
        fs_list = cfs
        if not fs_list:
            sys.exit("compare: --cluster-only, and the cluster is not up (scripts/cluster.sh up)")
    else:
        fs_list = a.fs.split(",") if a.fs else P["fs"] + ([] if a.no_pfs else testbed_fs(profile)) + cfs
    exps = P["exps"]()
    if a.only:
        keep = a.only.split(",")
        exps = [e for e in exps if e.name in keep]
    exp_order = {e.name: i for i, e in enumerate(exps)}
    env = run_env()
    a.out = os.path.abspath(a.out)
    os.makedirs(a.out, exist_ok=True)
    if a.aggregators and (a.aggregators < 1 or a.ranks_per_node):
        sys.exit("compare: --aggregators takes N >= 1 and sets the virtual nodes itself (no --ranks-per-node)")
    builds = [Build(b, {"openmpi": a.ompi_ranks, "mpich": a.mpich_ranks}, a.aggregators, a.cb_buffer_size,
                    strategies, natives, os.path.abspath(a.learn_store) if a.learn_store else None, a.rules)
              for b in a.builds.split(",") if b]
    for b in builds:
        b.io_nodes = cl_ions
        if a.aggregators and b.ranks % a.aggregators:
            sys.exit(f"compare: {b.name}: {b.ranks} ranks do not split into {a.aggregators} equal virtual nodes")
    os.chdir(ROOT)  # paths in the output are relative to the repository
    mach = machine([f for f in fs_list if not f.startswith(CLUSTER_PREFIX)])
    for f in fs_list:
        if f.startswith(CLUSTER_PREFIX):
            ev = subprocess.run(["bash", CLUSTER_SH, "env"], capture_output=True, text=True, timeout=120).stdout
            mach["filesystems"][f] = "fuse.glusterfs on each node; " + ", ".join(ev.split())
    if a.commit:
        mach["commit"] = a.commit
    command = " ".join([os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:])
    notes = []

    plan = []  # (build, fs, round, config, experiments)
    for b in builds:
        bexps = []
        for e in exps:
            if e.pattern in ("flash",) and not b.has_pattern(e.pattern, env):
                notes.append(f"- {b.name}: `{e.name}` skipped: this ferry-bench has no parallel HDF5 for {b.flavor}")
                continue
            bexps.append(e)
        for fs in fs_list:
            cfgs = b.configs(fs)
            for rnd in range(rounds):
                k = rnd % len(cfgs)  # rotate which configuration goes first
                for cfg in cfgs[k:] + cfgs[:k]:
                    plan.append((b, fs, rnd, cfg, bexps))
    for n in notes:
        print(n.lstrip("- "), file=sys.stderr)
    if mach["load_before"][0] > (os.cpu_count() or 1):
        print(f"compare: warning: the machine is busy (load {mach['load_before'][0]} on {os.cpu_count()} cores); "
              "the numbers will say more about the other jobs than about I/O", file=sys.stderr)

    runs, failures, like = [], [], {}
    workdirs = {fs: os.path.join(fs.removeprefix(CLUSTER_PREFIX), f"ferry-bench.{os.getpid()}") for fs in fs_list}
    for fs, d in workdirs.items():
        if fs.startswith(CLUSTER_PREFIX):
            cluster_exec("mkdir", "-p", d)
        else:
            os.makedirs(d, exist_ok=True)
    prog = Progress(len(plan))
    try:
        # ROMIO forced to two-phase takes the aggregators and buffer ferry's
        # two-phase takes in the same build and file system
        for b in builds:
            if not any(like_mode(c[0]) for c in b.configs()):
                continue
            for fs in fs_list:
                on_cluster = fs.startswith(CLUSTER_PREFIX)
                ranks = b.ranks_on(fs, cluster_slots)
                like[(b.name, fs)] = x = like_settings(
                    b, a.out, workdirs[fs], pfs_ranks_per_node(fs, b.ranks, a.ranks_per_node),
                    ranks if on_cluster else 0, cl_ppn if on_cluster else 0, cl_nodes if on_cluster else 1, env,
                    min(a.timeout, a.cluster_timeout) if on_cluster else a.timeout)
                note = (f"- {b.name}, `{fs}`: ROMIO forced to two-phase with cb_nodes {x['cb_nodes']} and "
                        f"cb_buffer_size {x['cb_buffer_size']} ({x['source']})")
                notes.append(note)
                print("compare: " + note[2:].replace("`", ""), file=sys.stderr)
        for b, fs, rnd, cfg, bexps in plan:
            on_cluster = fs.startswith(CLUSTER_PREFIX)
            ranks = b.ranks_on(fs, cluster_slots)
            prog.show(f"{b.name} {ranks} ranks {fs} {cfg[0]} (round {rnd + 1}/{rounds}): "
                      + " ".join(e.name for e in bexps))
            cmd = b.command(cfg, bexps, workdirs[fs], pfs_ranks_per_node(fs, b.ranks, a.ranks_per_node),
                            ranks if on_cluster else 0, cl_ppn if on_cluster else 0,
                            like.get((b.name, fs), {}).get("files"))
            t0 = time.time()
            status, recs, err = launch(cmd, env, min(a.timeout, a.cluster_timeout) if on_cluster else a.timeout,
                                       cluster_sample if on_cluster else None)
            recs = [x for x in recs if x.get("label") != "warmup"]
            run = {"build": b.name, "fs": fs, "config": cfg[0], "round": rnd, "status": status,
                   "elapsed": round(time.time() - t0, 3), "command": " ".join(cmd), "records": recs}
            if status != 0 or len(recs) != len(bexps):
                tail = "\n".join(err.strip().splitlines()[-8:])
                run["stderr"] = tail
                failures.append(run)
                sys.stderr.write(f"\ncompare: FAILED ({status}): {run['command']}\n{tail}\n")
            runs.append(run)
    finally:
        prog.end()
        for fs, d in workdirs.items():
            if fs.startswith(CLUSTER_PREFIX):
                cluster_exec("rm", "-rf", d)
            else:
                shutil.rmtree(d, ignore_errors=True)

    mach["load_after"] = [round(x, 2) for x in os.getloadavg()]
    rows = summarize(runs)
    cfg_order = {c[0]: i for b in builds for fs in fs_list for i, c in enumerate(b.configs(fs))}
    mpi_of = {r["build"]: r["records"][0].get("mpi", "") for r in runs if r["records"]}
    for r in rows:
        r["_order"] = cfg_order.get(r["config"], 99)
        r["mpi"] = mpi_of.get(r["build"], "")
    text = table(rows, exp_order, rounds)

    plots = []
    if not a.no_plots:
        try:
            sys.path.insert(0, HERE)
            import plots as plotmod
            plots = plotmod.make_all(rows, exp_order, a.out)
        except ImportError as ex:
            print(f"compare: plots skipped: {ex} (make deps installs python3-matplotlib)", file=sys.stderr)

    result = {"tool": "bench/compare.py", "schema": 1, "profile": profile, "command": command,
              "machine": mach, "rounds": rounds, "notes": notes,
              "like": [dict(build=k[0], fs=k[1], **{n: v for n, v in x.items() if n != "files"})
                       for k, x in like.items()],
              "builds": [{"name": b.name, "dir": os.path.relpath(b.path, ROOT), "ranks": b.ranks,
                          "cluster_ranks": b.ranks_on(CLUSTER_PREFIX, cluster_slots) if cluster_slots else None,
                          "mpi": mpi_of.get(b.name, "")} for b in builds],
              "summary": [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows],
              "runs": runs}
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump(result, f, indent=1)
    with open(os.path.join(a.out, "table.txt"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write(markdown(rows, exp_order, rounds, mach, command, plots, notes))

    print(f"ferry comparison ({profile}), {mach['date']}, {mach['cpu']}, {mach['cores']} cores, "
          f"commit {mach['commit']}, load average before/after {mach['load_before'][0]}/{mach['load_after'][0]}")
    print(text)
    show = lambda p: os.path.relpath(p) if p.startswith(ROOT + os.sep) else p
    print(f"results: {show(os.path.join(a.out, 'results.json'))}")
    print(f"tables:  {show(os.path.join(a.out, 'table.txt'))}, {show(os.path.join(a.out, 'table.md'))}")
    for p in plots:
        print(f"plot:    {show(p)}")
    if failures:
        print(f"compare: {len(failures)} run(s) FAILED; see above and results.json", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
