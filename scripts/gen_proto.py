"""Generate the Python code of the wire contract: proto/arena/v1/*.proto -> arena/v1/.

Runs grpc_tools.protoc with the mypy-protobuf plugins, so every ``*_pb2.py`` and ``*_pb2_grpc.py``
gets a ``.pyi`` stub for mypy. Deterministic: the same protos and tool versions give the same bytes.

    python scripts/gen_proto.py            # regenerate arena/v1/ in place (make proto)
    python scripts/gen_proto.py --out DIR  # generate into DIR/arena/v1/ instead (the freshness test)
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
PACKAGE = Path("arena") / "v1"

INIT = '''"""Generated protobuf and gRPC code of the wire contract (package arena.v1). Do not edit.

Regenerate with ``make proto`` from ``proto/arena/v1/*.proto``.
"""
'''


def proto_files() -> list[Path]:
    """The contract's .proto files, relative to ``proto/``, in a stable order."""
    return sorted(p.relative_to(PROTO_ROOT) for p in (PROTO_ROOT / PACKAGE).glob("*.proto"))


def generate(out_root: Path) -> Path:
    """Generate into ``out_root/arena/v1`` (replacing its contents); return that folder."""
    from grpc_tools import protoc  # type: ignore[import-untyped]

    bin_dir = Path(sys.executable).parent
    plugins = {name: bin_dir / f"protoc-gen-{name}" for name in ("mypy", "mypy_grpc")}
    for name, path in plugins.items():
        if not path.exists():
            raise SystemExit(f"{path} is missing: install mypy-protobuf (the test extra) for protoc-gen-{name}")
    well_known = resources.files("grpc_tools") / "_proto"
    with tempfile.TemporaryDirectory() as tmp:
        args = [
            "grpc_tools.protoc",
            f"--proto_path={PROTO_ROOT}",
            f"--proto_path={well_known}",
            f"--plugin=protoc-gen-mypy={plugins['mypy']}",
            f"--plugin=protoc-gen-mypy_grpc={plugins['mypy_grpc']}",
            f"--python_out={tmp}",
            f"--grpc_python_out={tmp}",
            f"--mypy_out={tmp}",
            f"--mypy_grpc_out={tmp}",
            *(str(p) for p in proto_files()),
        ]
        # protoc resolves the file arguments against the proto path; run it from proto/ so the
        # relative names match and nothing depends on the caller's working directory.
        cwd = Path.cwd()
        try:
            os.chdir(PROTO_ROOT)
            code = protoc.main(args)
        finally:
            os.chdir(cwd)
        if code != 0:
            raise SystemExit(f"protoc failed with exit code {code}")
        generated = Path(tmp) / PACKAGE
        for proto in proto_files():
            if "\nservice " not in (PROTO_ROOT / proto).read_text(encoding="utf-8"):
                # A file without services gets an empty *_pb2_grpc module: leave it out.
                for suffix in (".py", ".pyi"):
                    (generated / f"{proto.stem}_pb2_grpc{suffix}").unlink(missing_ok=True)
        (generated / "__init__.py").write_text(INIT, encoding="utf-8")
        target = out_root / PACKAGE
        if target.exists():
            shutil.rmtree(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(generated, target)
    return target


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT, help="root to write arena/v1/ under (default: the repo)")
    args = parser.parse_args(argv)
    target = generate(args.out.resolve())
    print(f"generated {len(list(target.iterdir()))} files in {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
