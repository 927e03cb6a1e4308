package org.rmsidecar.yarn;

import java.io.IOException;

import org.apache.hadoop.conf.Configuration;

/** Every configuration key of the rmsidecar plug-ins, with its default. */
public final class RmSidecarConfig {
  private RmSidecarConfig() {}

  public static final String PREFIX = "rmsidecar.";

  /** Base URL of the sidecar's HTTP API; unset: the plug-ins pass everything through. */
  public static final String SIDECAR_URL = PREFIX + "sidecar.url";

  /**
   * Bearer token the sidecar's HTTP API requires (its http.token); read with
   * Configuration.getPassword, so a Hadoop credential provider can hold it. Unset: no token sent.
   */
  public static final String SIDECAR_TOKEN = PREFIX + "sidecar.token";

  /** Connect and read timeout of one call to the sidecar (ms), beyond the long-poll wait. */
  public static final String TIMEOUT_MS = PREFIX + "sidecar.timeout-ms";
  public static final long DEFAULT_TIMEOUT_MS = 2000;

  /** Long-poll wait asked of the sidecar (ms). */
  public static final String HINTS_WAIT_MS = PREFIX + "hints.wait-ms";
  public static final long DEFAULT_HINTS_WAIT_MS = 5000;

  /** No good answer from the sidecar for this long: it counts as down (ms). */
  public static final String HINTS_STALE_AFTER_MS = PREFIX + "hints.stale-after-ms";
  public static final long DEFAULT_HINTS_STALE_AFTER_MS = 20000;

  /** The stock DefaultSpeculator launches its own backups too (minus denied ones). */
  public static final String AM_SPECULATOR_STOCK = PREFIX + "am.speculator.stock";
  public static final boolean DEFAULT_AM_SPECULATOR_STOCK = true;

  /** While the sidecar is down: "stock" speculation (no deny filter) or "none". */
  public static final String AM_SPECULATOR_FALLBACK = PREFIX + "am.speculator.fallback";
  public static final String DEFAULT_AM_SPECULATOR_FALLBACK = "stock";

  /** The AM reports its task attempts to the sidecar (POST /v1/events). */
  public static final String AM_EVENTS_ENABLED = PREFIX + "am.events.enabled";
  public static final boolean DEFAULT_AM_EVENTS_ENABLED = true;

  /** How often the AM scans its attempts for events (ms). */
  public static final String AM_EVENTS_INTERVAL_MS = PREFIX + "am.events.interval-ms";
  public static final long DEFAULT_AM_EVENTS_INTERVAL_MS = 1000;

  /** Events kept while the sidecar is unreachable; the oldest are dropped (counted) beyond. */
  public static final String AM_EVENTS_QUEUE_SIZE = PREFIX + "am.events.queue-size";
  public static final int DEFAULT_AM_EVENTS_QUEUE_SIZE = 10000;

  /** RM processor: which hint kinds it acts on. */
  public static final String RM_PLACE_ENABLED = PREFIX + "rm.place.enabled";
  public static final String RM_NODE_CLASS_ENABLED = PREFIX + "rm.node-class.enabled";
  public static final String RM_RATIO_ENABLED = PREFIX + "rm.ratio.enabled";
  public static final String RM_REDUCE_BINDING_ENABLED = PREFIX + "rm.reduce-binding.enabled";

  /** The HTTP client for the sidecar at url: timeout and token from conf. */
  public static SidecarHttp sidecarHttp(Configuration conf, String url) {
    String token = null;
    try {
      char[] t = conf.getPassword(SIDECAR_TOKEN);
      if (t != null && t.length > 0) {
        token = new String(t).trim();
      }
    } catch (IOException e) {
      throw new IllegalArgumentException(SIDECAR_TOKEN + ": cannot read it: " + e.getMessage(), e);
    }
    return new SidecarHttp(url, positiveMs(conf, TIMEOUT_MS, DEFAULT_TIMEOUT_MS), token);
  }

  /** A positive duration in ms, or an IllegalArgumentException naming the key. */
  public static long positiveMs(Configuration conf, String key, long def) {
    long v = conf.getLong(key, def);
    if (v <= 0) {
      throw new IllegalArgumentException(key + ": must be > 0 ms, got " + v);
    }
    return v;
  }

  /** The fallback mode, or an IllegalArgumentException naming the key. */
  public static String fallback(Configuration conf) {
    String v = conf.getTrimmed(AM_SPECULATOR_FALLBACK, DEFAULT_AM_SPECULATOR_FALLBACK);
    if (!v.equals("stock") && !v.equals("none")) {
      throw new IllegalArgumentException(AM_SPECULATOR_FALLBACK + ": want stock or none, got " + v);
    }
    return v;
  }
}
