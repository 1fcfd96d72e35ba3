"""``sha1opt prove``: formulas, the rewrite corpus, and machine code -- straight-line snippets and whole functions.

Click commands, not attached to a group: ``cli.main`` loads this module only when one of
its commands runs (so ``sha1opt prove`` does not import the search). Each parses its
arguments, makes one library call and formats the result.
"""

from __future__ import annotations

import json
import sys

import click

from sha1opt.analyze import prove_object
from sha1opt.cli_types import Seconds, TextSource
from sha1opt.emit.objfile import MEMBER_HELP
from sha1opt.cli_common import INTERFACE_HELP
from sha1opt.semantics import identities
from sha1opt.semantics.errors import Sha1optError
from sha1opt.semantics.lift.interface import parse_interface
from sha1opt.semantics.prove import Counterexample, Proved, Unknown, prove_exprs
from sha1opt.snippet import prove_snippet
from sha1opt.cli_common import EXIT_FAIL, EXIT_OK, EXIT_UNKNOWN, EXIT_USAGE, cpp, cpp_options, fail


def _exit_code(outcome) -> int:
    if isinstance(outcome, Proved):
        return EXIT_OK
    return EXIT_FAIL if isinstance(outcome, Counterexample) else EXIT_UNKNOWN


def _outcome_json(outcome) -> dict:
    if isinstance(outcome, Proved):
        return {"result": "proved", "seconds": round(outcome.seconds, 6), "method": outcome.method}
    if isinstance(outcome, Counterexample):
        return {"result": "counterexample", "inputs": {k: f"{v:#010x}" for k, v in sorted(outcome.inputs.items())},
                "lhs": f"{outcome.lhs:#010x}", "rhs": f"{outcome.rhs:#010x}", "found_by": outcome.found_by}
    return {"result": "unknown", "reason": outcome.reason}


def _outcome_text(outcome, lhs_name: str = "lhs", rhs_name: str = "rhs") -> str:
    if isinstance(outcome, Proved):
        return f"proved ({outcome.method}, {outcome.seconds:.3f} s)"
    if isinstance(outcome, Counterexample):
        inputs = ", ".join(f"{k}={v:#010x}" for k, v in sorted(outcome.inputs.items()))
        return (f"counterexample ({outcome.found_by}): {inputs}\n"
                f"  {lhs_name} = {outcome.lhs:#010x}\n  {rhs_name} = {outcome.rhs:#010x}")
    return f"unknown: {outcome.reason} (not a proof)"


def _parse_map(text: str) -> dict[str, str]:
    mapping: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        var, eq, reg = item.partition("=")
        if not eq or not var.strip() or not reg.strip():
            raise click.BadParameter(f"{item!r} is not VAR=REG", param_hint="--map")
        var = var.strip()
        if var in mapping:
            raise click.BadParameter(f"variable {var!r} mapped twice", param_hint="--map")
        mapping[var] = reg.strip().lstrip("%").lower()
    return mapping


@click.command()
@click.argument("exprs", nargs=-1)
@click.option("--corpus", "use_corpus", is_flag=True, help="Prove every identity in the rewrite corpus.")
@click.option("--asm", "asm_file", type=TextSource(), help="Straight-line code (.s/.S, assembled; the machine code is proved).")
@click.option("--out", "out_reg", help="With --asm: the register holding the result (e.g. eax).")
@click.option("--expr", help="With --asm: the formula the result must equal.")
@click.option("--map", "mapping", default="", help="With --asm: variables to registers, e.g. b=ebx,c=ecx,d=edx.")
@click.option("--object", "object_file", type=click.Path(dir_okay=False),
              help="A whole block function: .s/.S (assembled), .o, .a (with --member) or shared object.")
@click.option("--function", default=None, help="With --object: default sha1_block_data_order, else the only global function; a stripped "
              "function as scan names it, sub_<hex address>.")
@click.option("--abi", type=click.Choice(["sysv", "cdecl"]), default=None, help="With --object: default by arch.")
@click.option("--member", default=None, help=MEMBER_HELP)
@click.option("--interface", default=None,
              help="With --object: " + INTERFACE_HELP[0].lower() + INTERFACE_HELP[1:])
@click.option("--min-blocks", type=click.IntRange(0, 1), default=None,
              help="With --object: the contract's least nblocks (default 0, or 1 when 0 enters the loop).")
@click.option("--arch", type=click.Choice(["x86_64", "i386"]), default=None,
              help="--asm: default x86_64; --object text: default guessed.")
@click.option("--path", "path_labels", multiple=True,
              help="With --object: prove only the dispatch path(s) with this label (repeatable), e.g. "
                   "_ssse3_shortcut; the others are 'not checked' and the result is 'partial' (exit 0: the "
                   "selected paths proved, not the function).")
