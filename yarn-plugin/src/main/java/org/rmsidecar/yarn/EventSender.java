package org.rmsidecar.yarn;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends events v1 lines to POST /v1/events in batches from a daemon thread. offer() never
 * blocks: the queue is bounded and drops its oldest line (counted) when full. A failed batch
 * stays at the head and is retried with backoff.
 */
public final class EventSender {
  private static final Logger LOG = LoggerFactory.getLogger(EventSender.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int BATCH = 500;

  private final SidecarHttp http;
  private final int capacity;
  private final ArrayDeque<String> queue = new ArrayDeque<>();
  private Thread thread;
  private volatile boolean running;

  public final AtomicLong sent = new AtomicLong();
  public final AtomicLong dropped = new AtomicLong();
  public final AtomicLong rejected = new AtomicLong();
  public final AtomicLong failures = new AtomicLong();

  public EventSender(SidecarHttp http, int capacity) {
    this.http = http;
    this.capacity = Math.max(1, capacity);
  }

  /** Queues one event line (a JSON object without newline). */
  public void offer(String line) {
    synchronized (queue) {
      if (queue.size() >= capacity) {
        queue.pollFirst();
        dropped.incrementAndGet();
      }
      queue.addLast(line);
      queue.notifyAll();
    }
  }

  public void start() {
    running = true;
    thread = new Thread(this::loop, "rmsidecar-events");
    thread.setDaemon(true);
    thread.start();
  }

  /** Tries one last flush (bounded by the HTTP timeout), then stops. */
  public void stop() {
    running = false;
    if (thread != null) {
      thread.interrupt();
      try {
        thread.join(2000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    try {
      flushOnce();
    } catch (Throwable t) {
      LOG.debug("rmsidecar: last event flush failed: {}", t.toString());
    }
  }

  private void loop() {
    long backoff = 200;
    while (running) {
      try {
        synchronized (queue) {
          while (running && queue.isEmpty()) {
            queue.wait(1000);
          }
        }
        flushOnce();
        backoff = 200;
      } catch (InterruptedException e) {
        return;
      } catch (Throwable t) {
        long n = failures.incrementAndGet();
        if (n == 1 || n % 50 == 0) {
          LOG.warn("rmsidecar: sending events to {} failed ({} failures, {} queued): {}", http.base(), n,
              size(), t.toString());
        }
        try {
          Thread.sleep(backoff);
        } catch (InterruptedException e) {
          return;
        }
        backoff = Math.min(5000, backoff * 2);
      }
    }
  }

  int size() {
    synchronized (queue) {
      return queue.size();
    }
  }

  /** Posts up to one batch; the batch leaves the queue only once the sidecar took it. */
  public void flushOnce() throws Exception {
    List<String> batch = new ArrayList<>();
    synchronized (queue) {
      for (String l : queue) {
        if (batch.size() >= BATCH) {
          break;
        }
        batch.add(l);
      }
    }
    if (batch.isEmpty()) {
      return;
    }
    StringBuilder b = new StringBuilder();
    for (String l : batch) {
      b.append(l).append('\n');
    }
    String answer = http.post("/v1/events", "application/x-ndjson", b.toString().getBytes(StandardCharsets.UTF_8));
    synchronized (queue) {
      for (int i = 0; i < batch.size() && !queue.isEmpty(); i++) {
        queue.pollFirst();
      }
    }
    sent.addAndGet(batch.size());
    JsonNode r = JSON.readTree(answer);
    for (JsonNode rej : r.path("rejected")) {
      rejected.incrementAndGet();
      LOG.warn("rmsidecar: the sidecar rejected event line {} of a batch: {}", rej.path("line").asInt(),
          rej.path("error").asText());
    }
  }
}
