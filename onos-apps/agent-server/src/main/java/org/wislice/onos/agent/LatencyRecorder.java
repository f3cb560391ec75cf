package org.wislice.onos.agent;

import java.util.Arrays;

/** Keeps the last N latency samples (ms) and reports percentiles: event latency for the benchmark. */
public final class LatencyRecorder {

    private final double[] samples;
    private long count;

    public LatencyRecorder(int capacity) {
        samples = new double[capacity];
    }

    public synchronized void record(double ms) {
        samples[(int) (count % samples.length)] = ms;
        count++;
    }

    public synchronized long count() {
        return count;
    }

    public synchronized void reset() {
        count = 0;
    }

    /** The p-th percentile (0-100) of the retained samples, or NaN when there are none. */
    public synchronized double percentile(double p) {
        int n = (int) Math.min(count, samples.length);
        if (n == 0) {
            return Double.NaN;
        }
        double[] sorted = Arrays.copyOf(samples, n);
        Arrays.sort(sorted);
        int idx = (int) Math.ceil(p / 100.0 * n) - 1;
        return sorted[Math.max(0, Math.min(n - 1, idx))];
    }
}