@click.option("--timeout", type=Seconds(0.001), default=10.0, show_default=True, help="Seconds per Z3 query.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@cpp_options
def prove(exprs, use_corpus, asm_file, object_file, function, abi, member, interface, min_blocks, path_labels, out_reg,
          expr, mapping, arch, timeout, as_json, includes, defines):
    """Prove EXPR1 == EXPR2 for all 32-bit inputs, the corpus, or code against a formula.

    \b
    sha1opt prove "(b&c)|(d&(b|c))" "(b&c)+(d&(b^c))"
    sha1opt prove --corpus
    sha1opt prove --asm f3.s --out eax --expr "(b&c)|(d&(b|c))" --map b=ebx,c=ecx,d=edx
    sha1opt prove --object libcrypto.a --member libcrypto-lib-sha1-x86_64.o
    sha1opt prove --object sha1-x86_64.o --path _ssse3_shortcut
    sha1opt prove --object sha1.o --interface "sha_transform(state, data, workspace[80])"
    """

    modes = sum([bool(exprs), use_corpus, asm_file is not None, object_file is not None])
    if modes != 1:
        raise click.UsageError("give EXPR1 EXPR2, or --corpus, or --asm FILE, or --object FILE")
    if interface is not None and object_file is None:
        raise click.UsageError("--interface goes with --object")
    if path_labels and object_file is None:
        raise click.UsageError("--path goes with --object")
    if (includes or defines) and object_file is None:
        raise click.UsageError("-I and -D go with --object")
    if object_file is not None:
        _prove_object(object_file, function, abi, member, interface, min_blocks, arch, as_json,
                      frozenset(path_labels) or None, (includes, defines))
        return
    arch = arch or "x86_64"
    if use_corpus:
        results = identities.check(identities.load(), timeout)
        _report_corpus(results, as_json)
        return
    if asm_file is not None:
        if not out_reg or not expr:
            raise click.UsageError("--asm needs --out REG and --expr EXPR")
        outcome = prove_snippet(asm_file, out_reg.lstrip("%").lower(), expr, _parse_map(mapping), arch=arch,
                                timeout=timeout)
        names = (f"%{out_reg.lstrip('%')}", "expr")
    else:
        if len(exprs) != 2:
            raise click.UsageError(f"expected two expressions, got {len(exprs)}")
        outcome = prove_exprs(exprs[0], exprs[1], timeout)
        names = ("lhs", "rhs")
    click.echo(json.dumps(_outcome_json(outcome)) if as_json else _outcome_text(outcome, *names))
    sys.exit(_exit_code(outcome))


def _prove_object(path, function, abi, member, interface, min_blocks, arch, as_json, labels=None,
                  cpp_args=((), ())) -> None:
    try:
        declared = parse_interface(interface) if interface is not None else None
        if declared is not None and declared.one_block and min_blocks is not None:
            fail(f"--min-blocks does not apply to the one-block interface {declared}")
        res = prove_object(path, function=function, abi=abi, member=member, arch=arch, min_blocks=min_blocks,
                           interface=declared, paths=labels, cpp=cpp(*cpp_args))
    except Sha1optError as e:
        fail(str(e))
    code = {"proved": EXIT_OK, "partial": EXIT_OK, "counterexample": EXIT_FAIL, "refused": EXIT_USAGE}.get(res.outcome, EXIT_UNKNOWN)
    if as_json:
        click.echo(json.dumps({
            "file": path, "source": res.source, "function": res.function, "arch": res.arch, "result": res.outcome,
            "summary": res.summary(), "contract": res.contract.describe(), "interface": res.interface,
            "interface_origin": res.interface_origin, "findings": list(res.findings),
            "seconds": round(res.seconds, 3),
            "paths": [{"name": p.name, "kind": p.kind, "label": p.label, "head": p.head, "condition": p.condition,
                       "result": p.outcome, "detail": p.detail, "cuts": p.cuts, "category": p.category,
                       "instructions": p.instructions, "seconds": round(p.seconds, 3)} for p in res.proof.paths]},
            indent=1))
        sys.exit(code)
    click.echo(f"{path}: {res.source}, function {res.function} ({res.arch})")
    click.echo(f"  interface: {res.interface}, from {res.interface_origin}")
    click.echo(f"  contract: {res.contract.describe()}")
    for p in res.proof.paths:
        click.echo(f"  path {p.name} [{p.condition}]: {p.outcome} ({p.instructions} instructions, {p.seconds:.2f} s)"
                   f" -- {p.detail}")
    for f in res.findings:
        click.echo(f"  finding: {f}")
    click.echo(f"  SHA-1: {res.summary()}")
    if res.outcome == "refused":
        click.echo(f"sha1opt: error: {res.proof.refusal}", err=True)
    sys.exit(code)


def _report_corpus(results, as_json: bool) -> None:
    bad = [r for r in results if not r.ok]
    if as_json:
        rows = [{"name": r.identity.name, "expect": r.identity.expect, "ok": r.ok, **_outcome_json(r.outcome)}
                for r in results]
        click.echo(json.dumps({"identities": rows, "failed": [r.identity.name for r in bad]}, indent=1))
    else:
        for r in results:
            status = "ok  " if r.ok else "FAIL"
            click.echo(f"{status} {r.identity.name:34s} expect {r.identity.expect:6s} "
                       f"{_outcome_text(r.outcome).splitlines()[0]}")
            if not r.ok:
                click.echo("     " + _outcome_text(r.outcome).replace("\n", "\n     "))
        click.echo(f"{len(results) - len(bad)}/{len(results)} identities as expected")
    if any(not r.ok and not isinstance(r.outcome, Unknown) for r in bad):
        sys.exit(EXIT_FAIL)
    sys.exit(EXIT_UNKNOWN if bad else EXIT_OK)
