"""Card count from the load cell under the tray. Integer arithmetic only."""


def count_from_raw(raw, tare, per_card):
    """Nearest whole number of cards for a raw reading."""
    d = raw - tare
    if d >= 0:
        return (2 * d + per_card) // (2 * per_card)
    return -((-2 * d + per_card) // (2 * per_card))


def per_card_from(raw, tare, n):
    """Calibration: counts per card from a reading with n cards loaded."""
    return (2 * (raw - tare) + n) // (2 * n)


def average(read, samples):
    """Mean of `samples` readings from read(); None if the sensor is missing."""
    total = 0
    for _ in range(samples):
        v = read()
        if v is None:
            return None
        total += v
    return (total + samples // 2) // samples


def spread(read, samples):
    """(mean, largest minus smallest) of `samples` readings, or (None, 0)
    when the sensor is missing: how steady the reading is."""
    total = 0
    lo = hi = 0
    for i in range(samples):
        v = read()
        if v is None:
            return None, 0
        total += v
        if i == 0 or v < lo:
            lo = v
        if i == 0 or v > hi:
            hi = v
    return (total + samples // 2) // samples, hi - lo
