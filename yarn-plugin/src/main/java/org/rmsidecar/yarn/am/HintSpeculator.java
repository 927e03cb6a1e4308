package org.rmsidecar.yarn.am;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskID;
import org.apache.hadoop.mapreduce.TypeConverter;
import org.apache.hadoop.mapreduce.split.JobSplit;
import org.apache.hadoop.mapreduce.split.SplitMetaInfoReader;
import org.apache.hadoop.mapreduce.v2.api.records.Phase;
import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptId;
import org.apache.hadoop.mapreduce.v2.api.records.TaskAttemptState;
import org.apache.hadoop.mapreduce.v2.api.records.TaskId;
import org.apache.hadoop.mapreduce.v2.api.records.TaskState;
import org.apache.hadoop.mapreduce.v2.api.records.TaskType;
import org.apache.hadoop.mapreduce.v2.app.AppContext;
import org.apache.hadoop.mapreduce.v2.app.job.Job;
import org.apache.hadoop.mapreduce.v2.app.job.Task;
import org.apache.hadoop.mapreduce.v2.app.job.TaskAttempt;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskAttemptEvent;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskAttemptEventType;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskEvent;
import org.apache.hadoop.mapreduce.v2.app.job.event.TaskEventType;
import org.apache.hadoop.mapreduce.v2.app.speculate.DefaultSpeculator;
import org.rmsidecar.yarn.EventSender;
import org.rmsidecar.yarn.Hint;
import org.rmsidecar.yarn.HintFeed;
import org.rmsidecar.yarn.RmSidecarConfig;
import org.rmsidecar.yarn.SidecarHttp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MapReduce AM's speculator with rmsidecar's hints: the stock {@link DefaultSpeculator}
 * keeps running (its backups pass unless a deny-speculation hint covers the task, or
 * rmsidecar.am.speculator.stock is false), speculate hints start backups, kill hints kill
 * attempts, and the AM's task attempts are reported to the sidecar as events v1. With no
 * rmsidecar.sidecar.url it is exactly DefaultSpeculator.
 *
 * <p>Set {@code yarn.app.mapreduce.am.job.speculator.class} to this class. The AM creates its
 * speculator whatever the job's speculation settings; a job with mapreduce.map.speculative
 * (or .reduce.speculative) false gets no backup of that task type from hints either, since a
 * job may turn speculation off because its tasks are not idempotent.
 */
