"""The dependency rules of the tree, read from every module's imports (ast), not from a diagram.

Rules (README "Layout"):
1. Layers point one way: ``sha1opt`` (CLI, views, analyze, demo job) -> ``emit`` -> ``search`` ->
   ``semantics``. A module may import its own layer and the ones below, never above.
2. Inside ``search``: ``cost`` (the cost models) is a leaf (semantics only); ``synth`` may use
   ``cost``; ``space`` (block generation) may use ``synth`` (its discovered sequences are recipe
   options) but not ``cost``; ``engines`` sit on space, cost and the objective; ``bound`` on
   space, cost and the objective; the driver on top may use everything in search.
3. No import cycles between project modules.
4. Project imports sit at module top level. An import inside a function hides a dependency;
   the few allowed ones are listed in ``ALLOWED_LOCAL`` with the reason.
5. ``corpus/`` is data: no module imports it as code.
6. No module uses another module's private name: no ``from sha1opt.x import _name`` and no
   ``module._name`` on an imported project module (``bench/`` scripts included). What another
   module needs is public API of its owner (a name without the underscore, with a docstring).
7. The family registry: a choice between families or vector dialects is a walk over the registry
   (``emit.families``) or a field of a dialect row (``search.space.hybrid_dialects``), never a
   comparison with a name. Outside the registry and family modules (``REGISTRY``) no ``==``, ``!=``,
   ``in`` or ``not in`` has a family name, a dispatch path name of its own or a dialect name as a
   literal operand (or in a literal tuple/list/set operand), and no dict literal is keyed by such
   names (a table of them is rows of the registry, or data keyed by what it is about). ``SAME_SPELLING`` lists the comparisons whose literal is an x86 feature
   that happens to be spelled like a dialect (cpuid bits, OpenSSL's masks), with the reason.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from sha1opt.emit.families import FAMILIES, preference
from sha1opt.search.space.hybrid_caps import LEVELS
from sha1opt.search.space.hybrid_dialects import DIALECTS
from sha1opt.semantics.features import ISA_INCLUDES

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"semantics": "sha1opt.semantics", "search": "sha1opt.search", "emit": "sha1opt.emit",
           "sha1opt": "sha1opt"}
LAYER = {"sha1opt.semantics": 0, "sha1opt.search": 1, "sha1opt.emit": 2, "sha1opt": 3}

# Inside search: which sub-packages each may import (besides itself and semantics).
SEARCH_MAY_IMPORT = {
    "space": {"synth"},   # the synthesized sequences (corpus/discovered.toml) are recipe options
    "cost": set(),
    "synth": {"cost"},
    "store": set(),
    "progress": set(),    # the Progress value long calls hand to their callback (a leaf)
    "measure": {"space", "cost"},   # the block-loop measure every family's block is priced by
    "objective": {"space", "cost", "measure"},
    "engines": {"space", "cost", "objective", "measure", "progress"},
    "blocks": {"space", "cost", "objective", "measure", "store"},
    "bound": {"space", "cost", "objective", "measure"},
    "robust": {"space", "cost", "objective", "measure"},    # final candidates priced on a model's ensemble
    "family_rows": {"space", "cost", "objective", "measure", "store", "engines"},
    "driver": {"space", "cost", "objective", "measure", "store", "blocks", "engines", "family_rows", "progress",
               "robust"},
}

# (importing module, imported module) -> why it is imported inside a function.
ALLOWED_LOCAL: dict[tuple[str, str], str] = {
    ("sha1opt.launcher", "sha1opt.cli"): "the console script installs the SIGINT handler before the ~1 s CLI import",
}


@functools.cache      # read once: project_imports looks every ImportFrom up in it (the tree does not change)
def modules() -> dict[str, Path]:
    out = {}
    for folder, pkg in FOLDERS.items():
        for p in (ROOT / folder).rglob("*.py"):
            rel = p.relative_to(ROOT / folder).with_suffix("")
            parts = [x for x in rel.parts if x != "__init__"]
            out[".".join([pkg, *parts])] = p
    return out


def layer_of(mod: str) -> str:
    for pkg in ("sha1opt.semantics", "sha1opt.search", "sha1opt.emit", "sha1opt.corpus"):
        if mod == pkg or mod.startswith(pkg + "."):
            return pkg
    return "sha1opt"


def search_part(mod: str) -> str:
    return mod.split(".")[2] if mod.count(".") >= 2 else ""


def project_imports(path: Path, mod: str) -> list[tuple[str, int, bool]]:
    """(imported module, line, inside a function?) for every project import of one file."""
    tree = ast.parse(path.read_text(), str(path))
    is_pkg = path.name == "__init__.py"
    out = []

    def visit(node, in_func):
        for child in ast.iter_child_nodes(node):
            f = in_func or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.ImportFrom):
                if child.level:
                    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
                    base = base[:len(base) - child.level + 1]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                if target == "sha1opt" or target.startswith("sha1opt."):
                    names = [a.name for a in child.names]
                    known = modules()
                    subs = [f"{target}.{n}" for n in names if f"{target}.{n}" in known]
                    for t in subs or [target]:
                        out.append((t, child.lineno, f))
            elif isinstance(child, ast.Import):
                for a in child.names:
                    if a.name == "sha1opt" or a.name.startswith("sha1opt."):
                        out.append((a.name, child.lineno, f))
            visit(child, f)

    visit(tree, False)
    return out


@functools.cache      # every rule reads the same edges: parse the tree once per session
def all_edges() -> tuple[tuple[str, str, str, bool], ...]:
    return tuple((mod, target, f"{path.relative_to(ROOT)}:{line}", local)
                 for mod, path in sorted(modules().items()) for target, line, local in project_imports(path, mod))


def test_layers_point_one_way():
    # ``sha1opt`` itself (sha1opt/__init__.py) holds only ``__version__`` and imports
    # nothing, so every layer may read the version from it.
    bad = [f"{where}: {mod} imports {t}" for mod, t, where, _ in all_edges()
           if t != "sha1opt" and layer_of(t) != "sha1opt.corpus" and LAYER[layer_of(t)] > LAYER[layer_of(mod)]]
    assert not bad, "upward imports:\n" + "\n".join(bad)


def test_search_sub_packages_keep_their_order():
    bad = []
    for mod, t, where, _ in all_edges():
        if layer_of(mod) != "sha1opt.search" or layer_of(t) != "sha1opt.search":
            continue
        a, b = search_part(mod), search_part(t)
        if a and b and a != b and b not in SEARCH_MAY_IMPORT.get(a, set()):
            bad.append(f"{where}: search.{a} imports search.{b}")
    assert not bad, "\n".join(bad)


def test_no_import_cycles():
    graph: dict[str, set[str]] = {}
    for mod, t, _, local in all_edges():
        if t != mod:
            graph.setdefault(mod, set()).add(t)
    index, low, stack, on, cycles = {}, {}, [], set(), []

    def strong(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in list(graph):
        if v not in index:
            strong(v)
    assert not cycles, f"import cycles: {cycles}"


def test_project_imports_are_at_module_level():
    bad = [f"{where}: {mod} imports {t} inside a function" for mod, t, where, local in all_edges()
           if local and (mod, t) not in ALLOWED_LOCAL]
    assert not bad, "\n".join(bad)


def test_the_root_package_imports_nothing():
    assert project_imports(ROOT / "sha1opt" / "__init__.py", "sha1opt") == []


def test_corpus_is_data_not_code():
    assert not [w for m, t, w, _ in all_edges() if layer_of(t) == "sha1opt.corpus"]
    assert not [p for p in (ROOT / "corpus").rglob("*.py") if p.name != "__init__.py"]


def test_the_rules_catch_a_violation(tmp_path):
    """The checker itself: an upward import in a sample module is found."""
    p = tmp_path / "x.py"
    p.write_text("from sha1opt.emit.export import export\n\ndef f():\n    from sha1opt.search import driver\n")
    got = project_imports(p, "sha1opt.semantics.x")
    assert ("sha1opt.emit.export", 1, False) in got and any(local for _, _, local in got)


def private_uses(path: Path) -> list[str]:
    """Another project module's private names used in one file: imported by name, or as ``module._name``."""
    tree = ast.parse(path.read_text())
    modules: set[str] = set()
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sha1opt"):
            for a in node.names:
                if a.name.startswith("_") and not a.name.startswith("__"):
                    out.append(f"{path.name}:{node.lineno}: from {node.module} import {a.name}")
                modules.add(a.asname or a.name)
        elif isinstance(node, ast.Import):
            modules |= {a.asname or a.name.split(".")[0] for a in node.names if a.name.startswith("sha1opt")}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                and isinstance(node.value, ast.Name) and node.value.id in modules):
            out.append(f"{path.name}:{node.lineno}: {node.value.id}.{node.attr}")
    return out


