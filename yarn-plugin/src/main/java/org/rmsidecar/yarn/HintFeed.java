package org.rmsidecar.yarn;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows GET /v1/hints/changes on a daemon thread: the newest hint per target, in an immutable
 * map readers take without locks. A bad answer keeps the previous state; an invalid hint is
 * skipped; the sidecar being down is counted and backed off (capped at 5 s). Never throws into
 * the caller.
 */
public final class HintFeed {
  private static final Logger LOG = LoggerFactory.getLogger(HintFeed.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final SidecarHttp http;
  private final String query;
  private final long waitMs;
  private final long staleAfterMs;
  private final Consumer<Hint> onNew;
  private final String name;

  private volatile Map<String, Hint> current = Collections.emptyMap();
  /** current by app ("" for hints of no app), rebuilt with it: readers on a hot path look up one app. */
  private volatile Map<String, List<Hint>> byApp = Collections.emptyMap();
  private volatile long lastGoodNanos;
  private volatile long nowTs;
  private volatile long nowAtNanos;
  private long cursor;
  private Thread thread;
  private volatile boolean running;
  private volatile WeakReference<Object> owner;
  private volatile boolean down;

  public final AtomicLong failures = new AtomicLong();
  public final AtomicLong badHints = new AtomicLong();
  public final AtomicLong received = new AtomicLong();
  private long lastWarnNanos;

  /**
   * @param app only this app's hints (and app-less ones); null for all
   * @param kinds the hint kinds to follow
   * @param onNew called on the feed's thread for each hint newly seen (not for a reset's
   *     snapshot entries already seen)
   */
  public HintFeed(String name, SidecarHttp http, String app, Collection<String> kinds, long waitMs,
      long staleAfterMs, Consumer<Hint> onNew) {
    this.name = name;
    this.http = http;
    StringBuilder q = new StringBuilder("&kinds=").append(String.join(",", kinds));
    if (app != null) {
      q.append("&app=").append(enc(app));
    }
    this.query = q.toString();
    this.waitMs = waitMs;
    this.staleAfterMs = staleAfterMs;
    this.onNew = onNew;
    this.lastGoodNanos = System.nanoTime() - staleAfterMs * 1_000_000L; // down until first answer
    this.down = true;
  }

  private static String enc(String s) {
    try {
      return URLEncoder.encode(s, StandardCharsets.UTF_8.name());
    } catch (java.io.UnsupportedEncodingException e) {
      throw new IllegalStateException(e);
    }
  }

  public synchronized void start() {
    startFor(null);
  }

  /**
   * Starts the feed's thread, which ends by itself once owner has been garbage collected: the
   * RM builds a new processor chain each time it becomes active (restart, HA failover) and never
   * tells the old one, whose feed would otherwise poll the sidecar for the life of the JVM.
   */
  public synchronized void startFor(Object owner) {
    this.owner = owner == null ? null : new WeakReference<>(owner);
    running = true;
    thread = new Thread(this::loop, "rmsidecar-hints-" + name);
    thread.setDaemon(true);
    thread.start();
  }

  public void stop() {
    running = false;
    Thread t;
    synchronized (this) {
      t = thread;
    }
    if (t != null) {
      t.interrupt();
      try {
        t.join(2000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The hints in force now, newest per target. */
  public List<Hint> inForce() {
    long now = now();
    List<Hint> out = new ArrayList<>();
    for (Hint h : current.values()) {
      if (h.inForce(now)) {
        out.add(h);
      }
    }
    return out;
  }

  /** The hints in force now of one app, plus those of no app (node and queue hints). */
  public List<Hint> inForce(String app) {
    Map<String, List<Hint>> idx = byApp;
    List<Hint> mine = idx.get(app);
    List<Hint> global = idx.get("");
    if (mine == null && global == null) {
      return Collections.emptyList();
    }
    long now = now();
    List<Hint> out = new ArrayList<>();
    for (List<Hint> l : Arrays.asList(mine, global)) {
      if (l != null) {
        for (Hint h : l) {
          if (h.inForce(now)) {
            out.add(h);
          }
        }
      }
    }
    return out;
  }

  /** The sidecar's clock: its last now_ts plus the wall time since. */
  public long now() {
    long ts = nowTs;
    if (ts == 0) {
      return System.currentTimeMillis();
    }
    return ts + (System.nanoTime() - nowAtNanos) / 1_000_000L;
  }

  /** No good answer for stale-after-ms. */
  public boolean stale() {
    return System.nanoTime() - lastGoodNanos > staleAfterMs * 1_000_000L;
  }

  /** The feed's thread is running. */
  public synchronized boolean alive() {
    return thread != null && thread.isAlive();
  }

  private boolean ownerGone() {
    WeakReference<Object> o = owner;
    return o != null && o.get() == null;
  }

  private void loop() {
    long backoff = 100;
    while (running) {
      if (ownerGone()) {
        LOG.info("rmsidecar: hint feed {} stops: its owner is gone (a new processor chain replaced it)", name);
        return;
      }
      try {
        pollOnce();
        backoff = 100;
      } catch (InterruptedException e) {
        return;
      } catch (Throwable t) {
        failures.incrementAndGet();
        warn("rmsidecar: hint feed " + name + " from " + http.base() + " failed (" + failures.get()
            + " failures): " + t);
        try {
          Thread.sleep(backoff);
        } catch (InterruptedException e) {
          return;
        }
        backoff = Math.min(5000, backoff * 2);
      }
      checkStale();
    }
  }

  /** One call; public for tests. Throws on a failed call or a bad body (state kept). */
  public void pollOnce() throws IOException, InterruptedException {
    long after = cursor;
    String body = http.get("/v1/hints/changes?after=" + after + "&wait_ms=" + (after == 0 ? 0 : waitMs) + query,
        waitMs);
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    apply(body);
  }

  /** Applies one answer; IOException (state kept) when the body is not a changes answer. */
  public void apply(String body) throws IOException {
    JsonNode root = JSON.readTree(body);
    if (root == null || !root.isObject() || !root.path("cursor").canConvertToLong()
        || !root.path("hints").isArray()) {
      throw new IOException("bad /v1/hints/changes answer: " + SidecarHttp.abbreviate(body));
    }
    boolean reset = root.path("reset").asBoolean(false);
    Map<String, Hint> next = reset ? new HashMap<String, Hint>() : new HashMap<>(current);
    List<Hint> fresh = new ArrayList<>();
    for (JsonNode e : root.get("hints")) {
      Hint h;
      try {
        h = Hint.parse(e);
      } catch (RuntimeException ex) {
        badHints.incrementAndGet();
        warn("rmsidecar: hint feed " + name + " skipped an invalid hint: " + ex.getMessage());
        continue;
      }
      Hint old = current.get(h.key());
      if (old == null || old.seq < h.seq) {
        fresh.add(h);
      }
      next.put(h.key(), h);
    }
    Map<String, List<Hint>> idx = new HashMap<>();
    for (Hint h : next.values()) {
      idx.computeIfAbsent(h.app, k -> new ArrayList<>()).add(h);
    }
    byApp = idx;
    current = Collections.unmodifiableMap(next);
    cursor = root.get("cursor").asLong();
    if (root.path("now_ts").canConvertToLong() && root.path("now_ts").asLong() > 0) {
      nowTs = root.path("now_ts").asLong();
      nowAtNanos = System.nanoTime();
    }
    lastGoodNanos = System.nanoTime();
    received.addAndGet(fresh.size());
    for (Hint h : fresh) {
      try {
        onNew.accept(h);
      } catch (Throwable t) {
        warn("rmsidecar: acting on " + h + " failed: " + t);
      }
    }
  }

  private void checkStale() {
    boolean s = stale();
    if (s != down) {
      down = s;
      if (s) {
        LOG.warn("rmsidecar: sidecar {} down (no good answer for {} ms): falling back", http.base(), staleAfterMs);
      } else {
        LOG.info("rmsidecar: sidecar {} reachable: following its hints", http.base());
      }
    }
  }

  private synchronized void warn(String msg) {
    long t = System.nanoTime();
    if (t - lastWarnNanos > 10_000_000_000L) {
      lastWarnNanos = t;
      LOG.warn(msg);
    } else {
      LOG.debug(msg);
    }
  }
}
