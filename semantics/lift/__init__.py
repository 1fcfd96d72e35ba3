"""Lifting machine code: from an ELF object to a proof of the whole function.

- ``elf``        sections, symbols and relocations of an x86 ELF object (pyelftools)
- ``decode``     capstone decoding into ``x86.Instr`` plus addresses, targets and references
- ``cfg``        basic blocks, back edges, the block loops (outermost loop heads)
- ``canary``     the stack-protector guard (``%fs:0x28`` / ``%gs:0x14``): one opaque constant, ``__stack_chk_fail``
- ``values``     the executor's value kinds (pointers, integers, entry values) and refusals with their category
- ``paths``      path state, code fetch, exploration with forks on undecided branches
- ``control``    flags (ZF SF CF OF as z3), branches, cmov forks, calls, returns, push/pop
- ``calls``      calls out of the function: known functions by contract (memcpy, memset, getenv, strlen, ...), local
                 functions followed (depth limit, no recursion), function pointers' every value (a path each),
                 the object's own function pointers loaded, stored (code addresses) and jumped through
- ``pointers``   which values a function pointer of the object may hold: its relocation and the code's stores
                 (a ``.o``'s relocations; a linked object's loader relocations and rip-relative references)
- ``vectors``    xmm/ymm state: vector rows through ``machine.vector_value``, alignment discharged
- ``memory``     addresses, regions, loads and stores of a path (refused/violations by name)
- ``executor``   one instruction at a time: pointers and counts exact (z3), data in any domain
- ``interface``  the contract proved under (``Contract``) and declared interfaces (``parse_interface``)
- ``arguments``  one argument of a declared interface: the grammar's tokens, a role with its size or offset
- ``catalogue``  other libraries' block functions and their interfaces (``corpus/interfaces.toml``, ``interface_for``)
- ``template``   the loop-head template: pointers/counts by steps, H (also in lanes), head values
- ``schedule``   cuts of SIMD message schedules and multi-round values (affine basis, inner rounds)
- ``induction``  one iteration from the template: back to the head (invariant) or to an exit; the base case
- ``multiblock`` loops of m blocks per iteration (OpenSSL's AVX2): the m-block invariant, its tails, chained
                 compressions cut at the block boundary
- ``verdict``    one proof step's result as data (outcome, detail, cuts, category)
- ``function``   the whole-function proof: entry, loop invariant, exits, restores, per dispatch path
- ``snippet``    straight-line code (``prove --asm``) decoded from an assembled object

Imports: ``semantics`` modules only (and pyelftools, capstone, z3); nothing
from search, emit or the CLI. Assembling text into objects is emit's job
(``emit.objfile``).
"""