def test_no_module_uses_another_modules_private_names():
    files = [*modules().values(), *(ROOT / "bench").glob("*.py")]
    bad = [u for p in files for u in private_uses(p)]
    assert not bad, "\n".join(bad)


def test_the_private_name_rule_catches_a_violation(tmp_path):
    p = tmp_path / "x.py"
    p.write_text("from sha1opt.emit import bench\nfrom sha1opt.emit.validate import _timed\n"
                 "from sha1opt.emit.bench import refusal\n\nbench._stats()\nrefusal._x\n")
    got = sorted(private_uses(p))
    assert got == ["x.py:2: from sha1opt.emit.validate import _timed", "x.py:5: bench._stats", "x.py:6: refusal._x"]


# --- 7. the family registry ------------------------------------------------------------------------------

REGISTRY = {"sha1opt.emit.family", "sha1opt.emit.families", "sha1opt.emit.family_scalar",
            "sha1opt.emit.family_hybrid", "sha1opt.emit.family_shani", "sha1opt.search.space.hybrid_dialects"}
# (module, literal) -> why comparing with it is not a choice of family or dialect
SAME_SPELLING: dict[tuple[str, str], str] = {
    **{("sha1opt.emit.host_cpu", f): "an x86 feature read from cpuid/xgetbv (AVX-512 needs AVX-512F; "
       "no AVX state: no VEX code), its cpuid bit and /proc/cpuinfo spelling" for f in ("ssse3", "avx", "avx512vl")},
    **{("sha1opt.emit.dispatch_word", f): "the capability word's bit of an x86 feature and its cpuid leaves: the "
       "VEX features need the OS's AVX state" for f in ("ssse3", "avx", "avx512vl")},
    **{("sha1opt.emit.peers", f): "OpenSSL's own dispatch, which reads these x86 features, and its path names"
       for f in ("ssse3", "avx", "shani")},
    **{("sha1opt.search.space.hybrid_caps", f): "the --isa levels' feature sets (a level is named for what the "
       "CPU has; the family a level belongs to is the registry's, families.family_of)" for f in ("ssse3", "avx",
                                                                                                 "shani")},
    ("sha1opt.views.drawing", "scalar"): "a unit class of the drawing (scalar vs vector units), not the family",
    ("sha1opt.search.space.shani", "avx"): "the SHA-NI family's own msg2 form named for the feature it uses",
}


