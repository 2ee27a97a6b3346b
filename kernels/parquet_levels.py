"""The Parquet writer's kernels (:mod:`cardbatch.batch.io.parquet_write`): a column chunk of an
Arrow column, given as numpy views of its buffers, encoded into the uncompressed bodies of its data
pages (format v1): repetition levels, then definition levels (each an RLE/bit-packed hybrid after
its 4-byte length, when the column has them), then the PLAIN values of the cells and elements
that are not null.

One level of list at most. :func:`plan_pages` cuts the chunk into pages (rows, about
``page_bytes`` each before compression); :func:`encode_pages` writes them. The column comes as:

- ``row_valid``: the top-level validity bitmap (a list's, or the cell's for a column that is not a
  list), from bit ``row_bit``; ``has_row_valid`` False: no nulls (the bitmap is not read);
- ``offsets``: a list column's ``n_rows + 1`` offsets into its child (int64); not read otherwise;
- ``leaf_valid``/``leaf_bit``/``has_leaf_valid``: a list's elements' validity (its child's);
- the values: ``data``, the bytes of element 0 on (a boolean column's bitmap, from bit
  ``data_bit``; a string column's characters), ``kind`` (:data:`COPY`: the bytes as they are;
  :data:`SIGNED`/:data:`UNSIGNED`: an integer of ``sw`` bytes widened to ``dw``; :data:`BOOL`;
  :data:`BYTES`: strings, whose int64 offsets into ``data`` are ``str_offsets``), and ``sw``/``dw``,
  a value's bytes in Arrow and in Parquet;
- its levels: the largest repetition level ``max_rep`` (0 or 1) and definition level ``max_def``,
  and ``d_empty``, an empty list's definition level (a null list's is 0, a null element's
  ``max_def - 1``).

Repetition levels are one bit-packed run (a bit a level), definition levels runs: RLE for 8 equal
levels or more, bit-packed for the rest.

What made it fast (a list column of ~6 int64s a row, 65,536 rows): a function that takes an array
is called once a page, never once a row (numba counts an array argument's references at each
call: 20 ns a row, more than all the rest of the levels); its loops index views that start at 0
(``offsets[r0:r1 + 1]``: twice as fast as indexing from ``r0``); bytes are copied by
:func:`memcpy`, an LLVM memcpy (numba's slice assignment copied a byte at a time, 4x slower), and
small integers are widened into an int32 array before one copy. Numpy in, numpy out.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

COPY, SIGNED, UNSIGNED, BOOL, BYTES = 0, 1, 2, 3, 4  # how a value is written (see the module docstring)
LITERAL_GROUPS = 63  # a bit-packed run of definition levels has 63 groups of 8 at most (one header byte)


@intrinsic
def memcpy(typingctx, dst, dst_at, src, src_at, count):
    """``dst[dst_at:dst_at + count] = src[src_at:src_at + count]`` for uint8 arrays, not
    overlapping, as one LLVM memcpy (no bounds checked)."""
    sig = types.void(dst, dst_at, src, src_at, count)

    def codegen(context, builder, signature, args):
        d, d_at, s, s_at, n = args
        da = context.make_array(signature.args[0])(context, builder, d)
        sa = context.make_array(signature.args[2])(context, builder, s)
        cgutils.raw_memcpy(builder, builder.gep(da.data, [d_at]), builder.gep(sa.data, [s_at]), n, 1)
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, nogil=True)
def _varint(out, pos, v):
    while v >= 0x80:
        out[pos] = (v & 0x7F) | 0x80
        pos += 1
        v >>= 7
    out[pos] = v
    return pos + 1


@njit(cache=True, nogil=True)
def _pack(lit, n, width, out, pos):
    """``lit[:n]`` as one bit-packed run of ``width`` bits a value (zeros pad the last group)."""
    groups = (n + 7) // 8
    pos = _varint(out, pos, (groups << 1) | 1)
    for g in range(groups):
        acc = np.int64(0)
        for j in range(8):
            k = g * 8 + j
            if k < n:
                acc |= np.int64(lit[k]) << (j * width)
        for b in range(width):
            out[pos] = (acc >> (8 * b)) & 0xFF
            pos += 1
    return pos


@njit(cache=True, nogil=True)
def _hybrid(run_v, run_l, runs, width, out, pos, lit):
    """Runs of equal levels (``run_v[k]``, ``run_l[k]`` times) in the RLE/bit-packed hybrid
    encoding from ``out[pos]``: a run of 8 or more is an RLE run, shorter ones go bit-packed."""
    cap = LITERAL_GROUPS * 8
    n = 0
    for k in range(runs):
        v = run_v[k]
        left = run_l[k]
        if n % 8:  # complete the open group of 8 first
            take = min(left, 8 - n % 8)
            for _ in range(take):
                lit[n] = v
                n += 1
            left -= take
            if n == cap:
                pos = _pack(lit, n, width, out, pos)
                n = 0
        if left >= 8:
            if n:
                pos = _pack(lit, n, width, out, pos)
                n = 0
            pos = _varint(out, pos, left << 1)
            out[pos] = v
            pos += 1
        else:
            for _ in range(left):
                lit[n] = v
                n += 1
                if n == cap:
                    pos = _pack(lit, n, width, out, pos)
                    n = 0
    if n:
        pos = _pack(lit, n, width, out, pos)
    return pos


@njit(cache=True, nogil=True)
def _put4(out, pos, v):
    out[pos] = v & 0xFF
    out[pos + 1] = (v >> 8) & 0xFF
    out[pos + 2] = (v >> 16) & 0xFF
    out[pos + 3] = (v >> 24) & 0xFF


@njit(cache=True, nogil=True)
def plan_pages(n_rows, row_valid, row_bit, has_row_valid, is_list, offsets, kind, dw, str_offsets, page_bytes):
    """A column chunk's pages (see the module docstring for the arguments): ``(page_rows,
    page_levels, bound, most_levels)``, page ``p`` holding rows ``page_rows[p]:page_rows[p + 1]``
    and ``page_levels[p]`` levels (its header's value count; of a list column, at most so many:
    :func:`encode_pages` counts them); ``bound``: bytes enough for the pages' bodies;
    ``most_levels``: the levels of the largest page, at most."""
    # the pages: rows, cut where the estimated bytes pass page_bytes
    page_rows = np.empty(n_rows + 2, np.int64)
    page_levels = np.empty(n_rows + 1, np.int64)
    pages = 0
    page_rows[0] = 0
    size = 0
    levels = 0
    bound = 0
    most_levels = 0
    if not is_list and kind != BYTES:  # a value of fixed size a row: pages of as many rows each
        per_page = max(page_bytes // max(dw, 1), 1)
        for r in range(0, n_rows, per_page):
            page_rows[pages] = r
            page_levels[pages] = min(per_page, n_rows - r)
            pages += 1
        if pages == 0:
            page_levels[0] = 0
            pages = 1
        most_levels = page_levels[0]
        bound = pages * 64 + n_rows * (dw + 2)
    elif is_list and not has_row_valid and kind != BYTES and n_rows:
        # lists without nulls: each page's last row by bisection on the offsets, its levels at most
        # its elements and rows (encode_pages counts them); a boolean counted as a byte
        size = max(dw, 1)
        r0 = 0
        while r0 < n_rows:
            base = offsets[r0]
            r1 = n_rows
            if size * (offsets[r1] - base) + r1 - r0 > page_bytes:
                lo = r0 + 1  # the page's end: the last row whose estimate fits, at least one row
                hi = n_rows
                while lo < hi:
                    mid = (lo + hi + 1) // 2
                    if size * (offsets[mid] - base) + mid - r0 <= page_bytes:
                        lo = mid
                    else:
                        hi = mid - 1
                r1 = lo
            elements = offsets[r1] - base
            page_levels[pages] = elements + r1 - r0
            most_levels = max(most_levels, elements + r1 - r0)
            bound += dw * elements + 2 * (elements + r1 - r0) + 64
            pages += 1
            page_rows[pages] = r1
            r0 = r1
    else:
        for r in range(n_rows):
            if is_list:
                e0 = offsets[r]
                e1 = offsets[r + 1]
                if has_row_valid:
                    i = row_bit + r
                    if not (row_valid[i >> 3] >> (i & 7)) & 1:
                        e1 = e0
                lv = e1 - e0 if e1 > e0 else 1
            else:
                e0 = r
                e1 = r + 1
                lv = 1
            if kind == BYTES:
                b = 4 * (e1 - e0) + str_offsets[e1] - str_offsets[e0] + 1
            else:
                b = dw * (e1 - e0) + 1
            if levels and size + b > page_bytes:
                page_levels[pages] = levels
                most_levels = max(most_levels, levels)
                bound += size + levels + 64
                pages += 1
                page_rows[pages] = r
                size = 0
                levels = 0
            size += b
            levels += lv
        page_levels[pages] = levels
        most_levels = max(most_levels, levels)
        bound += size + levels + 64
        pages += 1
    page_rows[pages] = n_rows
    return page_rows[: pages + 1], page_levels[:pages], bound, most_levels


@njit(cache=True, nogil=True)
def _rep_levels(out, pos, offsets, row_valid, row_bit, has_row_valid, n_levels):
    """A page's repetition levels (one list level) from ``out[pos]``, with their 4-byte length:
    one bit a level, 0 where a row starts; ``offsets``: the page's rows' ``rows + 1`` offsets."""
    rows = offsets.shape[0] - 1
    start = pos
    pos += 4
    if n_levels == rows:  # no row has two elements: one RLE run of 0
        pos = _varint(out, pos, n_levels << 1)
        out[pos] = 0
        pos += 1
    else:
        groups = (n_levels + 7) // 8
        pos = _varint(out, pos, (groups << 1) | 1)
        bits = out[pos : pos + groups]
        bits[:] = 0xFF
        at = 0
        for r in range(rows):
            bits[at >> 3] &= np.uint8(0xFF ^ (1 << (at & 7)))
            n = offsets[r + 1] - offsets[r]
            if has_row_valid:
                i = row_bit + r
                if not (row_valid[i >> 3] >> (i & 7)) & 1:
                    n = 1
            at += max(n, 1)
        if n_levels & 7:
            bits[groups - 1] &= np.uint8((1 << (n_levels & 7)) - 1)
        pos += groups
    _put4(out, start, pos - start - 4)
    return pos


@njit(cache=True, nogil=True)
def _cell_runs(rows, row_valid, row_bit, has_row_valid, run_v, run_l):
    """The runs of a page's definition levels of a column that is not a list: 1 a cell, 0 a null."""
    if not has_row_valid:
        run_v[0] = 1
        run_l[0] = rows
        return 1
    runs = 0
    cv = -1  # the open run: its level and length
    cl = 0
    for r in range(rows):
        i = row_bit + r
        v = (row_valid[i >> 3] >> (i & 7)) & 1
        if v == cv:
            cl += 1
        else:
            if cl:
                run_v[runs] = cv
                run_l[runs] = cl
                runs += 1
            cv = v
            cl = 1
    run_v[runs] = cv
    run_l[runs] = cl
    return runs + 1


