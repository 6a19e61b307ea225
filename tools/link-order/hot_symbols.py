#!/usr/bin/env python3
"""Print the functions of a shared library that callgrind saw run, as the
glob patterns of build.rs's link order: the first profile's in the order
they first ran, then each further profile's new ones.

usage: hot_symbols.py LIB PROFILE...   (callgrind run with --demangle=no)
       hot_symbols.py --check LIB LIST (how many of LIST's patterns match
                                        no function of LIB)

Callgrind names functions without a dynamic symbol (the C runtime's
frame_dummy and its neighbours, run when the library is loaded) by
address: those become the name of the function at that address in LIB's
symbol table. Callgrind marks recursion with a 'N suffix, stripped here.
Only names in LIB's symbol table are printed.

A pattern is the symbol with what differs between builds of the same code
replaced by `*`: the hash of a legacy Rust symbol (`17h<16 hex>E`, which
depends on the crate's path), the crate disambiguators of a v0 one
(`Cs<base62>_`), and ThinLTO's `.llvm.<n>` suffix (which changes with any
edit of the module).
"""
import fnmatch
import os
import re
import subprocess
import sys

NAME = re.compile(r"^(c?)(ob|fn)=\((\d+)\)(?: (.*))?$")


def functions_run(profile, lib):
    """Names of the functions of `lib` with a cost in `profile`, in order."""
    names = {"ob": {}, "fn": {}}
    current_ob = current_fn = None
    seen = []
    after_calls = False
    with open(profile) as f:
        for line in f:
            line = line.rstrip("\n")
            m = NAME.match(line)
            if m:
                callee, kind, index, name = m.groups()
                if name is not None:
                    names[kind][index] = name
                if not callee:
                    if kind == "ob":
                        current_ob = names["ob"].get(index)
                    else:
                        current_fn = names["fn"].get(index)
                continue
            if line.startswith("calls="):
                after_calls = True  # the next cost line is the call's, not this function's
                continue
            if line[:1].isdigit() or line[:1] in "+-*":
                if after_calls:
                    after_calls = False
                elif current_ob and os.path.realpath(current_ob) == lib and current_fn:
                    seen.append(re.sub(r"'\d+$", "", current_fn))
    return list(dict.fromkeys(seen))


def defined_functions(lib):
    """{name: address} of the functions LIB defines."""
    out = subprocess.run(["nm", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
    rows = (line.split() for line in out.splitlines())
    return {p[2]: int(p[0], 16) for p in rows if len(p) == 3 and p[1] in "tTwW"}


def named(function, defined, by_address):
    """The symbol name of a function callgrind named by its address."""
    if not function.startswith("0x"):
        return function
    at = int(function, 16)
    below = [a for a in by_address if a <= at]
    return by_address[max(below)] if below else function


# Functions the C runtime links in without a section of their own: the
# linker script names their object's whole .text instead.
RUNTIME_TEXT = {
    "deregister_tm_clones": "*crtbeginS.o(.text)",
    "register_tm_clones": "*crtbeginS.o(.text)",
    "__do_global_dtors_aux": "*crtbeginS.o(.text)",
    "frame_dummy": "*crtbeginS.o(.text)",
    "pthread_atfork": "*libc_nonshared.a:pthread_atfork.o*(.text)",
}


def pattern(symbol):
    """The build-independent glob pattern of `symbol`."""
    if symbol in RUNTIME_TEXT:
        return RUNTIME_TEXT[symbol]
    symbol = re.sub(r"\.llvm\.\d+$", "*", symbol)
    if symbol.startswith("_ZN"):
        return re.sub(r"17h[0-9a-f]{16}E\*?$", "17h*", symbol)
    if symbol.startswith("_R"):
        return re.sub(r"Cs[0-9A-Za-z]+_", "Cs*_", symbol)
    return symbol


def check(lib, listing):
    """Print how many patterns of `listing` match no function of `lib`, then those."""
    defined = defined_functions(os.path.realpath(lib))
    with open(listing) as f:
        patterns = [p.strip() for p in f if p.strip() and not p.startswith("#")]
    runtime = set(RUNTIME_TEXT.values())
    missing = [p for p in patterns if p not in runtime and not fnmatch.filter(defined, p)]
    print(f"{len(missing)} of {len(patterns)} listed patterns match no function of {lib}:")
    for p in missing:
        print(p)


def main():
    if sys.argv[1] == "--check":
        check(sys.argv[2], sys.argv[3])
        return
    lib = os.path.realpath(sys.argv[1])
    defined = defined_functions(lib)
    by_address = {}
    for name, at in sorted(defined.items()):
        by_address.setdefault(at, name)
    order = []
    for profile in sys.argv[2:]:
        order.extend(named(f, defined, by_address) for f in functions_run(profile, lib))
    for name in dict.fromkeys(pattern(n) for n in order if n in defined):
        print(name)


if __name__ == "__main__":
    main()
