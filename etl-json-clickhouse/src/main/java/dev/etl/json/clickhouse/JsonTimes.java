package dev.etl.json.clickhouse;

/**
 * ISO-8601 dates and date-times read from a JSON string's content ({@code b[from, to)}), without
 * allocating: {@code YYYY-MM-DD} for days, and for instants {@code YYYY-MM-DD}, optionally followed by
 * {@code T} (or a space) and {@code HH:MM}, {@code HH:MM:SS} or {@code HH:MM:SS.f…} (1 to 9 fraction
 * digits), optionally followed by {@code Z} or an offset {@code ±HH}, {@code ±HH:MM}, {@code ±HHMM} of at
 * most 18 hours (java.time's range). A date-time without an offset is UTC (not the column's or the server's
 * time zone: the transcoder never guesses a zone from the environment). Failures throw {@link ValueRejected}.
 */
final class JsonTimes {
    private static final long DAYS_0000_TO_1970 = (146_097L * 5L) - (30L * 365L + 7L);

    private JsonTimes() {}

    /** Days since 1970-01-01 of {@code YYYY-MM-DD} (the whole content). */
    static long epochDay(byte[] b, int from, int to) {
        if (to - from != 10) {
            throw notDate(b, from, to);
        }
        return date(b, from, to);
    }

    /**
     * Ticks of 10^-precision seconds since 1970-01-01T00:00:00Z of an ISO-8601 date or date-time; a
     * fraction finer than a tick is truncated toward the past (as {@code ClickHouseTypes.dateTime64} does).
     */
    static long ticks(byte[] b, int from, int to, int precision) {
        if (to - from < 10) {
            throw notDateTime(b, from, to);
        }
        long day = date(b, from, to);
        int i = from + 10;
        long seconds = 0;
        int nanos = 0;
        if (i < to && (b[i] == 'T' || b[i] == 't' || b[i] == ' ')) {
            i++;
            int hour = twoDigits(b, i, to);
            if (i + 2 >= to || b[i + 2] != ':') {
                throw notDateTime(b, from, to);
            }
            int minute = twoDigits(b, i + 3, to);
            i += 5;
            int second = 0;
            if (i < to && b[i] == ':') {
                second = twoDigits(b, i + 1, to);
                i += 3;
                if (i < to && (b[i] == '.' || b[i] == ',')) {
                    int f = ++i;
                    while (i < to && JsonScanner.digit(b[i])) {
                        if (i - f < 9) {
                            nanos = nanos * 10 + (b[i] - '0');
                        }
                        i++;
                    }
                    if (i == f || i - f > 9) {
                        throw notDateTime(b, from, to);
                    }
                    for (int k = i - f; k < 9; k++) {
                        nanos *= 10;
                    }
                }
            }
            if (hour > 23 || minute > 59 || second > 59) {
                throw notDateTime(b, from, to);
            }
            seconds = hour * 3600L + minute * 60L + second;
            if (i < to) {
                seconds -= offsetSeconds(b, i, to, from);
                i = to;
            }
        }
        if (i != to) {
            throw notDateTime(b, from, to);
        }
        long epochSecond = day * 86_400L + seconds;
        long unit = JsonNumbers.POW10[precision];
        long fraction = nanos / JsonNumbers.POW10[9 - precision];
        try {
            if (epochSecond < 0 && fraction > 0) {
                // The seconds times the unit may be below Long.MIN_VALUE where the ticks are not (DateTime64(9)'s
                // first second): count from the next second back.
                return Math.addExact(Math.multiplyExact(epochSecond + 1, unit), fraction - unit);
            }
            return Math.addExact(Math.multiplyExact(epochSecond, unit), fraction);
        } catch (ArithmeticException e) {
            throw new ValueRejected("'" + JsonNumbers.ascii(b, from, to) + "' overflows DateTime64(" + precision + ")");
        }
    }

    /** The offset at {@code b[i, to)}: Z, ±HH, ±HH:MM or ±HHMM up to ±18:00, in seconds east of UTC. */
    private static long offsetSeconds(byte[] b, int i, int to, int from) {
        if (b[i] == 'Z' || b[i] == 'z') {
            if (i + 1 != to) {
                throw notDateTime(b, from, to);
            }
            return 0;
        }
        if (b[i] != '+' && b[i] != '-') {
            throw notDateTime(b, from, to);
        }
        int sign = b[i] == '-' ? -1 : 1;
        int hours = twoDigits(b, i + 1, to);
        int minutes = 0;
        int rest = to - (i + 3);
        if (rest == 3 && b[i + 3] == ':') {
            minutes = twoDigits(b, i + 4, to);
        } else if (rest == 2) {
            minutes = twoDigits(b, i + 3, to);
        } else if (rest != 0) {
            throw notDateTime(b, from, to);
        }
        if (hours > 18 || minutes > 59 || (hours == 18 && minutes > 0)) { // java.time's range: ±18:00
            throw notDateTime(b, from, to);
        }
        return sign * (hours * 3600L + minutes * 60L);
    }

    /** {@code YYYY-MM-DD} at {@code b[from, from + 10)}, as days since 1970-01-01. */
    private static long date(byte[] b, int from, int to) {
        if (b[from + 4] != '-' || b[from + 7] != '-') {
            throw notDate(b, from, to);
        }
        int year = twoDigits(b, from, to) * 100 + twoDigits(b, from + 2, to);
        int month = twoDigits(b, from + 5, to);
        int day = twoDigits(b, from + 8, to);
        if (month < 1 || month > 12 || day < 1 || day > monthLength(year, month)) {
            throw notDate(b, from, to);
        }
        // LocalDate.toEpochDay's arithmetic, for years 0000 to 9999.
        long y = year;
        long total = 365 * y + (y + 3) / 4 - (y + 99) / 100 + (y + 399) / 400;
        total += (367L * month - 362) / 12;
        total += day - 1;
        if (month > 2) {
            total--;
            if (!leap(year)) {
                total--;
            }
        }
        return total - DAYS_0000_TO_1970;
    }

    private static boolean leap(int year) {
        return (year & 3) == 0 && (year % 100 != 0 || year % 400 == 0);
    }

    private static int monthLength(int year, int month) {
        return switch (month) {
            case 2 -> leap(year) ? 29 : 28;
            case 4, 6, 9, 11 -> 30;
            default -> 31;
        };
    }

    private static int twoDigits(byte[] b, int i, int to) {
        if (i + 2 > to || !JsonScanner.digit(b[i]) || !JsonScanner.digit(b[i + 1])) {
            throw new ValueRejected("'" + JsonNumbers.ascii(b, i, Math.min(to, i + 2)) + "' is not two digits");
        }
        return (b[i] - '0') * 10 + (b[i + 1] - '0');
    }

    private static ValueRejected notDate(byte[] b, int from, int to) {
        return new ValueRejected("'" + JsonNumbers.ascii(b, from, to) + "' is not a date YYYY-MM-DD");
    }

    private static ValueRejected notDateTime(byte[] b, int from, int to) {
        return new ValueRejected("'" + JsonNumbers.ascii(b, from, to)
                + "' is not an ISO-8601 date-time (YYYY-MM-DD[THH:MM[:SS[.fraction]]][Z|±HH:MM])");
    }
}
