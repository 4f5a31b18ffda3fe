"""What ferry's plotting scripts (ferry_topo_plot.py, ferry_tune_plot.py)
need before they draw: matplotlib on its file-only back end, and the
interpreter that has it. Installed beside them; tools/ in the source tree."""
import importlib
import os
import sys


def need(script, modules):
    """Imports matplotlib (on the Agg back end, so no display is needed),
    its pyplot and the other modules named. Where one is missing, runs the
    script again under the system python3, once: a python3 first on PATH
    (pyenv, venv) may lack the distribution's matplotlib, and the system
    interpreter usually has it. Failing that, says what to install and
    exits 3."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        importlib.import_module("matplotlib.pyplot")
        for m in modules:
            importlib.import_module(m)
    except ImportError:
        system = "/usr/bin/python3"
        again = os.path.splitext(script)[0].upper() + "_REEXEC"
        if os.path.exists(system) and os.path.realpath(sys.executable) != os.path.realpath(system) \
                and not os.environ.get(again):
            os.environ[again] = "1"
            os.execv(system, [system] + sys.argv)
        names = ["matplotlib"] + list(modules)
        sys.stderr.write("%s: needs %s (apt-get install %s)\n"
                         % (script, " and ".join(names), " ".join("python3-" + n for n in names)))
        sys.exit(3)
