"""CLI contract: exit 0 proved, 1 counterexample, 2 usage/bad input, 3 unknown; one-line errors."""

import json
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner

from sha1opt.cli import main

F3 = "(b&c)|(d&(b|c))"


def run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_proved_exit_0():
    r = run("prove", F3, "(b&c)+(d&(b^c))")
    assert r.exit_code == 0 and r.output.startswith("proved")


def test_counterexample_exit_1_shows_hex_inputs_and_both_sides():
    r = run("prove", F3, "(b&c)+(d&(b|c))")
    assert r.exit_code == 1
    assert "counterexample" in r.output and "b=0x" in r.output
    assert "lhs = 0x" in r.output and "rhs = 0x" in r.output


def test_json_output():
    r = run("prove", F3, "(b&c)+(d&(b|c))", "--json")
    data = json.loads(r.output)
    assert r.exit_code == 1 and data["result"] == "counterexample"
    assert set(data["inputs"]) == {"b", "c", "d"} and data["lhs"] != data["rhs"]


def test_unknown_exit_3(tmp_path):
    # 6 majority rounds in two forms: equal, but far from provable in 50 ms (5 s did not suffice).
    def rounds(form):
        a, b, c, d, e = "abcde"
        for t in range(6):
            f = f"(({b}) & ({c})) | (({d}) & (({b}) | ({c})))" if form == "or" else \
                f"(({b}) & ({c})) + (({d}) & (({b}) ^ ({c})))"
            a, b, c, d, e = f"(rol({a},5) + ({f}) + ({e}) + 0x8f1bbcdc + w{t})", a, f"rol({b},30)", c, d
        return a
    r = run("prove", rounds("or"), rounds("sum"), "--timeout", "0.05")
    assert r.exit_code == 3 and r.output.startswith("unknown")


@pytest.mark.parametrize("args, fragment", [
    (["prove", "a +", "a"], "first expression: column 4"),
    (["prove", "a", "__import__('os').system('x')"], "second expression: column 12: unexpected character"),
    (["prove", "(" * 10000 + "a" + ")" * 10000, "a"], "nesting deeper than"),
    (["prove", "a" * (1 << 20), "a"], "the limit is"),
])
def test_bad_expression_exit_2_one_line(args, fragment):
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 2
    assert fragment in r.output
    assert len(r.output.strip().splitlines()) == 1


@pytest.mark.parametrize("args", [["prove"], ["prove", "a"], ["prove", "a", "b", "--corpus"],
                                  ["prove", "--asm", "x.s"]])
def test_usage_errors_exit_2(args):
    assert CliRunner().invoke(main, args).exit_code == 2


def test_corpus_all_as_expected():
    r = run("prove", "--corpus")
    assert r.exit_code == 0, r.output
    assert "identities as expected" in r.output


F3_ASM = "mov %ebx,%eax\nand %ecx,%eax\nmov %ebx,%esi\nxor %ecx,%esi\nand %edx,%esi\nadd %esi,%eax\n"


def test_asm_proved_and_refuted(tmp_path):
    f = tmp_path / "f3.s"
    f.write_text(F3_ASM)
    ok = run("prove", "--asm", str(f), "--out", "eax", "--expr", F3, "--map", "b=ebx,c=ecx,d=edx", "--arch", "i386")
    assert ok.exit_code == 0, ok.output
    bad = run("prove", "--asm", str(f), "--out", "esi", "--expr", F3, "--map", "b=ebx,c=ecx,d=edx")
    assert bad.exit_code == 1 and "%esi = 0x" in bad.output


def test_asm_unsupported_line_exit_2(tmp_path):
    f = tmp_path / "bad.s"
    f.write_text("mov %ebx,%eax\nadc %ecx,%eax\n")
    r = CliRunner().invoke(main, ["prove", "--asm", str(f), "--out", "eax", "--expr", "b", "--map", "b=ebx"])
    assert r.exit_code == 2 and f"{f}:2: unsupported instruction 'adc'" in r.output


def test_bad_map_exit_2(tmp_path):
    f = tmp_path / "f.s"
    f.write_text("mov %ebx,%eax\n")
    r = CliRunner().invoke(main, ["prove", "--asm", str(f), "--out", "eax", "--expr", "b", "--map", "b=foo"])
    assert r.exit_code == 2 and "unknown register 'foo'" in r.output


def test_console_script_installed():
    exe = shutil.which("sha1opt") or str(__import__("pathlib").Path(sys.executable).with_name("sha1opt"))
    p = subprocess.run([exe, "prove", "rol(x,5)", "ror(x,27)"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.startswith("proved")
