package org.rmsidecar.yarn;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** One hint v1, as the sidecar serves it (docs/events.md "Hints v1"). Immutable. */
public final class Hint {
  public final long seq;
  public final String target;
  public final String id;
  public final String kind;
  public final String policy;
  public final long expiresTs;
  public final String app;
  public final String queue;
  public final String task;
  public final String attempt;
  public final String node;
  /** place: nodes best first. */
  public final List<String> nodes;
  public final boolean strict;
  public final boolean mapSlow;
  public final boolean reduceSlow;
  public final int partition;
  /** ratio caps; -1 = no cap. */
  public final int maxMaps;
  public final int maxReduces;

  private Hint(long seq, String target, JsonNode h) {
    this.seq = seq;
    this.target = target;
    this.id = text(h, "id");
    this.kind = text(h, "kind");
    this.policy = text(h, "policy");
    this.expiresTs = h.path("expires_ts").asLong(0);
    this.app = text(h, "app");
    this.queue = text(h, "queue");
    this.task = text(h, "task");
    this.attempt = text(h, "attempt");
    this.node = text(h, "node");
    List<String> ns = new ArrayList<>();
    for (JsonNode n : h.path("nodes")) {
      if (n.hasNonNull("node")) {
        ns.add(n.get("node").asText());
      }
    }
    this.nodes = Collections.unmodifiableList(ns);
    this.strict = h.path("strict").asBoolean(false);
    this.mapSlow = h.path("map_slow").asBoolean(false);
    this.reduceSlow = h.path("reduce_slow").asBoolean(false);
    this.partition = h.path("partition").asInt(-1);
    this.maxMaps = h.hasNonNull("max_maps") ? h.get("max_maps").asInt(-1) : -1;
    this.maxReduces = h.hasNonNull("max_reduces") ? h.get("max_reduces").asInt(-1) : -1;
  }

  private static String text(JsonNode h, String f) {
    JsonNode v = h.get(f);
    return v == null || v.isNull() ? "" : v.asText();
  }

  /**
   * Reads one entry of GET /v1/hints/changes ({seq, target, hint}); IllegalArgumentException
   * naming the field when it is not a usable hint.
   */
  public static Hint parse(JsonNode entry) {
    JsonNode h = entry.get("hint");
    if (h == null || !h.isObject()) {
      throw new IllegalArgumentException("hint: missing object");
    }
    if (!entry.path("seq").canConvertToLong()) {
      throw new IllegalArgumentException("seq: not a number");
    }
    JsonNode kind = h.get("kind");
    if (kind == null || !kind.isTextual()) {
      throw new IllegalArgumentException("hint.kind: missing or not a string");
    }
    Hint out = new Hint(entry.get("seq").asLong(), entry.path("target").asText(""), h);
    String need = null;
    switch (out.kind) {
      case "speculate":
      case "deny-speculation":
        need = out.app.isEmpty() ? "app" : out.task.isEmpty() ? "task" : null;
        break;
      case "kill":
        need = out.app.isEmpty() ? "app" : out.attempt.isEmpty() ? "attempt" : null;
        break;
      case "place":
        need = out.app.isEmpty() ? "app" : out.nodes.isEmpty() ? "nodes" : null;
        break;
      case "node-class":
        need = out.node.isEmpty() ? "node" : null;
        break;
      case "reduce-binding":
        need = out.app.isEmpty() ? "app" : out.node.isEmpty() ? "node" : null;
        break;
      default:
        break;
    }
    if (need != null) {
      throw new IllegalArgumentException("hint " + out.kind + " " + out.id + ": " + need + ": required");
    }
    return out;
  }

  /** Whether the hint is in force at time now (epoch ms, the sidecar's clock). */
  public boolean inForce(long now) {
    return expiresTs <= 0 || expiresTs > now;
  }

  /** The key of a target: the sidecar's, else kind and subject. */
  public String key() {
    if (!target.isEmpty()) {
      return target;
    }
    return kind + "|" + app + "|" + queue + "|" + task + "|" + attempt + "|" + node + "|" + partition;
  }

  @Override
  public String toString() {
    return kind + " " + id + " (" + policy + ")";
  }
}
