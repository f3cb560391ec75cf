package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;

/**
 * What a syncVaps / syncVnfs did: the ids it created, removed and kept (vap_id, or vnf_id as text), and what it
 * failed to create ("id: error"). Only logged, so read leniently: what is missing reads as empty.
 */
public final class SyncResult extends AgentValue {

    private final List<String> created;
    private final List<String> removed;
    private final List<String> kept;
    private final List<String> failed;

    public SyncResult(List<String> created, List<String> removed, List<String> kept, List<String> failed) {
        this.created = List.copyOf(created);
        this.removed = List.copyOf(removed);
        this.kept = List.copyOf(kept);
        this.failed = List.copyOf(failed);
    }

    /** How syncVaps / syncVnfs replies are read; idKey names the ids of failed entries (vap_id, vnf_id). */
    public static AgentCall.Result<SyncResult> result(String idKey) {
        return AgentCall.Result.of("sync result", r -> new SyncResult(ids(r, "created"), ids(r, "removed"),
                ids(r, "kept"), failures(r.path("failed"), idKey)));
    }

    private static List<String> ids(JsonNode result, String key) {
        List<String> ids = new ArrayList<>();
        result.path(key).forEach(id -> ids.add(id.asText()));
        return ids;
    }

    private static List<String> failures(JsonNode failed, String idKey) {
        List<String> out = new ArrayList<>();
        failed.forEach(f -> out.add(f.path(idKey).asText() + ": " + f.path("error").asText()));
        return out;
    }

    public List<String> created() {
        return created;
    }

    public List<String> removed() {
        return removed;
    }

    public List<String> kept() {
        return kept;
    }

    public List<String> failed() {
        return failed;
    }

    @Override
    protected Object[] fields() {
        return new Object[] {created, removed, kept, failed};
    }
}
