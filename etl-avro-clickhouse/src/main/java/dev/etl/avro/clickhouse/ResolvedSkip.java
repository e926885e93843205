package dev.etl.avro.clickhouse;

import dev.etl.avro.binary.AvroCursor;
import dev.etl.avro.binary.AvroSkipper;
import dev.etl.avro.binary.MalformedAvroException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Resolver;
import org.apache.avro.Schema;

/**
 * Passes over a value that the reader schema holds without writing it, with the decision of the object
 * path: Avro's {@code GenericDatumReader(writer, reader)} <em>decodes</em> every value the reader holds,
 * read by a column or not, while it <em>skips</em> a value only the writer has. The two differ, and the
 * transcoder's contract is the object path's decision:
 * <ul>
 * <li>an enum index is decoded against the symbols (out of range, or a writer symbol the reader lacks and
 *     has no default for: rejected) and skipped unchecked;</li>
 * <li>an array or map block that states its byte size (a negative count) is decoded item by item, the size
 *     ignored, and skipped by its size, the items unread;</li>
 * <li>a union branch the reader cannot take, or a writer type it cannot read, is rejected when decoded
 *     (when the branch is written) and skipped like any value.</li>
 * </ul>
 * {@link AvroSkipper} is the skipping; this is the decoding, compiled once per (writer, reader) pair from
 * Avro's own {@link Resolver} (so the reader's fields, aliases, defaults, enum symbols and union branches
 * are matched exactly as the object path matches them), and inside it the values only the writer has are
 * skipped by {@link AvroSkipper} again, as Avro does. {@link #compile} returns null when decoding and
 * skipping decide alike (no enum, array, map or failing branch in the value: the plans' plain skip steps
 * then stay), which is every primitive.
 *
 * <p>Immutable once compiled, shared by the lanes through their plans; a pass allocates nothing.
 */
final class ResolvedSkip {
    /** Decoding and skipping decide alike: {@link AvroSkipper} on {@link #writer}. */
    private static final int SKIP = 0;

    private static final int ENUM = 1;
    private static final int ARRAY = 2;
    private static final int MAP = 3;
    private static final int RECORD = 4;
    private static final int UNION = 5;
    /** The reader cannot read this writer value (Avro's {@code ErrorAction}): rejected when it is met. */
    private static final int FAIL = 6;

    private int kind;
    private final Schema writer;
    /** RECORD: per writer field, in writer order; UNION: per writer branch; ARRAY, MAP: the item. */
    private ResolvedSkip[] children;
    /** ENUM: an index is below this (the reader's symbol count when Avro adjusts nothing, else the writer's). */
    private final int symbols;
    /** ENUM: per writer index, the writer symbol that has no reader symbol and no reader default, else null. */
    private final String[] unmatched;
    /** ENUM: the reader enum's name; FAIL: Avro's message. */
    private final String text;
    /** Compilation only: whether a record or union decides otherwise than {@link AvroSkipper} (see {@link #compile}). */
    private boolean decides;

    private ResolvedSkip(int kind, Schema writer, int symbols, String[] unmatched, String text) {
        this.kind = kind;
        this.writer = writer;
        this.symbols = symbols;
        this.unmatched = unmatched;
        this.text = text;
    }

    /**
     * How the object path decodes a {@code writer} value into a {@code reader} one, or null when skipping it
     * with {@link AvroSkipper} decides alike. For a value a column reads after it was passed (a mark), pass the
     * writer schema as the reader too: the pass then reads what the conversion will read and decides as it
     * does (the conversion's compilation already rejected what does not resolve).
     */
    static ResolvedSkip compile(Schema writer, Schema reader) {
        Map<Resolver.Action, ResolvedSkip> built = new IdentityHashMap<>();
        ResolvedSkip root = build(Resolver.resolve(writer, reader), built);
        // A record or union is plain when nothing under it decides otherwise; recursion (a record that holds
        // itself through a union or array) is settled by starting from plain and propagating until stable.
        boolean changed = true;
        while (changed) {
            changed = false;
            for (ResolvedSkip s : built.values()) {
                if ((s.kind == RECORD || s.kind == UNION) && !s.decides) {
                    for (ResolvedSkip child : s.children) {
                        if (child.decides()) {
                            s.decides = true;
                            changed = true;
                            break;
                        }
                    }
                }
            }
        }
        for (ResolvedSkip s : built.values()) {
            if (!s.decides()) {
                s.kind = SKIP;
                s.children = null;
            }
        }
        return root.decides() ? root : null;
    }

    private boolean decides() {
        return switch (kind) {
            case SKIP -> false;
            case RECORD, UNION -> decides;
            default -> true;
        };
    }