def registry_names() -> set[str]:
    """Family names, the dispatch path names that are neither a level nor a feature, and dialect names."""
    own_paths = set(preference()) - set(LEVELS) - set(ISA_INCLUDES)
    return {f.name for f in FAMILIES} | own_paths | set(DIALECTS)


def _literals(node) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return set()


def name_comparisons(tree: ast.AST, names: set[str]) -> list[tuple[int, str, str]]:
    """(line, literal, source) of every comparison with a registry name in ``tree``, and of every dict
    literal keyed by one."""
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Compare) and any(isinstance(o, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)) for o in n.ops):
            for side in (n.left, *n.comparators):
                out += [(n.lineno, lit, ast.unparse(n)) for lit in sorted(_literals(side) & names)]
        elif isinstance(n, ast.Dict):
            keys = set().union(*(_literals(k) for k in n.keys if k is not None))
            out += [(n.lineno, lit, ast.unparse(n)[:80]) for lit in sorted(keys & names)]
    return out


def test_no_family_or_dialect_name_decides_outside_the_registry():
    names = registry_names()
    bad = []
    for mod, path in sorted(modules().items()):
        if mod in REGISTRY:
            continue
        for line, lit, src in name_comparisons(ast.parse(path.read_text(), str(path)), names):
            if (mod, lit) not in SAME_SPELLING:
                bad.append(f"{path.relative_to(ROOT)}:{line}: compares with {lit!r}: {src}")
    assert not bad, "choose through the registry (emit/families.py) or a dialect row:\n" + "\n".join(bad)


def test_the_registry_rule_catches_a_name_chain():
    """The checker itself: an if/elif chain on a family or dialect name, a dict-literal lookup and a table keyed
    by such names are found."""
    src = ('if kind == "shani":\n    pass\nelif isa in ("ssse3", "avx"):\n    pass\n'
           'x = {"hybrid": 1, "scalar": 2}[kind]\nWORDS = {"integer": 0, "avx512vl": 1}\n')
    got = {(line, lit) for line, lit, _ in name_comparisons(ast.parse(src), registry_names())}
    assert got == {(1, "shani"), (3, "ssse3"), (3, "avx"), (5, "hybrid"), (5, "scalar"), (6, "avx512vl")}
