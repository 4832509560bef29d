"""Writes the seed corpus of the fuzz harnesses into OUT/frontend and OUT/ir_text, from kiln's own tests
and examples (the seeds are derived at run time, not kept in the repository):

- frontend: each kernel a lit RUN line compiles (`kiln compile FILE --kernel K --signature "S"`), as the
  line "# kiln-fuzz: K | S" and then the file's text; and each file of tests/corpus and examples as it is
  (the harness derives a signature for those);
- ir_text: each Tile IR file of tests/lit, whole, and each of its functions alone.

usage: python3 tests/fuzz/make_seeds.py OUT [frontend|ir_text ...]   (OUT/NAME is made anew; default: both)
"""
import hashlib
import pathlib
import re
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUN = re.compile(r'kiln compile (\S+) --kernel (\S+) --signature "([^"]*)"')


def write(folder, text):
    folder.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8", "surrogateescape")
    (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)


def frontend_seeds(out):
    lit = ROOT / "tests" / "lit"
    for test in sorted(list(lit.rglob("*.test")) + list(lit.rglob("*.py"))):
        for path, kernel, signature in RUN.findall(test.read_text(errors="surrogateescape")):
            source = pathlib.Path(path.replace("%s", str(test)).replace("%S", str(test.parent)))
            if source.is_file():
                write(out, f"# kiln-fuzz: {kernel} | {signature}\n" + source.read_text(errors="surrogateescape"))
    for source in sorted((ROOT / "tests" / "corpus").glob("*.py")) + sorted((ROOT / "examples").glob("*.py")):
        write(out, source.read_text(errors="surrogateescape"))


def ir_text_seeds(out):
    for tir in sorted((ROOT / "tests" / "lit").rglob("*.tir")):
        text = tir.read_text(errors="surrogateescape")
        write(out, text)
        for chunk in re.split(r"\n(?=func @)", text):
            if chunk.startswith("func @"):
                write(out, chunk)


def main():
    makers = {"frontend": frontend_seeds, "ir_text": ir_text_seeds}
    if len(sys.argv) < 2 or any(name not in makers for name in sys.argv[2:]):
        sys.exit(__doc__)
    out = pathlib.Path(sys.argv[1])
    for name in sys.argv[2:] or list(makers):
        shutil.rmtree(out / name, ignore_errors=True)
        makers[name](out / name)
        print(f"{name}: {len(list((out / name).iterdir()))} seeds")


if __name__ == "__main__":
    main()
