package org.wislice.onos.agent;

import java.util.Arrays;
import java.util.Objects;

/**
 * Base of the protocol's immutable values: equality, hash and text come from the fields that make the value.
 * Numbers compare by value (1 equals 1.0): the JSON form a number keeps for re-encoding is not part of the value.
 */
public abstract class AgentValue {

    /** The fields that make this value, in a fixed order. */
    protected abstract Object[] fields();

    @Override
    public final boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (o == null || o.getClass() != getClass()) {
            return false;
        }
        Object[] mine = fields();
        Object[] theirs = ((AgentValue) o).fields();
        for (int i = 0; i < mine.length; i++) {
            if (!same(mine[i], theirs[i])) {
                return false;
            }
        }
        return true;
    }

    private static boolean same(Object a, Object b) {
        if (a instanceof Number && b instanceof Number) {
            return Double.compare(((Number) a).doubleValue(), ((Number) b).doubleValue()) == 0;
        }
        return Objects.equals(a, b);
    }

    @Override
    public final int hashCode() {
        int h = getClass().getName().hashCode();
        for (Object f : fields()) {
            h = 31 * h + (f instanceof Number ? Double.hashCode(((Number) f).doubleValue()) : Objects.hashCode(f));
        }
        return h;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + Arrays.toString(fields());
    }
}
