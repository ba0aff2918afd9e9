"""Exact mode's device-side arithmetic, in the Python that both CPython and MicroPython run.

The firmware deploys this very file as firmware/exact_codes.py (a test
checks that the two are identical); tests run it on the MicroPython unix
port and compare every result with CPython's. Hence: no
__future__ imports, no typing, no int.bit_length, only small integers, and
no memory that grows with anything but the pack (one array of N codes and
one scratch array of the same size).

State on the device is one array: codes[p] = the code of the card at pack
position p. In round r the k-th card fed from a load at positions
[s, s + n) goes right when bit r of codes[s + n - 1 - k] is 1 (see
feed_side); after the round, next_round reorders the array as the pack was
reordered (all 0s, then all 1s, each in order).
"""

from array import array


def n_bits(n):
    """b = ceil(log2 n), the number of rounds."""
    if n < 1:
        raise ValueError("a pack needs at least one card")
    b = 0
    while (1 << b) < n:
        b += 1
    return b


def n_loads(n, capacity):
    if capacity < 1 or n < 1:
        raise ValueError("capacity and pack size must be positive")
    return -(-n // capacity)


def bit_counts(codes, bit):
    """(codes with the bit 0, codes with the bit 1)."""
    ones = 0
    for c in codes:
        ones += (c >> bit) & 1
    return len(codes) - ones, ones


def extra_code_count(n, b, uneven):
    """How many codes are left unpaired: see code_set."""
    if not uneven:
        return n % 2
    if n % 2:
        e = 3
    elif (n - 4) % 4 == 0:
        e = 4
    else:
        e = 6
    if e > b or n < e:
        raise ValueError("too few cards for an uneven code set")
    return e


def code_set(n, capacity, uneven=False):
    """The fixed set of n distinct b-bit codes, in increasing order.

    Complementary pairs (x, x ^ mask) put one 0 and one 1 at every bit. The
    balanced set adds, for odd n, the one code n // 2. The uneven set adds e
    codes that each clear a different group of bits (bit i is cleared in
    code i mod e), so every bit has exactly one more 0 from them and e - 1
    more 1s.
    """
    loads = n_loads(n, capacity)
    b = n_bits(n)
    if b == 0:
        if uneven:
            raise ValueError("a one-card pack has no bits to unbalance")
        return array("H", [0])
    mask = (1 << b) - 1
    e = extra_code_count(n, b, uneven)
    extra = []
    if uneven:
        for g in range(e):
            cleared = 0
            for i in range(g, b, e):
                cleared |= 1 << i
            extra.append(mask & ~cleared)
        if loads == 2 and (n - e) // 2 + e - 1 > capacity:
            raise ValueError("an uneven code set does not fit the machine")
    elif e:
        extra.append(n // 2)
    codes = array("H", extra)
    x = 0
    while len(codes) < n:
        if x >= 1 << (b - 1):
            raise ValueError("no room for the code set")
        if x not in extra and (x ^ mask) not in extra:
            codes.append(x)
            codes.append(x ^ mask)
        x += 1
    sort_in_place(codes)
    return codes


def sort_in_place(a):
    """Insertion sort: sorted() would build a temporary list on a small heap."""
    for i in range(1, len(a)):
        v = a[i]
        j = i - 1
        while j >= 0 and a[j] > v:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = v


def bounded_int(m, randbytes):
    """(uniform integer in [0, m), bytes read) by rejection on k = ceil(log256 m) bytes."""
    if m < 1:
        raise ValueError("range must be non-empty")
    if m == 1:
        return 0, 0
    k = 1
    while (1 << (8 * k)) < m:
        k += 1
    span = 1 << (8 * k)
    limit = span - span % m
    used = 0
    while True:
        raw = randbytes(k)
        used += k
        v = 0
        for byte in raw:
            v = (v << 8) | byte
        if v < limit:
            return v % m, used


def shuffle_codes(codes, randbytes):
    """Fisher-Yates in place: every arrangement exactly equally likely. Returns bytes read."""
    used = 0
    i = len(codes) - 1
    while i > 0:
        j, k = bounded_int(i + 1, randbytes)
        used += k
        codes[i], codes[j] = codes[j], codes[i]
        i -= 1
    return used


def feed_side(codes, start, size, k, bit):
    """Side (0 left, 1 right) of the k-th card fed from the load at positions [start, start + size)."""
    return (codes[start + size - 1 - k] >> bit) & 1


def next_round(codes, scratch, bit):
    """Write the pack's new code order into scratch: 0s then 1s of `bit`, each in order.

    Returns scratch; the caller swaps the two arrays, so nothing is allocated.
    """
    w = 0
    for c in codes:
        if not (c >> bit) & 1:
            scratch[w] = c
            w += 1
    for c in codes:
        if (c >> bit) & 1:
            scratch[w] = c
            w += 1
    return scratch