@njit(cache=True, nogil=True)
def _list_runs(
    offsets, row_valid, row_bit, has_row_valid, leaf_valid, leaf_bit, has_leaf_valid, max_def, d_empty, run_v, run_l
):
    """The runs of a page's definition levels of a list column: 0 a null list, ``d_empty`` an
    empty one, then ``max_def`` an element (``max_def - 1`` a null one); ``offsets``: the page's."""
    rows = offsets.shape[0] - 1
    runs = 0
    cv = -1  # the open run: its level and length
    cl = 0
    if not has_row_valid and not has_leaf_valid:  # runs broken by empty lists alone
        for r in range(rows):
            c = offsets[r + 1] - offsets[r]
            v = max_def if c else d_empty
            c = max(c, 1)
            if v == cv:
                cl += c
            else:
                if cl:
                    run_v[runs] = cv
                    run_l[runs] = cl
                    runs += 1
                cv = v
                cl = c
    else:
        for r in range(rows):
            e0 = offsets[r]
            e1 = offsets[r + 1]
            v = max_def
            c = e1 - e0
            if has_row_valid:
                i = row_bit + r
                if not (row_valid[i >> 3] >> (i & 7)) & 1:
                    v = 0
                    c = 1
            if v and c == 0:
                v = d_empty
                c = 1
            if v == max_def and has_leaf_valid:
                for e in range(e0, e1):
                    i = leaf_bit + e
                    w = max_def if (leaf_valid[i >> 3] >> (i & 7)) & 1 else max_def - 1
                    if w == cv:
                        cl += 1
                    else:
                        if cl:
                            run_v[runs] = cv
                            run_l[runs] = cl
                            runs += 1
                        cv = w
                        cl = 1
            elif v == cv:
                cl += c
            else:
                if cl:
                    run_v[runs] = cv
                    run_l[runs] = cl
                    runs += 1
                cv = v
                cl = c
    if cl:
        run_v[runs] = cv
        run_l[runs] = cl
        runs += 1
    return runs


