"""The AES-CBC stream a stitched function encrypts beside the hash: its contract, memory and proof obligations.

OpenSSL's ``aesni_cbc_sha1_enc(const void *inp, void *out, size_t blocks, const AES_KEY *key, unsigned char
iv[16], SHA_CTX *ctx, const void *in0)`` (crypto/aes/asm/aesni-sha1-x86_64.pl, its SSSE3, AVX and SHA-NI bodies)
encrypts ``64*blocks`` bytes of ``inp`` into ``out`` with AES in CBC mode while it hashes ``blocks`` blocks of
``in0`` into the SHA-1 state. Declared as ``(plain, cipher, nblocks, key, iv, state, data)``: the four roles of
this module come all together, with ``nblocks`` (``check_roles``).

What the contract says (``Contract.describe``):

* ``plain`` -- ``64*nblocks`` bytes, read only, block k's 16 words read relative to the block like the data
  (``memory._key``): word c of the current block is ``plain[c]``;
* ``cipher`` -- ``64*nblocks`` bytes, written only (a read is refused): after the call its 16-byte block i holds
  C_i = E(P_i xor C_{i-1}), C_{-1} the iv;
* ``key`` -- an AES-NI key schedule as OpenSSL's ``aesni_set_encrypt_key`` lays it out: round key r's lane j at
  byte 16r + 4j (``key[16r+4j]``) and, at byte 240, the number of ``aesenc`` rounds -- 9, 11 or 13 for a 128-,
  192- or 256-bit key (``ROUNDS``, an axiom) -- before the ``aesenclast`` with round key ``rounds+1``. Read only;
  a word at any other offset is refused;
* ``iv`` -- 16 bytes: read before the loop (a read where the current block is not the first is refused: an earlier
  iteration may have written it), written on the way out, where it must hold the last ciphertext block.

The code addresses its output as ``inp + (out - inp)`` (``sub %r12, %r13``; ``movups %xmm2, (%r12,%r13,1)``):
``distance`` gives ``cipher - plain`` as an integer with the symbol ``distance_symbol`` (``cipher-plain``) in it,
and ``rebase`` turns an address into ``plain`` with exactly one such symbol in its offset into the ``cipher``
address it is. Nothing else is known of the two buffers' places: they are disjoint objects, like the state and the
data -- so the proof does not cover an in-place call (OpenSSL's own caller, e_aes_cbc_hmac_sha1.c, passes
out == inp and in0 inside the same buffer).

The loop invariant (``template``): the lanes that hold the iv where the loop is entered (``iv[0..12]``, kind
``Chain(j)``) hold the CBC chaining value C at every head, materialized as ``chain[4j]``. One iteration from the
head (``induction.verify_step``) is proved by ``holds``: the path fixes the round count (one of 9, 11, 13 is
implied by its condition); its ciphertext words are exactly the 16 of block k, each ``encrypt`` of the chain
over the block's four plaintext blocks; back at the head the chain lanes hold the last of them, at an exit the
iv's 16 bytes do. With the base case (``entered``: the chain lanes hold the caller's iv, nothing written to the
ciphertext or the iv before the loop), induction gives every ciphertext block and the final iv.

AES itself is the semantics table's (``aesenc``: ``aesr0..3`` then the round key; ``aesenclast``: ``aesl0..3``);
the prover compares the code's words with ``encrypt``'s by term identity (up to the order of xor's operands,
``xor_form``), else z3, where those ops are uninterpreted: a proof that holds for every function holds for AES.
Short of a proof, a word is a counterexample only where the prover's numpy test states (exact AES) give it another
value; a z3 model alone (not AES) is "unknown".

Example: ``parse_interface("(plain, cipher, nblocks, key, iv, state, data)")`` puts the data (``in0``) on the
stack at entry + 8 (SysV's seventh argument); OpenSSL's SSSE3 body then keeps C in ``%xmm2``, round key 0 in
``%xmm15`` (a head term over ``key[0..12]``) and ``out - inp`` in ``%r13``.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from sha1opt.semantics.errors import ParseError
from sha1opt.semantics.ir import COMMUTATIVE, Term
from sha1opt.semantics.lift.values import Int, Ptr, Refused, Violation
from sha1opt.semantics.prove import Counterexample, Proved

ROLES = ("plain", "cipher", "key", "iv")
REGIONS = ROLES                 # each role's buffer is the region of its name
CHAIN = "chain"                 # the name under which the chaining value's lanes are materialized
ROUNDS_AT = 240                 # the AES_KEY's ``rounds`` field
AES_ROUNDS = (9, 11, 13)        # aesenc rounds of a 128-, 192-, 256-bit key (aesni_set_encrypt_key's count)
MAX_ROUND_KEY = 14              # round keys 0..14 (256-bit keys): bytes 0..239
ROUNDS = z3.BitVec("aes rounds", 32)


def distance_symbol(bits: int) -> z3.BitVecRef:
    """The unknown ``cipher - plain`` (the two buffers' distance), ``bits`` wide (z3 names it: one constant)."""
    return z3.BitVec("cipher-plain", bits)


def check_roles(roles: list[str]) -> None:
    """The CBC roles come all four or none, and with ``nblocks`` (one block of 64 bytes each per iteration)."""
    have = [r for r in ROLES if r in roles]
    if have and len(have) != len(ROLES):
        missing = ", ".join(r for r in ROLES if r not in roles)
        raise ParseError(f"--interface: an AES-CBC stream needs all of plain, cipher, key and iv (missing: {missing})")
    if have and "nblocks" not in roles:
        raise ParseError("--interface: an AES-CBC stream (plain, cipher, key, iv) goes with an nblocks argument")


def axioms() -> list:
    """The contract's facts about the key: its round count is one ``aesni_set_encrypt_key`` writes."""
    return [z3.Or(*[ROUNDS == r for r in AES_ROUNDS])]


def entry_values(bits: int) -> dict:
    """Each CBC role's argument value at entry: a pointer to the start of its buffer."""
    return {r: Ptr(r, z3.BitVecVal(0, bits)) for r in ROLES}


def distance(x, y, bits: int):
    """``x - y`` for a pointer into the ciphertext and one into the plaintext (either order), else None."""
    if not (isinstance(x, Ptr) and isinstance(y, Ptr)) or {x.region, y.region} != {"plain", "cipher"}:
        return None
    sign = 1 if x.region == "cipher" else -1
    return Int(x.off - y.off + sign * distance_symbol(bits))


def rebase(p: Ptr, bits: int) -> Ptr:
    """An address ``plain + off`` whose offset holds ``cipher - plain`` once is ``cipher + (off - that)``."""
    if p.region != "plain":
        return p
    sym = distance_symbol(bits)
    rest = z3.simplify(z3.substitute(p.off, (sym, z3.BitVecVal(0, bits))))
    left = z3.simplify(p.off - rest - sym)
    return Ptr("cipher", rest) if z3.is_bv_value(left) and left.as_long() == 0 else p


def load(m, key: tuple, size: int, d):
    """A read of a CBC region at ``key`` (``memory._key``'s) by the path machine ``m``: its value (module
    docstring), or a refusal naming why not."""
    region, rest, c = key
    if rest:
        raise Refused(d, f"{region} read at a computed offset", "address")
    if region == "plain":
        if not (0 <= c <= 60 and c % 4 == 0 and size == 4):
            raise Refused(d, f"plaintext read outside the current block's 16 words or not as a 32-bit word "
                          f"(block{c:+d})", "address")
        return m.initial_mem("plain", c)
    if region == "key":
        if c == ROUNDS_AT and size == 4:
            return Int(z3.ZeroExt(m.bits - 32, ROUNDS))
        if not (0 <= c < 16 * (MAX_ROUND_KEY + 1) and c % 4 == 0 and size == 4):
            raise Refused(d, f"key schedule read other than a round key's 32-bit word or the round count "
                          f"(key{c:+d})", "address")
        return m.initial_mem("key", c)
    if region == "iv":
        if not (0 <= c <= 12 and c % 4 == 0 and size == 4):
            raise Refused(d, f"iv read outside its 4 words or not as a 32-bit word (iv{c:+d})", "address")
        block = z3.simplify(m.block)
        if not (z3.is_bv_value(block) and block.as_long() == 0):
            raise Refused(d, "reads the iv inside the loop (an earlier iteration may have written it)", "address")
        return m.initial_mem("iv", c)
    raise Refused(d, "reads the ciphertext buffer (written only)", "address")


def store(key: tuple, size: int, d) -> None:
    """A write to a CBC region: the current block's ciphertext words and the iv's, as 32-bit words; any other
    write is a violation."""
    region, rest, c = key
    if region == "cipher" and not rest and 0 <= c <= 60 and c % 4 == 0 and size == 4:
        return
    if region == "iv" and not rest and 0 <= c <= 12 and c % 4 == 0 and size == 4:
        return
    raise Violation(d, f"writes {region} memory outside {'the current block' if region == 'cipher' else 'its words'}"
                    if region in ("cipher", "iv") else f"writes {region} memory")


@dataclass(frozen=True)
class Chain:
    """A loop-head kind: lane ``index`` of the CBC chaining value (the iv where the loop is entered)."""

    index: int


def chain_lane(v) -> int | None:
    """Which iv lane ``v`` is where the loop is entered (the variable ``iv[4j]``), else None."""
    if isinstance(v, Term) and v.node.op == "var" and isinstance(v.node.payload, str):
        for j in range(4):
            if v.node.payload == f"iv[{4 * j}]":
                return j
    return None


def is_key_var(name: str) -> bool:
    """A round key word (``key[16]``): the same at every head, so head values may be built from it."""
    return name.startswith("key[") and name.endswith("]") and name[4:-1].isdigit()


def encrypt(dom, x: tuple, init_mem, rounds: int) -> tuple:
    """AES encryption of the 4 lanes ``x`` with the key schedule's words, as the semantics table's rounds
    compute it (``aesenc`` ``rounds`` times, then ``aesenclast``; FIPS-197 Cipher(), Intel's AES-NI rounds)."""
    def rk(r: int) -> list:
        return [init_mem("key", 16 * r + 4 * j) for j in range(4)]
    s = [dom.apply("xor", a, b) for a, b in zip(x, rk(0))]
    for r in range(1, rounds + 1):
        s = [dom.apply("xor", dom.apply(f"aesr{j}", *s), kj) for j, kj in enumerate(rk(r))]
    return tuple(dom.apply("xor", dom.apply(f"aesl{j}", *s), kj) for j, kj in enumerate(rk(rounds + 1)))


def expected(dom, chain: tuple, init_mem, rounds: int) -> list[tuple]:
    """The ciphertext of the current block's four AES blocks, chained from ``chain``."""
    out = []
    for i in range(4):
        p = [init_mem("plain", 16 * i + 4 * j) for j in range(4)]
        chain = encrypt(dom, tuple(dom.apply("xor", a, b) for a, b in zip(p, chain)), init_mem, rounds)
        out.append(chain)
    return out


def round_count(ctx, cond: list) -> int | None:
    """The round count the path's condition fixes, or None when it does not fix one."""
    fixed = [r for r in AES_ROUNDS if ctx.implies(cond, ROUNDS == r)]
    return fixed[0] if len(fixed) == 1 else None


def homes(template: dict, flat) -> list[tuple[int, tuple]]:
    """(chain lane, location) for every location holding a lane of the chain at the head -- every one is
    materialized as the chain, so every one is checked (a copy left stale would be read as the chain)."""
    return [(tv.index, loc) for loc, tv in flat(template) if isinstance(tv, Chain)]


def _whole(where: list) -> bool:
    return sorted({j for j, _ in where}) == [0, 1, 2, 3]


def _writes_iv(st) -> bool:
    """Whether ``st`` holds an iv word other than the caller's own (a word read back is kept as its variable)."""
    return any(key[0] == "iv" and not (chain_lane(v) is not None and key == ("iv", "", 4 * chain_lane(v)))
               for key, (v, _) in st.mem.items())


def untouched(st) -> str | None:
    """nblocks = 0 (a path that skips the loop): nothing written to the ciphertext, the iv as the caller left it;
    else what was written."""
    if any(key[0] == "cipher" for key in st.mem):
        return "writes the ciphertext"
    return "writes the iv" if _writes_iv(st) else None


def entered(st, template: dict, flat, read) -> str | None:
    """The base case: at the arrival ``st`` the chain lanes hold the caller's iv and nothing was written to the
    ciphertext or the iv; else why not."""
    wrote = untouched(st)
    if wrote:
        return f"{wrote} before the loop"
    where = homes(template, flat)
    if not _whole(where):
        return "the CBC chaining value (the iv) is not kept whole at the loop head"
    for j, loc in where:
        if chain_lane(read(st, loc)) != j:
            return f"the loop is entered without the iv's word {j} in its chaining value's lane"
    return None


def holds(ctx, template: dict, st, back: bool, dom, init_mem, prover, flat, read) -> tuple[str, str] | None:
    """One iteration's obligations at the end of the path ``st`` (module docstring): None when they hold, else
    (outcome, why): "counterexample" where exact AES gives a ciphertext word another value, else "unknown"."""
    rounds = round_count(ctx, st.cond)
    if rounds is None:
        return "unknown", "the path does not fix the key's round count (9, 11 or 13 aesenc rounds)"
    where = homes(template, flat)
    if not _whole(where):
        return "unknown", "the CBC chaining value is not kept whole at the loop head"
    chain = tuple(init_mem(CHAIN, 4 * j) for j in range(4))
    want = expected(dom, chain, init_mem, rounds)
    written = {key: v for key, v in st.mem.items() if key[0] == "cipher"}
    need = {("cipher", "", 16 * i + 4 * j): want[i][j] for i in range(4) for j in range(4)}
    if set(written) != set(need):
        missing = sorted(c for (_, _, c) in set(need) - set(written))
        extra = sorted(c for (_, _, c) in set(written) - set(need))
        return "counterexample", (f"the iteration does not write the block's ciphertext word at block{missing[0]:+d}"
                                  if missing else f"writes the ciphertext outside the block (block{extra[0]:+d})")
    memo: dict = {}
    for key, w in need.items():
        bad = _differs(written[key][0], w, prover, memo)
        if bad:
            return bad, f"the ciphertext word at block{key[2]:+d} is not E(P xor C) ({rounds} aesenc rounds)"
    last = want[3]
    if back:
        for j, loc in where:
            bad = _differs(read(st, loc), last[j], prover, memo)
            if bad:
                return bad, f"the chaining value's lane {j} at the loop head is not the block's last ciphertext"
        if _writes_iv(st):
            return "unknown", "writes the iv inside the loop"
        return None
    for j in range(4):
        got = st.mem.get(("iv", "", 4 * j))
        bad = "counterexample" if got is None else _differs(got[0], last[j], prover, memo)
        if bad:
            return bad, f"the iv's word {j} does not hold the last ciphertext block at the exit"
    return None


def _differs(got, want, prover, memo: dict) -> str | None:
    """None when ``got`` is ``want``: term identity, identity up to the order of xor's operands (``xor_form``), or
    a proof by the prover (AES uninterpreted in z3: only a proof counts). Else the outcome: "counterexample" when
    numpy (exact AES) found inputs where they differ, "unknown" otherwise."""
    if not (isinstance(got, Term) and got.builder is want.builder):
        return "unknown"
    if got == want or xor_form(got, memo) == xor_form(want, memo):
        return None
    res = prover.check(got, want)
    return None if isinstance(res, Proved) else "counterexample" if isinstance(res, Counterexample) else "unknown"


def xor_form(t: Term, memo: dict) -> int:
    """A number naming ``t`` up to the associativity and commutativity of ``xor`` (and the commutativity of the
    other commutative ops, ``ir.COMMUTATIVE``): equal numbers, equal terms. A maximal xor tree is the sorted
    multiset of its leaves' forms, pairs cancelling (x ^ x = 0). ``memo`` maps node ids and forms to numbers (one
    memo per builder). Example: ``(p ^ k) ^ c`` and ``(p ^ c) ^ k`` have one form, ``p ^ c`` and ``p ^ k`` two."""
    ids = memo.setdefault("ids", {})
    forms = memo.setdefault("forms", {})
    leaves_of = memo.setdefault("leaves", {})      # a xor node -> the forms of its tree's leaves, kept once
    nodes = t.builder.nodes
    order, todo = set(), [t.id]
    while todo:                                     # (iterative: AES chains are deep)
        i = todo.pop()
        if i in ids or i in order:
            continue
        order.add(i)
        todo.extend(nodes[i].args)
    for i in sorted(order):                         # (args have smaller ids: a forward pass)
        if i in ids:
            continue
        n = nodes[i]
        if n.op == "xor":
            count: dict[int, int] = {}
            for a in n.args:
                for f in leaves_of.get(a, (ids[a],)):
                    count[f] = count.get(f, 0) + 1
            leaves_of[i] = tuple(sorted(f for f, c in count.items() if c % 2))
            key = ("xor", leaves_of[i])
        else:
            args = tuple(ids[a] for a in n.args)
            key = (n.op, n.payload, tuple(sorted(args)) if n.op in COMMUTATIVE else args)
        ids[i] = forms.setdefault(key, len(forms))
    return ids[t.id]