public class HintSpeculator extends DefaultSpeculator {
  private static final Logger LOG = LoggerFactory.getLogger(HintSpeculator.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final AppContext context;
  private final Configuration conf;
  private final boolean mapSpeculative;
  private final boolean reduceSpeculative;
  /** The job's split meta info by map index, read once from the job dir; empty if unreadable. */
  private JobSplit.TaskSplitMetaInfo[] splits;
  private final boolean stock;
  private final boolean fallbackNone;
  private final HintFeed feed;
  private final EventSender events;
  private final long scanMs;
  private final Set<String> applied = ConcurrentHashMap.newKeySet();
  private Thread scanner;
  private volatile boolean running;

  final AtomicLong hintBackups = new AtomicLong();
  final AtomicLong stockPassed = new AtomicLong();
  final AtomicLong stockDenied = new AtomicLong();
  final AtomicLong kills = new AtomicLong();
  final Map<String, AtomicLong> skipped = new ConcurrentHashMap<>();

  public HintSpeculator(Configuration conf, AppContext context) {
    super(conf, context);
    this.context = context;
    this.conf = conf;
    this.mapSpeculative = conf.getBoolean(MRJobConfig.MAP_SPECULATIVE, true);
    this.reduceSpeculative = conf.getBoolean(MRJobConfig.REDUCE_SPECULATIVE, true);
    this.stock = conf.getBoolean(RmSidecarConfig.AM_SPECULATOR_STOCK, RmSidecarConfig.DEFAULT_AM_SPECULATOR_STOCK);
    this.fallbackNone = RmSidecarConfig.fallback(conf).equals("none");
    String url = conf.getTrimmed(RmSidecarConfig.SIDECAR_URL, "");
    if (url.isEmpty()) {
      LOG.info("rmsidecar: {} is not set: stock speculation only", RmSidecarConfig.SIDECAR_URL);
      feed = null;
      events = null;
      scanMs = 0;
      return;
    }
    SidecarHttp http = RmSidecarConfig.sidecarHttp(conf, url);
    feed = new HintFeed("am", http, context.getApplicationID().toString(),
        Arrays.asList("speculate", "deny-speculation", "kill"),
        RmSidecarConfig.positiveMs(conf, RmSidecarConfig.HINTS_WAIT_MS, RmSidecarConfig.DEFAULT_HINTS_WAIT_MS),
        RmSidecarConfig.positiveMs(conf, RmSidecarConfig.HINTS_STALE_AFTER_MS,
            RmSidecarConfig.DEFAULT_HINTS_STALE_AFTER_MS),
        this::act);
    events = conf.getBoolean(RmSidecarConfig.AM_EVENTS_ENABLED, RmSidecarConfig.DEFAULT_AM_EVENTS_ENABLED)
        ? new EventSender(http, conf.getInt(RmSidecarConfig.AM_EVENTS_QUEUE_SIZE,
            RmSidecarConfig.DEFAULT_AM_EVENTS_QUEUE_SIZE))
        : null;
    scanMs = RmSidecarConfig.positiveMs(conf, RmSidecarConfig.AM_EVENTS_INTERVAL_MS,
        RmSidecarConfig.DEFAULT_AM_EVENTS_INTERVAL_MS);
    LOG.info("rmsidecar: following hints from {} (stock speculation {}, fallback {})", url, stock,
        fallbackNone ? "none" : "stock");
  }

  @Override
  protected void serviceStart() throws Exception {
    super.serviceStart();
    if (feed == null) {
      return;
    }
    feed.start();
    if (events != null) {
      events.start();
      running = true;
      scanner = new Thread(this::scanLoop, "rmsidecar-am-events");
      scanner.setDaemon(true);
      scanner.start();
    }
  }

  @Override
  protected void serviceStop() throws Exception {
    if (feed != null) {
      running = false;
      if (scanner != null) {
        scanner.interrupt();
        scanner.join(2000);
      }
      try {
        scan(); // the last states (finishes) before the AM goes
      } catch (Throwable t) {
        LOG.debug("rmsidecar: last scan failed: {}", t.toString());
      }
      feed.stop();
      if (events != null) {
        events.stop();
      }
      LOG.info("rmsidecar: speculator summary: hints received {}, backups by hints {}, stock backups passed {},"
          + " stock backups denied {}, kills {}, skipped {}, hint feed failures {}, invalid hints {},"
          + " events sent {} dropped {} rejected {}", feed.received.get(), hintBackups.get(), stockPassed.get(),
          stockDenied.get(), kills.get(), skipped, feed.failures.get(), feed.badHints.get(),
          events == null ? 0 : events.sent.get(), events == null ? 0 : events.dropped.get(),
          events == null ? 0 : events.rejected.get());
    }
    super.serviceStop();
  }

  /** The stock speculator's backups, filtered by deny hints and the fallback setting. */
  @Override
  protected void addSpeculativeAttempt(TaskId taskID) {
    if (feed != null) {
      if (feed.stale()) {
        if (fallbackNone) {
          skip("sidecar down, fallback none");
          return;
        }
      } else {
        if (!stock) {
          return; // only the sidecar's backups
        }
        String task = TypeConverter.fromYarn(taskID).toString();
        for (Hint h : feed.inForce()) {
          if (h.kind.equals("deny-speculation") && (h.task.equals(task) || h.task.equals("*"))) {
            stockDenied.incrementAndGet();
            LOG.info("rmsidecar: denied stock backup of {} (hint {}, {})", task, h.id, h.policy);
            return;
          }
        }
      }
    }
    stockPassed.incrementAndGet();
    super.addSpeculativeAttempt(taskID);
  }

  /** Acts on a newly seen hint (feed thread). Public for tests. */
  public void act(Hint h) {
    if (!h.inForce(feed.now()) || !applied.add(h.id)) {
      return;
    }
    switch (h.kind) {
      case "speculate":
        speculate(h);
        break;
      case "kill":
        kill(h);
        break;
      default:
        break; // deny-speculation is read when the stock speculator proposes
    }
  }

  private void speculate(Hint h) {
    TaskId id;
    try {
      id = TypeConverter.toYarn(TaskID.forName(h.task));
    } catch (RuntimeException e) {
      skip("bad task id");
      LOG.warn("rmsidecar: speculate hint {}: bad task id {}", h.id, h.task);
      return;
    }
    Job job = context.getJob(id.getJobId());
    Task task = job == null ? null : job.getTask(id);
    if (task == null) {
      skip("unknown task");
      return;
    }
    if (!(task.getType() == TaskType.MAP ? mapSpeculative : reduceSpeculative)) {
      skip("speculation off for the job");
      LOG.info("rmsidecar: no backup of {}: the job turned {} speculation off (hint {})", h.task,
          task.getType() == TaskType.MAP ? "map" : "reduce", h.id);
      return;
    }
    if (task.getState() != TaskState.RUNNING) {
      skip("task not running");
      LOG.info("rmsidecar: no backup of {}: it is {} (hint {})", h.task, task.getState(), h.id);
      return;
    }
    int live = 0;
    for (TaskAttempt a : task.getAttempts().values()) {
      if (!terminal(a.getState())) {
        live++;
      }
    }
    if (live != 1) {
      skip("task has a backup");
      return;
    }
    hintBackups.incrementAndGet();
    LOG.info("rmsidecar: speculate {} (hint {}, {}, node {})", h.task, h.id, h.policy, h.node);
    context.getEventHandler().handle(new TaskEvent(id, TaskEventType.T_ADD_SPEC_ATTEMPT));
  }

  private void kill(Hint h) {
    TaskAttemptId id;
    try {
      id = TypeConverter.toYarn(TaskAttemptID.forName(h.attempt));
    } catch (RuntimeException e) {
      skip("bad attempt id");
      return;
    }
    Job job = context.getJob(id.getTaskId().getJobId());
    Task task = job == null ? null : job.getTask(id.getTaskId());
    TaskAttempt a = task == null ? null : task.getAttempt(id);
    if (a == null || a.getState() != TaskAttemptState.RUNNING) {
      skip("attempt not running");
      return;
    }
    kills.incrementAndGet();
    LOG.info("rmsidecar: kill {} (hint {}, {})", h.attempt, h.id, h.policy);
    context.getEventHandler().handle(new TaskAttemptEvent(id, TaskAttemptEventType.TA_KILL));
  }

  private void skip(String why) {
    skipped.computeIfAbsent(why, k -> new AtomicLong()).incrementAndGet();
  }

  static boolean terminal(TaskAttemptState s) {
    return s == TaskAttemptState.SUCCEEDED || s == TaskAttemptState.FAILED || s == TaskAttemptState.KILLED;
  }

  // ---- events: the AM's own view of its attempts, scanned every interval.

  private final Set<String> reported = new HashSet<>();
  private final Map<String, Float> lastProgress = new HashMap<>();

  private void scanLoop() {
    while (running) {
      try {
        scan();
      } catch (Throwable t) {
        LOG.debug("rmsidecar: event scan failed: {}", t.toString());
      }
      try {
        Thread.sleep(scanMs);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /**
   * Adds the map's input split (length and the hosts its InputFormat named: for HDFS input the
   * NameNode's block hosts) as the task.pending event's splits. The AM keeps the split meta
   * info private, so it is read the way the AM reads it, from the job's submit dir.
   */
  private void addSplit(ObjectNode e, Job job, int index) {
    if (splits == null) {
      splits = new JobSplit.TaskSplitMetaInfo[0];
      String dir = conf.get(MRJobConfig.MAPREDUCE_JOB_DIR);
      try {
        if (dir != null) {
          Path jobDir = new Path(dir);
          splits = SplitMetaInfoReader.readSplitMetaInfo(TypeConverter.fromYarn(job.getID()),
              jobDir.getFileSystem(conf), conf, jobDir);
        }
      } catch (Exception ex) {
        LOG.info("rmsidecar: input split hosts not reported ({}: {})", dir, ex.toString());
      }
    }
    if (index < 0 || index >= splits.length) {
      return;
    }
    ObjectNode split = e.putArray("splits").addObject();
    split.put("offset", 0).put("length", Math.max(0L, splits[index].getInputDataLength()));
    ArrayNode hosts = split.putArray("hosts");
    for (String h : splits[index].getLocations()) {
      if (h != null && !h.isEmpty()) {
        hosts.add(h);
      }
    }
  }

  /** One scan of every task and attempt; queues events not sent before. Package-private for tests. */
  synchronized void scan() {
    if (events == null) {
      return;
    }
    String app = context.getApplicationID().toString();
    long now = System.currentTimeMillis();
    for (Job job : context.getAllJobs().values()) {
      for (Task t : job.getTasks().values()) {
        String task = TypeConverter.fromYarn(t.getID()).toString();
        boolean map = t.getType() == TaskType.MAP;
        if (reported.add(task + "/pending")) {
          ObjectNode e = event("am-" + task + "-pending", "task.pending", now, app);
          e.put("task", task).put("kind", map ? "map" : "reduce");
          if (!map) {
            e.put("partition", t.getID().getId());
          } else {
            addSplit(e, job, t.getID().getId());
          }
          events.offer(e.toString());
        }
        for (TaskAttempt a : t.getAttempts().values()) {
          String at = TypeConverter.fromYarn(a.getID()).toString();
          if (a.getAssignedContainerID() != null && a.getNodeId() != null && reported.add(at + "/alloc")) {
            ObjectNode e = event("am-" + at + "-alloc", "container.allocated", now, app);
            e.put("task", task).put("attempt", at).put("container", a.getAssignedContainerID().toString())
                .put("node", a.getNodeId().toString()).put("speculative", t.getAttempts().size() > 1
                    && a.getID().getId() > 0);
            events.offer(e.toString());
          }
          TaskAttemptState s = a.getState();
          if (s == TaskAttemptState.RUNNING || terminal(s) && !reported.contains(at + "/end")) {
            float p = Math.max(0f, Math.min(1f, a.getProgress()));
            Float last = lastProgress.get(at);
            if (reported.contains(at + "/alloc") && (last == null || p > last)) {
              lastProgress.put(at, p);
              ObjectNode e = event("am-" + at + "-p" + Math.round(p * 1000), "task.progress", now, app);
              e.put("task", task).put("attempt", at).put("progress", p).put("phase", phase(a.getPhase(), map));
              events.offer(e.toString());
            }
          }
          if (terminal(s) && reported.add(at + "/end")) {
            ObjectNode e = event("am-" + at + "-end", "task.finished", now, app);
            e.put("task", task).put("attempt", at).put("state", s.name());
            events.offer(e.toString());
            lastProgress.remove(at);
          }
        }
      }
    }
  }

  private static ObjectNode event(String id, String type, long ts, String app) {
    ObjectNode e = JSON.createObjectNode();
    e.put("v", 1).put("id", id).put("type", type).put("ts", ts).put("app", app);
    return e;
  }

  static String phase(Phase p, boolean map) {
    if (p == null) {
      return map ? "map" : "shuffle";
    }
    switch (p) {
      case SHUFFLE:
        return "shuffle";
      case SORT:
        return "sort";
      case REDUCE:
        return "reduce";
      case MAP:
        return "map";
      default:
        return map ? "map" : "shuffle"; // STARTING, CLEANUP
    }
  }
}