@njit(cache=True, nogil=True)
def _widen(out, pos, data, a, b, kind, sw, wide):
    """Elements ``a..b`` of 8- or 16-bit integers as INT32s from ``out[pos]``: widened in order
    into ``wide`` (int32), then copied."""
    n = b - a
    w = wide[:n]
    if sw == 1 and kind == SIGNED:
        s8 = data.view(np.int8)[a:b]
        for k in range(n):
            w[k] = s8[k]
    elif sw == 1:
        u8 = data[a:b]
        for k in range(n):
            w[k] = u8[k]
    elif kind == SIGNED:
        s16 = data.view(np.int16)[a:b]
        for k in range(n):
            w[k] = s16[k]
    else:
        u16 = data.view(np.uint16)[a:b]
        for k in range(n):
            w[k] = u16[k]
    memcpy(out, pos, w.view(np.uint8), 0, n * 4)
    return pos + n * 4


@njit(cache=True, nogil=True)
def _values(
    out,
    pos,
    kind,
    data,
    data_bit,
    sw,
    dw,
    str_offsets,
    is_list,
    offsets,
    r0,
    r1,
    row_valid,
    row_bit,
    has_row_valid,
    e_valid,
    e_bit,
    has_e_valid,
    wide,
):
    """A page's PLAIN values, of its cells and elements that are not null, from ``out[pos]``: a
    range of elements at a time (a list's rows that are not null, joined while their elements
    follow each other). Returns ``(pos, byte-array bytes)``."""
    strings = 0
    acc = 0  # booleans: the open byte and its bits
    nbits = 0
    r = r0
    while r < r1:
        if is_list and not has_row_valid:
            a = offsets[r0]
            b = offsets[r1]
            r = r1
        elif is_list:
            i = row_bit + r
            if not (row_valid[i >> 3] >> (i & 7)) & 1:
                r += 1
                continue
            a = offsets[r]
            b = offsets[r + 1]
            r += 1
            while r < r1:
                i = row_bit + r
                if not (row_valid[i >> 3] >> (i & 7)) & 1:
                    if offsets[r + 1] != offsets[r]:
                        break  # a null list with elements: they are not written
                    r += 1
                    continue
                b = offsets[r + 1]
                r += 1
        else:
            a = r0
            b = r1
            r = r1
        if kind == BOOL and not has_e_valid and nbits == 0 and (data_bit + a) & 7 == 0:
            whole = (b - a) >> 3  # whole bytes of the bitmap as they are, then the bits left
            memcpy(out, pos, data, (data_bit + a) >> 3, whole)
            pos += whole
            a += whole << 3
        if has_e_valid or kind == BOOL or kind == BYTES:  # an element at a time
            for e in range(a, b):
                if has_e_valid:
                    i = e_bit + e
                    if not (e_valid[i >> 3] >> (i & 7)) & 1:
                        continue
                if kind == COPY:
                    for k in range(sw):
                        out[pos + k] = data[e * sw + k]
                    pos += sw
                elif kind == SIGNED or kind == UNSIGNED:
                    x = np.int64(0)
                    for k in range(sw):
                        x |= np.int64(data[e * sw + k]) << (8 * k)
                    if kind == SIGNED and (x >> (8 * sw - 1)) & 1:
                        x -= np.int64(1) << (8 * sw)
                    for k in range(dw):
                        out[pos + k] = (x >> (8 * k)) & 0xFF
                    pos += dw
                elif kind == BOOL:
                    i = data_bit + e
                    acc |= ((data[i >> 3] >> (i & 7)) & 1) << nbits
                    nbits += 1
                    if nbits == 8:
                        out[pos] = acc
                        pos += 1
                        acc = 0
                        nbits = 0
                else:
                    s = str_offsets[e]
                    n = str_offsets[e + 1] - s
                    _put4(out, pos, n)
                    memcpy(out, pos + 4, data, s, n)
                    pos += 4 + n
                    strings += n
        elif kind == COPY:
            memcpy(out, pos, data, a * sw, (b - a) * sw)
            pos += (b - a) * sw
        elif dw == 4 and sw <= 2:
            pos = _widen(out, pos, data, a, b, kind, sw, wide)
        else:
            for e in range(a, b):
                x = np.int64(0)
                for k in range(sw):
                    x |= np.int64(data[e * sw + k]) << (8 * k)
                if kind == SIGNED and (x >> (8 * sw - 1)) & 1:
                    x -= np.int64(1) << (8 * sw)
                for k in range(dw):
                    out[pos + k] = (x >> (8 * k)) & 0xFF
                pos += dw
    if nbits:
        out[pos] = acc
        pos += 1
    return pos, strings


