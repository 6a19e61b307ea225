#!/usr/bin/env python3
"""Print the functions of a shared library that callgrind saw run, for
lld's --symbol-ordering-file: the first profile's in the order they first
ran, then each further profile's new ones.

usage: hot_symbols.py LIB PROFILE...   (callgrind run with --demangle=no)

Callgrind names functions without a dynamic symbol (the C runtime's
frame_dummy and its neighbours, run when the library is loaded) by
address: those become the name of the function at that address in LIB's
symbol table. Callgrind marks recursion with a 'N suffix, stripped here.
Only names in LIB's symbol table are printed.
"""
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


def main():
    lib = os.path.realpath(sys.argv[1])
    defined = defined_functions(lib)
    by_address = {}
    for name, at in sorted(defined.items()):
        by_address.setdefault(at, name)
    order = []
    for profile in sys.argv[2:]:
        order.extend(named(f, defined, by_address) for f in functions_run(profile, lib))
    for name in dict.fromkeys(order):
        if name in defined:
            print(name)


if __name__ == "__main__":
    main()
