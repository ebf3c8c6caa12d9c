#!/usr/bin/env python3
"""Compare the device machine code of two CUDA object files, kernel by kernel, without cuobjdump.

    scripts/compare-cubin.py OLD.cu.o NEW.cu.o

Extracts the (uncompressed) sm_XX cubins from each object's .nv_fatbin section and, per kernel (names
matched after removing the anonymous-namespace hash), compares the bytes of its .text section, its
relocations and its .nv.info attributes. Where two kernels have the same length but different bytes, it
says whether every difference lies in the constant-bank offset field (bits 40-53 of the 128-bit
instruction: c[0x0][offset / 4], i.e. a kernel parameter that moved) and lists the other differing bits.
Meant for refactors that must not change the kernels (docs/design.md, GPU solver source layout).
"""
import collections
import os
import re
import struct
import subprocess
import sys
import tempfile


def cubins(obj):
    with tempfile.NamedTemporaryFile(delete=False) as t:
        name = t.name
    subprocess.check_call(['objcopy', '-O', 'binary', '--only-section=.nv_fatbin', obj, name])
    data = open(name, 'rb').read()
    os.unlink(name)
    out, i = [], 0
    while True:
        i = data.find(b'\x7fELF', i)
        if i < 0:
            return out
        shoff, = struct.unpack_from('<Q', data, i + 0x28)
        shentsize, shnum = struct.unpack_from('<HH', data, i + 0x3A)
        size = shoff + shentsize * shnum
        out.append(data[i:i + size])
        i += size


def sections(elf):
    shoff, = struct.unpack_from('<Q', elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', elf, 0x3A)
    hdrs = [struct.unpack_from('<IIQQQQIIQQ', elf, shoff + k * shentsize) for k in range(shnum)]
    strtab_off = hdrs[shstrndx][4]

    def cstr(base, o):
        b = elf[base + o:]
        return b[:b.index(b'\0')].decode()

    secs = {}
    for name, typ, _f, _a, off, size, link, info, _al, entsize in hdrs:
        secs[cstr(strtab_off, name)] = dict(typ=typ, data=elf[off:off + size] if typ != 8 else b'', link=link,
                                            entsize=entsize)
    syms = []
    for s in secs.values():
        if s['typ'] == 2:  # SHT_SYMTAB
            str_off = hdrs[s['link']][4]
            for k in range(len(s['data']) // 24):
                n, = struct.unpack_from('<I', s['data'], k * 24)
                syms.append(cstr(str_off, n))
            break
    return secs, syms


def kernels(obj):
    res = {}
    for cb in cubins(obj):
        secs, syms = sections(cb)
        for name, s in secs.items():
            if not name.startswith('.text.'):
                continue
            k = name[6:]
            rel = secs.get('.rel' + name) or secs.get('.rela' + name)
            rels = []
            if rel:
                es = rel['entsize'] or 16
                for j in range(len(rel['data']) // es):
                    off, info = struct.unpack_from('<QQ', rel['data'], j * es)
                    rels.append((off, info & 0xffffffff, syms[info >> 32] if (info >> 32) < len(syms) else '?'))
            info = secs.get('.nv.info.' + k)
            res[k] = dict(text=s['data'], rels=rels, info=info['data'] if info else b'')
    return res


def norm(k):
    return re.sub(r'\d+_GLOBAL__N__[0-9a-f]{8}_\d+_\w*?_cu_[0-9a-f]{8}', 'ANON', k)


def bitdiff(a, b):
    n, bits, deltas = 0, collections.Counter(), collections.Counter()
    for i in range(0, len(a), 16):
        x, y = int.from_bytes(a[i:i + 16], 'little'), int.from_bytes(b[i:i + 16], 'little')
        if x != y:
            n += 1
            d = x ^ y
            bits.update(k for k in range(128) if d >> k & 1)
            deltas[(((y >> 40) & 0x3fff) - ((x >> 40) & 0x3fff)) * 4] += 1
    return n, bits, deltas


def main(old, new):
    a, b = kernels(old), kernels(new)
    names = sorted(set(a) | set(b))
    dm = dict(zip(names, subprocess.run(['c++filt'], input='\n'.join(names), capture_output=True,
                                        text=True).stdout.split('\n')))
    bn = {norm(k): k for k in b}
    seen = set()
    for k in sorted(a, key=lambda k: dm[k]):
        kb = k if k in b else bn.get(norm(k))
        if kb is None:
            print(f'GONE       {dm[k]}')
            continue
        seen.add(kb)
        ta, tb = a[k]['text'], b[kb]['text']
        strip = lambda rs: [(o, t, norm(s)) for o, t, s in rs]
        if ta == tb and strip(a[k]['rels']) == strip(b[kb]['rels']):
            tag = 'IDENTICAL' if a[k]['info'] == b[kb]['info'] else 'SAME-CODE (.nv.info differs)'
            print(f'{tag:10s} {len(ta) // 16:6d} instr  {dm[k]}')
        elif len(ta) != len(tb):
            print(f'CHANGED    {len(ta) // 16:6d} -> {len(tb) // 16} instr  {dm[k]}')
        else:
            n, bits, deltas = bitdiff(ta, tb)
            other = sorted(x for x in bits if not 40 <= x < 54)
            print(f'PARAMS     {len(ta) // 16:6d} instr, {n} differ; c[0x0] offset deltas {dict(deltas)}; other '
                  f'bits {other}  {dm[k]}')
    for k in sorted(set(b) - seen, key=lambda k: dm[k]):
        print(f'NEW        {len(b[k]["text"]) // 16:6d} instr  {dm[k]}')


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
