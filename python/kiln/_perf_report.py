"""triton.testing.perf_report and Benchmark: a sweep of a benchmark function over x values and lines,
printed as a table and, when matplotlib is installed, drawn as a plot (shown, or saved as
`<plot_name>.png` with the data as `<plot_name>.csv` under save_path).
"""
import math
import os


class Benchmark:
    """The description of one perf_report sweep (Triton's Benchmark)."""

    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names, plot_name, args, xlabel="", ylabel="",
                 x_log=False, y_log=False, styles=None):
        self.x_names, self.x_vals = list(x_names), list(x_vals)
        self.line_arg, self.line_vals, self.line_names = line_arg, list(line_vals), list(line_names)
        self.plot_name, self.args = plot_name, dict(args)
        self.xlabel, self.ylabel, self.styles = xlabel, ylabel, styles
        self.x_log, self.y_log = x_log, y_log
        if len(self.line_names) != len(self.line_vals):
            raise ValueError(f"Benchmark '{plot_name}': {len(self.line_vals)} line_vals but "
                             f"{len(self.line_names)} line_names")


def _matplotlib():
    try:
        import matplotlib
        if not os.environ.get("DISPLAY") and not os.environ.get("MPLBACKEND"):
            matplotlib.use("Agg")  # no display: draw to files only
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        return None


def _split(r):
    """A benchmark function's result: y, or (y, y_min, y_max)."""
    if isinstance(r, (tuple, list)):
        y = r[0]
        lo, hi = (r[1], r[2]) if len(r) >= 3 else (math.nan, math.nan)
        return y, lo, hi
    return r, math.nan, math.nan


class Mark:
    """What @perf_report(...) makes of a benchmark function: fn.run(...) sweeps it."""

    def __init__(self, fn, benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks

    def _sweep(self, bench, kwargs):
        rows = []
        for x in bench.x_vals:
            xs = list(x) if isinstance(x, (list, tuple)) else [x] * len(bench.x_names)
            point = dict(zip(bench.x_names, xs))
            ys = [_split(self.fn(**point, **{bench.line_arg: line}, **bench.args, **kwargs)) for line in bench.line_vals]
            rows.append((xs, ys))
        return rows

    def _plot(self, plt, bench, rows, show_plots, save_path):
        fig, ax = plt.subplots()
        xs = [r[0][0] for r in rows]
        for i, name in enumerate(bench.line_names):
            style = {}
            if bench.styles:
                color, linestyle = bench.styles[i]
                style = {"color": color, "ls": linestyle}
            ax.plot(xs, [r[1][i][0] for r in rows], label=name, **style)
            lo, hi = [r[1][i][1] for r in rows], [r[1][i][2] for r in rows]
            if not all(math.isnan(v) for v in lo + hi):
                ax.fill_between(xs, lo, hi, alpha=0.15, color=style.get("color"))
        ax.legend()
        ax.set_xlabel(bench.xlabel or bench.x_names[0])
        ax.set_ylabel(bench.ylabel)
        ax.set_xscale("log" if bench.x_log else "linear")
        ax.set_yscale("log" if bench.y_log else "linear")
        if show_plots:
            plt.show()
        if save_path:
            fig.savefig(os.path.join(save_path, f"{bench.plot_name}.png"))
        plt.close(fig)

    def _table(self, bench, rows, precision=None):
        header = list(bench.x_names) + list(bench.line_names)

        def cell(v):
            if isinstance(v, float):
                return f"{v:.{precision}f}" if precision is not None else f"{v:.4g}"
            return str(v)

        return header, [[cell(v) for v in xs + [y[0] for y in ys]] for xs, ys in rows], \
            [xs + [y[0] for y in ys] for xs, ys in rows]

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False, save_precision=6, **kwargs):
        """Runs every sweep: prints each as a table with print_data, draws it with show_plots or save_path
        (matplotlib), writes `<plot_name>.csv` (and .png) under save_path. return_df: the tables, as pandas
        DataFrames when pandas is installed, else (header, rows)."""
        benchmarks = self.benchmarks if isinstance(self.benchmarks, list) else [self.benchmarks]
        plt = _matplotlib() if (show_plots or save_path) else None
        if (show_plots or save_path) and plt is None:
            print("perf_report: matplotlib is not installed: no plot is drawn (the data is printed or saved as CSV)")
        if save_path:
            os.makedirs(save_path, exist_ok=True)
        tables = []
        for bench in benchmarks:
            rows = self._sweep(bench, kwargs)
            header, text_rows, values = self._table(bench, rows)
            if plt is not None:
                self._plot(plt, bench, rows, show_plots, save_path)
            if print_data:
                widths = [max(len(h), *(len(r[i]) for r in text_rows)) for i, h in enumerate(header)]
                print(bench.plot_name + ":")
                print("  ".join(h.rjust(w) for h, w in zip(header, widths)))
                for r in text_rows:
                    print("  ".join(v.rjust(w) for v, w in zip(r, widths)))
            if save_path:
                _, csv_rows, _ = self._table(bench, rows, save_precision)
                with open(os.path.join(save_path, f"{bench.plot_name}.csv"), "w") as f:
                    f.write(",".join(header) + "\n" + "".join(",".join(r) + "\n" for r in csv_rows))
            tables.append(_frame(header, values))
        if save_path and plt is not None:
            with open(os.path.join(save_path, "results.html"), "w") as f:
                f.write("<html><body>\n" + "".join(f'<image src="{b.plot_name}.png"/>\n' for b in benchmarks) +
                        "</body></html>\n")
        if return_df:
            return tables if isinstance(self.benchmarks, list) else tables[0]
        return None


def _frame(header, rows):
    try:
        import pandas
    except ImportError:
        return header, rows
    return pandas.DataFrame(rows, columns=header)


def perf_report(benchmarks):
    """@perf_report(Benchmark(...) or [Benchmark, ...]) above a benchmark function; fn.run(...) sweeps it."""
    return lambda fn: Mark(fn, benchmarks)