    private static ResolvedSkip build(Resolver.Action action, Map<Resolver.Action, ResolvedSkip> built) {
        ResolvedSkip done = built.get(action);
        if (done != null) {
            return done;
        }
        ResolvedSkip s;
        List<Resolver.Action> under = new ArrayList<>();
        if (action instanceof Resolver.Skip
                || action instanceof Resolver.DoNothing
                || action instanceof Resolver.Promote) {
            // A value only the writer has, or a primitive or fixed read as written or promoted: Avro reads
            // the writer's bytes either way, as AvroSkipper does.
            s = new ResolvedSkip(SKIP, action.writer, 0, null, null);
        } else if (action instanceof Resolver.ErrorAction) {
            s = new ResolvedSkip(FAIL, action.writer, 0, null, action.toString());
        } else if (action instanceof Resolver.EnumAdjust e) {
            String[] unmatched = null;
            if (!e.noAdjustmentsNeeded) {
                for (int i = 0; i < e.adjustments.length; i++) {
                    if (e.adjustments[i] < 0) {
                        if (unmatched == null) {
                            unmatched = new String[e.adjustments.length];
                        }
                        unmatched[i] = e.writer.getEnumSymbols().get(i);
                    }
                }
            }
            // As ResolvingDecoder.readEnum: an index of a symbol the reader has when the writer's symbols are
            // the reader's first ones (nothing to adjust), else an index of the writer's symbols.
            int symbols = e.noAdjustmentsNeeded ? e.reader.getEnumSymbols().size() : e.adjustments.length;
            s = new ResolvedSkip(ENUM, action.writer, symbols, unmatched, e.reader.getFullName());
        } else if (action instanceof Resolver.Container c) {
            s = new ResolvedSkip(
                    action.writer.getType() == Schema.Type.MAP ? MAP : ARRAY, action.writer, 0, null, null);
            under.add(c.elementAction);
        } else if (action instanceof Resolver.RecordAdjust r) {
            s = new ResolvedSkip(RECORD, action.writer, 0, null, null);
            under.addAll(List.of(r.fieldActions));
        } else if (action instanceof Resolver.WriterUnion u) {
            s = new ResolvedSkip(UNION, action.writer, 0, null, null);
            under.addAll(List.of(u.actions));
        } else if (action instanceof Resolver.ReaderUnion u) {
            // A writer value into a reader union: decoded as the branch Avro picks.
            s = build(u.actualAction, built);
            built.put(action, s);
            return s;
        } else {
            throw new IllegalStateException(
                    "unknown Avro resolution " + action.getClass().getName());
        }
        built.put(action, s); // before the children: a recursive record meets itself
        ResolvedSkip[] children = new ResolvedSkip[under.size()];
        for (int i = 0; i < children.length; i++) {
            children[i] = build(under.get(i), built);
        }
        s.children = children;
        return s;
    }

    /** Passes over the value under the cursor, rejecting it where the object path's decoding does. */
    void skip(AvroCursor in) {
        switch (kind) {
            case SKIP:
                AvroSkipper.skip(writer, in);
                return;
            case ENUM: {
                int at = in.position();
                int index = in.readInt();
                if (index < 0 || index >= symbols) {
                    throw new MalformedAvroException(
                            "enum index " + index + " at byte " + at + " out of range for " + symbols + " symbols");
                }
                if (unmatched != null && unmatched[index] != null) {
                    throw new MalformedAvroException(
                            "enum symbol " + unmatched[index] + " (index " + index + " at byte " + at
                                    + ") is not a symbol of the reader's " + text + ", which has no default");
                }
                return;
            }
            case ARRAY:
            case MAP: {
                // Item by item, a block's byte size ignored, as decoding reads it (the cursor checks the size
                // is not negative).
                boolean map = kind == MAP;
                ResolvedSkip item = children[0];
                long total = 0;
                for (long count = in.blockCount(total); count != 0; count = in.blockCount(total)) {
                    total += count;
                    int from = in.mark();
                    if (map) {
                        in.skipLengthPrefixed();
                    }
                    item.skip(in);
                    if (in.zeroByteItems(from, count)) {
                        continue; // the rest of the block takes no bytes either: nothing to pass
                    }
                    for (long i = 1; i < count; i++) {
                        if (map) {
                            in.skipLengthPrefixed();
                        }
                        item.skip(in);
                    }
                }
                return;
            }
            case RECORD:
                for (ResolvedSkip field : children) {
                    field.skip(in);
                }
                return;
            case UNION: {
                int at = in.position();
                int index = in.readInt();
                if (index < 0 || index >= children.length) {
                    throw new MalformedAvroException("union index " + index + " at byte " + at + " out of range for "
                            + children.length + " branches");
                }
                children[index].skip(in);
                return;
            }
            default:
                throw new MalformedAvroException(
                        "the reader schema cannot read the value at byte " + in.position() + ": " + text);
        }
    }

    @Override
    public String toString() {
        return switch (kind) {
            case SKIP -> "skip " + writer.getType();
            case ENUM -> "enum < " + symbols;
            case ARRAY -> "array of items";
            case MAP -> "map of items";
            case RECORD -> "record " + writer.getFullName();
            case UNION -> "union of " + children.length;
            default -> "fail: " + text;
        };
    }
}
