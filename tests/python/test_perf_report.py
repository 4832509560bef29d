"""kiln.testing.perf_report / Benchmark: the sweep, the printed table, the CSV under save_path, the
plot when matplotlib is installed (and a one-line notice when it is not), return_df."""
import importlib.util

import pytest

import kiln

HAS_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None


def make_report(calls, line_vals=("a", "b"), styles=None):
    @kiln.testing.perf_report(kiln.testing.Benchmark(
        x_names=["size"], x_vals=[1, 2, 4], line_arg="provider", line_vals=list(line_vals),
        line_names=[v.upper() for v in line_vals], plot_name="sizes", args={"scale": 10}, xlabel="size",
        ylabel="ms", x_log=True, styles=styles))
    def bench(size, provider, scale):
        calls.append((size, provider, scale))
        y = size * scale + (1 if provider == "b" else 0)
        return y, y - 0.5, y + 0.5

    return bench


def test_sweep_table_and_return_df(capsys):
    calls = []
    table = make_report(calls).run(print_data=True, return_df=True)
    assert calls == [(1, "a", 10), (1, "b", 10), (2, "a", 10), (2, "b", 10), (4, "a", 10), (4, "b", 10)]
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "sizes:"
    assert out[1].split() == ["size", "A", "B"]
    assert out[2].split() == ["1", "10", "11"] and out[4].split() == ["4", "40", "41"]
    if isinstance(table, tuple):
        header, rows = table
        assert header == ["size", "A", "B"] and rows[1] == [2, 20, 21]
    else:  # a pandas DataFrame
        assert list(table.columns) == ["size", "A", "B"] and list(table["B"]) == [11, 21, 41]


def test_save_path_writes_csv_and_plot(tmp_path, capsys):
    make_report([], styles=[("red", "-"), ("blue", "--")]).run(save_path=str(tmp_path / "out"))
    csv = (tmp_path / "out" / "sizes.csv").read_text().splitlines()
    assert csv[0] == "size,A,B" and csv[1] == "1,10,11"
    if HAS_MATPLOTLIB:
        png = (tmp_path / "out" / "sizes.png").read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        assert "sizes.png" in (tmp_path / "out" / "results.html").read_text()
    else:
        assert "matplotlib is not installed" in capsys.readouterr().out
        assert not (tmp_path / "out" / "sizes.png").exists()


def test_line_names_must_match_line_vals():
    with pytest.raises(ValueError, match="2 line_vals but 1 line_names"):
        kiln.testing.Benchmark(x_names=["n"], x_vals=[1], line_arg="p", line_vals=[1, 2], line_names=["x"],
                               plot_name="p", args={})