@njit(cache=True, nogil=True)
def encode_pages(
    row_valid,
    row_bit,
    has_row_valid,
    is_list,
    offsets,
    leaf_valid,
    leaf_bit,
    has_leaf_valid,
    kind,
    data,
    data_bit,
    sw,
    dw,
    str_offsets,
    max_rep,
    max_def,
    d_empty,
    page_rows,
    page_levels,
    out,
    scratch,
):
    """The bodies of the pages :func:`plan_pages` planned, into ``out`` (``bound`` bytes at least),
    with ``scratch`` (int64, 3 times ``most_levels + 1`` at least) for the runs of definition
    levels and the values widened.

    A list column's ``page_levels`` are set to the levels counted. Returns ``(page_ends,
    def_hist, rep_hist, byte_array_bytes)``: page ``p``'s body is
    ``out[page_ends[p]:page_ends[p + 1]]``; ``def_hist``/``rep_hist`` count the chunk's levels of
    each value; ``byte_array_bytes``: the bytes of the strings written, without their lengths.
    """
    pages = page_levels.shape[0]
    page_ends = np.empty(pages + 1, np.int64)
    def_hist = np.zeros(max_def + 1, np.int64)
    rep_hist = np.zeros(max_rep + 1, np.int64)
    most = scratch.shape[0] // 3
    run_v = scratch[:most]
    run_l = scratch[most : 2 * most]
    wide = scratch[2 * most : 3 * most].view(np.int32)  # a page's elements widened
    lit = np.empty(LITERAL_GROUPS * 8, np.uint8)
    width = 0
    while (1 << width) <= max_def:
        width += 1
    # an element's validity: a list's child's, or the cell's
    e_valid = leaf_valid if is_list else row_valid
    e_bit = leaf_bit if is_list else row_bit
    has_e_valid = has_leaf_valid if is_list else has_row_valid
    strings = 0
    pos = 0
    page_ends[0] = 0
    for p in range(pages):
        r0 = page_rows[p]
        r1 = page_rows[p + 1]
        if is_list:  # the definition levels' runs first: they count the page's levels
            runs = _list_runs(
                offsets[r0 : r1 + 1],
                row_valid,
                row_bit + r0,
                has_row_valid,
                leaf_valid,
                leaf_bit,
                has_leaf_valid,
                max_def,
                d_empty,
                run_v,
                run_l,
            )
            page_levels[p] = run_l[:runs].sum()
        elif max_def:
            runs = _cell_runs(r1 - r0, row_valid, row_bit + r0, has_row_valid, run_v, run_l)
        n_levels = page_levels[p]
        if max_rep:
            rep_hist[0] += r1 - r0
            rep_hist[1] += n_levels - (r1 - r0)
            pos = _rep_levels(out, pos, offsets[r0 : r1 + 1], row_valid, row_bit + r0, has_row_valid, n_levels)
        if max_def:
            for k in range(runs):
                def_hist[run_v[k]] += run_l[k]
            start = pos
            pos = _hybrid(run_v, run_l, runs, width, out, pos + 4, lit)
            _put4(out, start, pos - start - 4)
        pos, s = _values(
            out,
            pos,
            kind,
            data,
            data_bit,
            sw,
            dw,
            str_offsets,
            is_list,
            offsets,
            r0,
            r1,
            row_valid,
            row_bit,
            has_row_valid,
            e_valid,
            e_bit,
            has_e_valid,
            wide,
        )
        strings += s
        page_ends[p + 1] = pos
    return page_ends, def_hist, rep_hist, strings
