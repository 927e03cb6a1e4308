package org.rmsidecar.yarn.rm;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.ams.ApplicationMasterServiceContext;
import org.apache.hadoop.yarn.ams.ApplicationMasterServiceProcessor;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateRequest;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.protocolrecords.FinishApplicationMasterRequest;
import org.apache.hadoop.yarn.api.protocolrecords.FinishApplicationMasterResponse;
import org.apache.hadoop.yarn.api.protocolrecords.RegisterApplicationMasterRequest;
import org.apache.hadoop.yarn.api.protocolrecords.RegisterApplicationMasterResponse;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.ResourceBlacklistRequest;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.rmsidecar.yarn.Hint;
import org.rmsidecar.yarn.HintFeed;
import org.rmsidecar.yarn.RmSidecarConfig;
import org.rmsidecar.yarn.SidecarHttp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An ApplicationMasterService processor (yarn.resourcemanager.application-master-service.processors)
 * that rewrites MapReduce AMs' asks by rmsidecar's hints before the scheduler sees them: place
 * (and a speculate hint's node) adds host and rack asks, strict pins them; node-class keeps a task
 * type off slow nodes; ratio holds asks back under a cap; reduce-binding places reduce asks on the
 * bound nodes. Hints come from a background feed; allocate() reads memory only. Any failure passes
 * the AM's request through unchanged.
 */
public class HintAllocationProcessor implements ApplicationMasterServiceProcessor {
  private static final Logger LOG = LoggerFactory.getLogger(HintAllocationProcessor.class);

  /** MapReduce's ask priorities (RMContainerRequestor / RMContainerAllocator). */
  static final int PRIORITY_FAST_FAIL_MAP = 5;
  static final int PRIORITY_REDUCE = 10;
  static final int PRIORITY_OPPORTUNISTIC_MAP = 19;
  static final int PRIORITY_MAP = 20;

  private ApplicationMasterServiceProcessor next;
  private RMContext rm;
  private HintFeed feed;
  private boolean includePort;
  private boolean placeOn;
  private boolean nodeClassOn;
  private boolean ratioOn;
  private boolean bindingOn;
  private final Map<ApplicationAttemptId, AppState> apps = new ConcurrentHashMap<>();

  final AtomicLong rewritten = new AtomicLong();
  final AtomicLong failures = new AtomicLong();
  final AtomicLong pins = new AtomicLong();
  private long lastWarnNanos;

  @Override
  public void init(ApplicationMasterServiceContext ctx, ApplicationMasterServiceProcessor nextProcessor) {
    this.next = nextProcessor;
    this.rm = ctx instanceof RMContext ? (RMContext) ctx : null;
    Configuration conf = rm != null ? rm.getYarnConfiguration() : new YarnConfiguration();
    init(conf, null);
  }

  /** Configures from conf; a non-null feed replaces the HTTP one (tests). */
  void init(Configuration conf, HintFeed testFeed) {
    includePort = conf.getBoolean(YarnConfiguration.RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME,
        YarnConfiguration.DEFAULT_RM_SCHEDULER_USE_PORT_FOR_NODE_NAME);
    placeOn = conf.getBoolean(RmSidecarConfig.RM_PLACE_ENABLED, true);
    nodeClassOn = conf.getBoolean(RmSidecarConfig.RM_NODE_CLASS_ENABLED, true);
    ratioOn = conf.getBoolean(RmSidecarConfig.RM_RATIO_ENABLED, true);
    bindingOn = conf.getBoolean(RmSidecarConfig.RM_REDUCE_BINDING_ENABLED, true);
    if (testFeed != null) {
      feed = testFeed;
      return;
    }
    String url = conf.getTrimmed(RmSidecarConfig.SIDECAR_URL, "");
    if (url.isEmpty()) {
      LOG.info("rmsidecar: {} is not set: allocation requests pass through", RmSidecarConfig.SIDECAR_URL);
      return;
    }
    feed = new HintFeed("rm", RmSidecarConfig.sidecarHttp(conf, url), null,
        Arrays.asList("place", "node-class", "ratio", "reduce-binding", "speculate"),
        RmSidecarConfig.positiveMs(conf, RmSidecarConfig.HINTS_WAIT_MS, RmSidecarConfig.DEFAULT_HINTS_WAIT_MS),
        RmSidecarConfig.positiveMs(conf, RmSidecarConfig.HINTS_STALE_AFTER_MS,
            RmSidecarConfig.DEFAULT_HINTS_STALE_AFTER_MS),
        h -> { });
    feed.startFor(this);
    LOG.info("rmsidecar: allocation processor following hints from {}", url);
  }

  @Override
  public void registerApplicationMaster(ApplicationAttemptId id, RegisterApplicationMasterRequest req,
      RegisterApplicationMasterResponse resp) throws IOException, YarnException {
    next.registerApplicationMaster(id, req, resp);
  }

  @Override
  public void finishApplicationMaster(ApplicationAttemptId id, FinishApplicationMasterRequest req,
      FinishApplicationMasterResponse resp) {
    apps.remove(id);
    next.finishApplicationMaster(id, req, resp);
  }

  @Override
  public void allocate(ApplicationAttemptId id, AllocateRequest req, AllocateResponse resp) throws YarnException {
    AppState st = null;
    if (feed != null) {
      try {
        st = apps.computeIfAbsent(id, k -> new AppState());
        synchronized (st) {
          rewrite(id, st, req);
        }
      } catch (Throwable t) {
        failures.incrementAndGet();
        warn("rmsidecar: rewriting the asks of " + id + " failed, passing them through: " + t);
      }
    }
    next.allocate(id, req, resp);
    if (st != null) {
      try {
        synchronized (st) {
          st.track(resp);
        }
      } catch (Throwable t) {
        warn("rmsidecar: tracking containers of " + id + " failed: " + t);
      }
    }
  }

  /** What the processor knows of one app attempt. */
  static final class AppState {
    /** The AM's own latest ask per key. */
    final Map<String, ResourceRequest> am = new LinkedHashMap<>();
    /** What the RM holds per key as far as we know (null count -1: unknown, resend). */
    final Map<String, Integer> sent = new HashMap<>();
    final Map<String, Boolean> sentRelax = new HashMap<>();
    final Map<String, Integer> running = new HashMap<>(); // container id -> priority
    final Set<String> amBlacklist = new HashSet<>();
    final Set<String> ourBlacklist = new HashSet<>();
    boolean touched;

    int runningOf(boolean map) {
      int n = 0;
      for (int p : running.values()) {
        if (isMap(p) == map && (map || p == PRIORITY_REDUCE)) {
          n++;
        }
      }
      return n;
    }

    void track(AllocateResponse resp) {
      for (Container c : resp.getAllocatedContainers()) {
        int p = c.getPriority().getPriority();
        running.put(c.getId().toString(), p);
        // The RM decremented its asks of that priority: resend ours next time.
        for (Map.Entry<String, Integer> e : sent.entrySet()) {
          if (e.getKey().startsWith(p + "|")) {
            e.setValue(-1);
          }
        }
      }
      for (ContainerStatus s : resp.getCompletedContainersStatuses()) {
        running.remove(s.getContainerId().toString());
      }
    }
  }

  static boolean isMap(int p) {
    return p == PRIORITY_MAP || p == PRIORITY_FAST_FAIL_MAP || p == PRIORITY_OPPORTUNISTIC_MAP;
  }

  static String key(ResourceRequest r) {
    return r.getPriority().getPriority() + "|" + r.getResourceName() + "|" + r.getCapability().getMemorySize() + "|"
        + r.getCapability().getVirtualCores() + "|" + r.getAllocationRequestId() + "|"
        + (r.getExecutionTypeRequest() == null ? "" : r.getExecutionTypeRequest().getExecutionType());
  }

  private void rewrite(ApplicationAttemptId id, AppState st, AllocateRequest req) {
    List<ResourceRequest> asks = req.getAskList();
    for (ResourceRequest r : asks) {
      st.am.put(key(r), r); // never changed here: desired() works on clones
    }
    ResourceBlacklistRequest bl = req.getResourceBlacklistRequest();
    if (bl != null) {
      st.amBlacklist.addAll(bl.getBlacklistAdditions());
      st.amBlacklist.removeAll(bl.getBlacklistRemovals());
    }
    String app = id.getApplicationId().toString();
    Hints hs = feed.stale() ? Hints.NONE : Hints.of(feed.inForce(app), app, queueOf(id));
    if (hs.isEmpty() && !st.touched) {
      return; // fast path: nothing to do and nothing to undo
    }
    Map<String, ResourceRequest> want = desired(st, hs);
    List<ResourceRequest> out = new ArrayList<>();
    Set<String> amKeys = new HashSet<>();
    for (ResourceRequest r : asks) {
      amKeys.add(key(r));
    }
    Set<String> keys = new HashSet<>(want.keySet());
    keys.addAll(st.sent.keySet());
    for (String k : keys) {
      ResourceRequest w = want.get(k);
      if (w == null) {
        ResourceRequest base = st.am.get(k);
        if (base == null) {
          continue; // never ours and never the AM's
        }
        w = base;
      }
      Integer had = st.sent.get(k);
      Boolean relaxHad = st.sentRelax.get(k);
      boolean changed = had == null || had != w.getNumContainers() || relaxHad == null
          || relaxHad != w.getRelaxLocality();
      if (amKeys.contains(k) || changed) {
        out.add(w);
        st.sent.put(k, w.getNumContainers());
        st.sentRelax.put(k, w.getRelaxLocality());
      }
    }
    req.setAskList(out);
    blacklist(st, req, hs);
    st.touched = !hs.isEmpty();
    rewritten.incrementAndGet();
  }

  private String queueOf(ApplicationAttemptId id) {
    if (rm == null) {
      return "";
    }
    RMApp a = rm.getRMApps().get(id.getApplicationId());
    return a == null ? "" : a.getQueue();
  }

  /** The asks the RM should hold: the AM's, changed by the hints. */
  Map<String, ResourceRequest> desired(AppState st, Hints hs) {
    Map<String, ResourceRequest> want = new LinkedHashMap<>();
    for (Map.Entry<String, ResourceRequest> e : st.am.entrySet()) {
      want.put(e.getKey(), ResourceRequest.clone(e.getValue()));
    }
    // ratio: running + outstanding off-switch asks of a type <= its cap.
    if (ratioOn) {
      int[] caps = {hs.maxMaps, hs.maxReduces};
      for (int t = 0; t < 2; t++) {
        boolean map = t == 0;
        if (caps[t] < 0) {
          continue;
        }
        int room = Math.max(0, caps[t] - st.runningOf(map));
        for (int p : map ? new int[] {PRIORITY_FAST_FAIL_MAP, PRIORITY_MAP, PRIORITY_OPPORTUNISTIC_MAP}
            : new int[] {PRIORITY_REDUCE}) {
          for (ResourceRequest r : want.values()) {
            if (r.getPriority().getPriority() == p && r.getResourceName().equals(ResourceRequest.ANY)) {
              int n = Math.min(r.getNumContainers(), room);
              room -= n;
              r.setNumContainers(n);
            }
          }
        }
      }
    }
    // place (maps) and reduce-binding (reduces): host and rack asks on the hinted nodes.
    if (placeOn) {
      pin(want, PRIORITY_MAP, hs.mapNodes, hs.strictMaps);
    }
    if (bindingOn) {
      // Bindings that cover every reduce the AM asks for pin the asks to the bound nodes
      // strictly: with locality relaxed the scheduler hands a bound partition to whichever node
      // heartbeats first. Partial bindings stay preferences, so unbound reduces still run.
      pin(want, PRIORITY_REDUCE, hs.reduceNodes, covers(want, PRIORITY_REDUCE, hs.reduceNodes));
    }
    // node-class: no host asks of a type on nodes slow for it.
    if (nodeClassOn) {
      for (ResourceRequest r : want.values()) {
        int p = r.getPriority().getPriority();
        Set<String> slow = isMap(p) ? hs.mapSlow : p == PRIORITY_REDUCE ? hs.reduceSlow : null;
        if (slow != null && names(slow).contains(r.getResourceName())) {
          r.setNumContainers(0);
        }
      }
    }
    return want;
  }

  private void pin(Map<String, ResourceRequest> want, int prio, Map<String, Integer> nodes, boolean strict) {
    if (nodes.isEmpty()) {
      return;
    }
    ResourceRequest any = null;
    for (ResourceRequest r : want.values()) {
      if (r.getPriority().getPriority() == prio && r.getResourceName().equals(ResourceRequest.ANY)) {
        any = r;
      }
    }
    if (any == null || any.getNumContainers() == 0) {
      return;
    }
    Map<String, Integer> racks = new HashMap<>();
    for (Map.Entry<String, Integer> e : nodes.entrySet()) {
      String name = nodeName(e.getKey());
      int n = Math.min(any.getNumContainers(), e.getValue());
      ResourceRequest host = ResourceRequest.clone(any);
      host.setResourceName(name);
      host.setNumContainers(n);
      host.setRelaxLocality(true);
      ResourceRequest own = want.get(key(host));
      if (own != null) {
        host.setNumContainers(Math.max(n, own.getNumContainers()));
      } else if (pins.incrementAndGet() % 1000 == 1) {
        LOG.info("rmsidecar: pin priority {} asks to {} ({} containers, strict {})", prio, name, n, strict);
      }
      want.put(key(host), host);
      racks.merge(rackOf(e.getKey()), n, Integer::sum);
    }
    for (Map.Entry<String, Integer> e : racks.entrySet()) {
      ResourceRequest rack = ResourceRequest.clone(any);
      rack.setResourceName(e.getKey());
      ResourceRequest own = want.get(key(rack));
      rack.setNumContainers(Math.min(any.getNumContainers(),
          Math.max(e.getValue(), own == null ? 0 : own.getNumContainers())));
      rack.setRelaxLocality(!strict);
      want.put(key(rack), rack);
    }
    if (strict) {
      any.setRelaxLocality(false);
      for (ResourceRequest r : want.values()) {
        // Other hosts and racks of that priority: none while pinned.
        if (r.getPriority().getPriority() == prio && !r.getResourceName().equals(ResourceRequest.ANY)
            && !nodes.containsKey(r.getResourceName()) && !racks.containsKey(r.getResourceName())
            && !isPinnedName(nodes, r.getResourceName())) {
          r.setNumContainers(0);
        }
      }
    }
  }

  /** The hinted containers are at least the ANY ask of priority prio (and it asks for some). */
  private static boolean covers(Map<String, ResourceRequest> want, int prio, Map<String, Integer> nodes) {
    int bound = 0;
    for (int n : nodes.values()) {
      bound += n;
    }
    for (ResourceRequest r : want.values()) {
      if (r.getPriority().getPriority() == prio && r.getResourceName().equals(ResourceRequest.ANY)) {
        return r.getNumContainers() > 0 && bound >= r.getNumContainers();
      }
    }
    return false;
  }

  private Set<String> names(Set<String> nodeIds) {
    Set<String> out = new HashSet<>();
    for (String n : nodeIds) {
      out.add(nodeName(n));
    }
    return out;
  }

  private boolean isPinnedName(Map<String, Integer> nodes, String name) {
    for (String n : nodes.keySet()) {
      if (nodeName(n).equals(name)) {
        return true;
      }
    }
    return false;
  }

  /** The scheduler's name of a node id "host:port". */
  String nodeName(String nodeId) {
    if (includePort) {
      return nodeId;
    }
    int c = nodeId.lastIndexOf(':');
    return c > 0 ? nodeId.substring(0, c) : nodeId;
  }

  String rackOf(String nodeId) {
    if (rm != null) {
      try {
        RMNode n = rm.getRMNodes().get(NodeId.fromString(nodeId));
        if (n != null) {
          return n.getRackName();
        }
      } catch (RuntimeException e) {
        // not host:port; fall through
      }
      for (RMNode n : rm.getRMNodes().values()) {
        if (n.getHostName().equals(nodeId)) {
          return n.getRackName();
        }
      }
    }
    return "/default-rack";
  }

  private void blacklist(AppState st, AllocateRequest req, Hints hs) {
    if (!nodeClassOn) {
      return;
    }
    boolean maps = false;
    boolean reduces = false;
    for (ResourceRequest r : st.am.values()) {
      if (r.getResourceName().equals(ResourceRequest.ANY) && r.getNumContainers() > 0) {
        int p = r.getPriority().getPriority();
        maps |= isMap(p);
        reduces |= p == PRIORITY_REDUCE;
      }
    }
    Set<String> want = new HashSet<>();
    if (maps || reduces) {
      Set<String> slow = new HashSet<>(maps ? hs.mapSlow : hs.reduceSlow);
      if (maps && reduces) {
        slow.retainAll(hs.reduceSlow);
      }
      want.addAll(names(slow));
    }
    want.removeAll(st.amBlacklist);
    int cluster = rm == null ? Integer.MAX_VALUE : rm.getRMNodes().size();
    if (want.size() + st.amBlacklist.size() >= cluster) {
      want.clear(); // never every node
    }
    List<String> add = new ArrayList<>();
    List<String> remove = new ArrayList<>();
    for (String n : want) {
      if (!st.ourBlacklist.contains(n)) {
        add.add(n);
      }
    }
    for (String n : st.ourBlacklist) {
      if (!want.contains(n) && !st.amBlacklist.contains(n)) {
        remove.add(n);
      }
    }
    if (add.isEmpty() && remove.isEmpty()) {
      return;
    }
    st.ourBlacklist.clear();
    st.ourBlacklist.addAll(want);
    ResourceBlacklistRequest bl = req.getResourceBlacklistRequest();
    List<String> adds = new ArrayList<>(add);
    List<String> rems = new ArrayList<>(remove);
    if (bl != null) {
      adds.addAll(bl.getBlacklistAdditions());
      rems.addAll(bl.getBlacklistRemovals());
    }
    LOG.info("rmsidecar: blacklist for slow nodes: +{} -{}", add, remove);
    req.setResourceBlacklistRequest(ResourceBlacklistRequest.newInstance(adds, rems));
  }

  /** The hints that concern one app, in the form allocate() needs. */
  static final class Hints {
    static final Hints NONE = new Hints();
    final Map<String, Integer> mapNodes = new HashMap<>();
    final Map<String, Integer> reduceNodes = new HashMap<>();
    boolean strictMaps;
    int maxMaps = -1;
    int maxReduces = -1;
    final Set<String> mapSlow = new HashSet<>();
    final Set<String> reduceSlow = new HashSet<>();

    boolean isEmpty() {
      return mapNodes.isEmpty() && reduceNodes.isEmpty() && maxMaps < 0 && maxReduces < 0 && mapSlow.isEmpty()
          && reduceSlow.isEmpty();
    }

    static Hints of(List<Hint> all, String app, String queue) {
      Hints h = new Hints();
      long queueSeq = -1;
      long appSeq = -1;
      for (Hint x : all) {
        switch (x.kind) {
          case "place":
            if (x.app.equals(app) && !x.nodes.isEmpty()) {
              h.mapNodes.merge(x.nodes.get(0), 1, Integer::sum);
              h.strictMaps |= x.strict;
            }
            break;
          case "speculate":
            if (x.app.equals(app) && !x.node.isEmpty()) {
              (x.task.contains("_r_") ? h.reduceNodes : h.mapNodes).merge(x.node, 1, Integer::sum);
            }
            break;
          case "reduce-binding":
            if (x.app.equals(app)) {
              h.reduceNodes.merge(x.node, 1, Integer::sum);
            }
            break;
          case "node-class":
            // map-reduce-slow nodes are slow for both.
            if (x.mapSlow) {
              h.mapSlow.add(x.node);
            }
            if (x.reduceSlow) {
              h.reduceSlow.add(x.node);
            }
            break;
          case "ratio":
            // An app cap wins over a queue cap; the newest of each wins.
            if (x.app.equals(app) && x.seq > appSeq) {
              appSeq = x.seq;
              h.maxMaps = x.maxMaps;
              h.maxReduces = x.maxReduces;
            } else if (appSeq < 0 && x.app.isEmpty() && !x.queue.isEmpty() && queueMatches(x.queue, queue)
                && x.seq > queueSeq) {
              queueSeq = x.seq;
              h.maxMaps = x.maxMaps;
              h.maxReduces = x.maxReduces;
            }
            break;
          default:
            break;
        }
      }
      return h;
    }

    private static boolean queueMatches(String hinted, String actual) {
      return !actual.isEmpty() && (hinted.equals(actual) || ("root." + hinted).equals(actual)
          || hinted.equals("root." + actual));
    }
  }

  private synchronized void warn(String msg) {
    long t = System.nanoTime();
    if (t - lastWarnNanos > 10_000_000_000L) {
      lastWarnNanos = t;
      LOG.warn(msg);
    }
  }
}
