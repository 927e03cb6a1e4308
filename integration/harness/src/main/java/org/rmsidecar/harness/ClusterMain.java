package org.rmsidecar.harness;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.mapreduce.v2.MiniMRYarnCluster;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.nodemanager.NodeManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;

/**
 * Starts a MiniDFSCluster (3 datanodes with distinct host names and racks, WebHDFS on) and a
 * MiniMRYarnCluster (CapacityScheduler, node labels, priorities, 2 NodeManagers, MapReduce and
 * the JobHistoryServer) in this JVM, writes the running cluster's Hadoop configuration to
 * RUNDIR/conf and a connection file RUNDIR/cluster.json, prints READY and stays up.
 *
 * <p>Stops on SIGTERM/SIGINT, on stdin EOF (unless --ignore-stdin), or on the "stop" command.
 * Commands (one per line on stdin, or as files RUNDIR/control/NAME.req holding one line; the
 * answer is written to RUNDIR/control/NAME.resp): ping, restart-namenode [down_ms],
 * stop-namenode, start-namenode, restart-datanode INDEX [down_ms], restart-resourcemanager,
 * stop-nodemanager INDEX, stop.
 */
public final class ClusterMain {
  private static final String[] DN_HOSTS = {
    "dn1.rmsidecar.test", "dn2.rmsidecar.test", "dn3.rmsidecar.test"
  };
  private static final String[] DN_RACKS = {"/rack1", "/rack1", "/rack2"};
  /**
   * JVM options of the short-lived JVMs the tests start (MR AMs, task containers, the job
   * submitter): the client compiler only and the serial collector. On the two-core CI machine,
   * C2 compiler threads and G1's worker threads of several JVMs starting at once compete with
   * the minicluster for the cores; a task JVM of a few seconds gains nothing from either.
   */
  private static final String SHORT_JVM_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC";

  private final Path runDir;
  private final String kafkaBootstrap;
  private final String kafkaDir;
  private final String appClasspath;
  private final int numNodeManagers;
  private final boolean ignoreStdin;
  private final CountDownLatch stopLatch = new CountDownLatch(1);
  private final AtomicBoolean stopped = new AtomicBoolean();
  private MiniDFSCluster dfs;
  private MiniMRYarnCluster yarn;
  private int nnPort;
  private int nnHttpPort;

  /** The sidecar's HTTP port the plug-ins call (0: plug-ins off). */
  private final int sidecarPort;

  private ClusterMain(Path runDir, String kafkaBootstrap, String kafkaDir, String appClasspath,
      int nms, boolean ignoreStdin, int sidecarPort) {
    this.sidecarPort = sidecarPort;
    this.runDir = runDir;
    this.kafkaBootstrap = kafkaBootstrap;
    this.kafkaDir = kafkaDir;
    this.appClasspath = appClasspath;
    this.numNodeManagers = nms;
    this.ignoreStdin = ignoreStdin;
  }

  public static void main(String[] args) throws Exception {
    String run = null;
    String kafka = "";
    String kafkaDir = "";
    String cp = "";
    int nms = 2;
    int sidecarPort = 0;
    boolean ignoreStdin = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--run-dir":
          run = args[++i];
          break;
        case "--kafka-bootstrap":
          kafka = args[++i];
          break;
        case "--kafka-dir":
          kafkaDir = args[++i];
          break;
        case "--app-classpath":
          cp = args[++i];
          break;
        case "--nodemanagers":
          nms = Integer.parseInt(args[++i]);
          break;
        case "--ignore-stdin":
          ignoreStdin = true;
          break;
        case "--sidecar-port":
          sidecarPort = Integer.parseInt(args[++i]);
          break;
        default:
          System.err.println("unknown argument: " + args[i]);
          System.err.println("usage: ClusterMain --run-dir DIR [--kafka-bootstrap HOST:PORT] [--kafka-dir DIR]"
              + " [--app-classpath CP] [--nodemanagers N] [--ignore-stdin] [--sidecar-port P]");
          System.exit(2);
      }
    }
    if (run == null) {
      System.err.println("--run-dir is required");
      System.exit(2);
    }
    if (cp.isEmpty()) {
      cp = System.getProperty("java.class.path");
    }
    Path runDir = Paths.get(run).toAbsolutePath().normalize();
    ClusterMain main = new ClusterMain(runDir, kafka, kafkaDir, cp, nms, ignoreStdin, sidecarPort);
    int rc = main.run();
    System.exit(rc);
  }

  private int run() throws Exception {
    long t0 = System.nanoTime();
    Files.createDirectories(runDir.resolve("data"));
    Files.createDirectories(runDir.resolve("tmp"));
    Files.createDirectories(runDir.resolve("conf"));
    Files.createDirectories(runDir.resolve("control"));
    // Everything the mini clusters write goes under the run dir.
    System.setProperty("test.build.data", runDir.resolve("data").toString());
    System.setProperty("hadoop.tmp.dir", runDir.resolve("tmp").toString());

    Runtime.getRuntime().addShutdownHook(new Thread(this::shutdown, "harness-shutdown"));
    try {
      startDfs();
      log("MiniDFSCluster up after %d ms", ms(t0));
      startYarn();
      log("MiniMRYarnCluster up after %d ms", ms(t0));
      writeConf();
      writeConnectionFile();
    } catch (Throwable t) {
      System.err.println("harness: start failed: " + t);
      t.printStackTrace();
      shutdown();
      return 1;
    }
    log("cluster ready after %d ms", ms(t0));
    System.out.println("READY");
    System.out.flush();

    Thread control = new Thread(this::pollControlDir, "harness-control");
    control.setDaemon(true);
    control.start();
    if (!ignoreStdin) {
      Thread stdin = new Thread(this::readStdin, "harness-stdin");
      stdin.setDaemon(true);
      stdin.start();
    }
    stopLatch.await();
    shutdown();
    return 0;
  }

  private static long ms(long t0) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
  }

  private static void log(String fmt, Object... args) {
    System.out.println("harness: " + String.format(fmt, args));
    System.out.flush();
  }

  /**
   * A loopback port free a moment ago, below the kernel's ephemeral range: the NameNode and the
   * RM are restarted on their ports, and a port in the ephemeral range can meanwhile become the
   * source port of any outgoing connection (the restart then fails with "address in use").
   */
  private static int freePort() throws IOException {
    int lo = 20000;
    int hi = ephemeralLow() - 1;
    java.util.Random rnd = new java.util.Random();
    for (int i = 0; i < 200; i++) {
      int p = lo + rnd.nextInt(hi - lo + 1);
      try (ServerSocket s = new ServerSocket()) {
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), p));
        return p;
      } catch (IOException inUse) {
        // taken: try another
      }
    }
    throw new IOException("no free port in " + lo + ".." + hi);
  }

  /** The low end of net.ipv4.ip_local_port_range (32768 when it cannot be read). */
  private static int ephemeralLow() {
    try {
      String[] r = Files.readAllLines(Paths.get("/proc/sys/net/ipv4/ip_local_port_range")).get(0)
          .trim().split("\\s+");
      int low = Integer.parseInt(r[0]);
      return low > 21000 ? low : 32768;
    } catch (IOException | RuntimeException e) {
      return 32768;
    }
  }

  private void startDfs() throws IOException {
    Configuration conf = new Configuration();
    conf.setBoolean("dfs.webhdfs.enabled", true);
    conf.setBoolean("dfs.permissions.enabled", false);
    conf.setBoolean("dfs.namenode.datanode.registration.ip-hostname-check", false);
    conf.setLong("dfs.blocksize", 1024L * 1024L);
    conf.setInt("dfs.replication", 3);
    conf.setLong("dfs.heartbeat.interval", 1);
    nnPort = freePort();
    nnHttpPort = freePort();
    dfs = new MiniDFSCluster.Builder(conf, runDir.resolve("dfs").toFile())
        .nameNodePort(nnPort)
        .nameNodeHttpPort(nnHttpPort)
        .numDataNodes(DN_HOSTS.length)
        .hosts(DN_HOSTS)
        .racks(DN_RACKS)
        .format(true)
        .build();
    dfs.waitActive();
  }

  private void startYarn() throws Exception {
    Configuration conf = new YarnConfiguration(new Configuration(dfs.getConfiguration(0)));
    conf.set("fs.defaultFS", dfs.getURI().toString());
    conf.set("yarn.app.mapreduce.am.staging-dir", "/tmp/hadoop-yarn/staging");
    conf.set("yarn.resourcemanager.scheduler.class",
        "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler");
    conf.set("yarn.scheduler.capacity.root.queues", "default");
    conf.set("yarn.scheduler.capacity.root.default.capacity", "100");
    conf.set("yarn.scheduler.capacity.root.default.maximum-capacity", "100");
    conf.set("yarn.scheduler.capacity.maximum-am-resource-percent", "0.5");
    conf.setBoolean("yarn.node-labels.enabled", true);
    conf.set("yarn.node-labels.fs-store.root-dir",
        runDir.resolve("node-labels").toUri().toString());
    conf.setInt("yarn.cluster.max-application-priority", 10);
    conf.setBoolean("yarn.scheduler.include-port-in-node-name", true);
    // Fixed RM ports (checked free now) so the RM can be restarted on the same addresses.
    conf.setBoolean("yarn.minicluster.fixed.ports", true);
    // NodeManagers talk to the RM over real RPC (not in-JVM calls), so they survive RM restarts.
    conf.setBoolean("yarn.minicluster.use-rpc", true);
    conf.setLong("yarn.resourcemanager.connect.retry-interval.ms", 500);
    conf.setLong("yarn.nodemanager.resourcemanager.connect.retry-interval.ms", 500);
    conf.set("yarn.resourcemanager.hostname", "localhost");
    conf.set("yarn.resourcemanager.address", "localhost:" + freePort());
    conf.set("yarn.resourcemanager.scheduler.address", "localhost:" + freePort());
    conf.set("yarn.resourcemanager.resource-tracker.address", "localhost:" + freePort());
    conf.set("yarn.resourcemanager.admin.address", "localhost:" + freePort());
    conf.set("yarn.resourcemanager.webapp.address", "localhost:" + freePort());
    // Small containers: a wordcount job fits on 2 cores.
    conf.setInt("yarn.nodemanager.resource.memory-mb", 4096);
    conf.setInt("yarn.nodemanager.resource.cpu-vcores", 4);
    conf.setInt("yarn.scheduler.minimum-allocation-mb", 128);
    conf.setInt("yarn.scheduler.maximum-allocation-mb", 2048);
    // The NodeManagers' local dirs share the machine's disk: at the default 90 % cut-off a
    // developer's nearly full disk marks every NodeManager UNHEALTHY and no container runs.
    conf.setFloat("yarn.nodemanager.disk-health-checker.max-disk-utilization-per-disk-percentage",
        99.0f);
    conf.setBoolean("yarn.nodemanager.vmem-check-enabled", false);
    conf.setBoolean("yarn.nodemanager.pmem-check-enabled", false);
    conf.setInt("yarn.app.mapreduce.am.resource.mb", 512);
    conf.set("yarn.app.mapreduce.am.command-opts", "-Xmx384m " + SHORT_JVM_OPTS);
    conf.setInt("mapreduce.map.memory.mb", 384);
    conf.set("mapreduce.map.java.opts", "-Xmx256m " + SHORT_JVM_OPTS);
    conf.setInt("mapreduce.reduce.memory.mb", 384);
    conf.set("mapreduce.reduce.java.opts", "-Xmx256m " + SHORT_JVM_OPTS);
    conf.setInt("mapreduce.task.io.sort.mb", 32);
    // Containers run from the harness's own jars (no Hadoop install on this machine).
    conf.set("yarn.application.classpath", appClasspath);
    conf.set("mapreduce.application.classpath", appClasspath);
    conf.set("yarn.nodemanager.log.retain-seconds", "3600");
    // Faster clean shutdown: do not wait long for container processes at NM stop.
    conf.setLong("yarn.nodemanager.process-kill-wait.ms", 1000);
    conf.setLong("yarn.nodemanager.sleep-delay-before-sigkill.ms", 250);
    conf.setBoolean("yarn.log-aggregation-enable", false);
    if (sidecarPort > 0) {
      // rmsidecar's Hadoop plug-ins (yarn-plugin/, on the harness classpath): the RM's
      // allocation processor and the MR AM's speculator, both calling the sidecar on a port
      // fixed for the run, so tests start `rmsidecar run --http 127.0.0.1:PORT` when they
      // need it; with no sidecar listening the plug-ins pass everything through.
      conf.set("yarn.resourcemanager.application-master-service.processors",
          "org.rmsidecar.yarn.rm.HintAllocationProcessor");
      conf.set("yarn.app.mapreduce.am.job.speculator.class",
          "org.rmsidecar.yarn.am.HintSpeculator");
      conf.set("rmsidecar.sidecar.url", "http://127.0.0.1:" + sidecarPort);
      conf.setLong("rmsidecar.hints.stale-after-ms", 8000);
      conf.setLong("rmsidecar.hints.wait-ms", 2000);
    }

    yarn = new MiniMRYarnCluster("rmsidecar", numNodeManagers);
    yarn.init(conf);
    yarn.start();
    if (!yarn.waitForNodeManagersToConnect(60_000)) {
      throw new IOException("NodeManagers did not register within 60 s");
    }
    // All web apps of this JVM share Guice's static GuiceFilter pipeline: the web app started
    // last serves every port. The NodeManagers start after the RM, so the RM REST API would
    // answer with NodeManager pages. Restarting the RM (same fixed ports) makes its web app
    // the last one; the NodeManagers resync and register again.
    restartResourceManager();
  }

  private void restartResourceManager() throws Exception {
    yarn.restartResourceManager(0);
    if (!yarn.waitForNodeManagersToConnect(60_000)) {
      throw new IOException("NodeManagers did not re-register within 60 s after RM restart");
    }
    waitForRunningNodeManagers(60_000);
  }

  /**
   * Waits until the RM has every NodeManager RUNNING. Registered is not enough: an UNHEALTHY
   * one (e.g. its local dirs on a full disk) gets no container, and every job would wait in
   * ACCEPTED until a test's deadline; this fails at once with each node's health report.
   */
  private void waitForRunningNodeManagers(long timeoutMs) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (true) {
      Collection<RMNode> nodes =
          yarn.getResourceManager().getRMContext().getRMNodes().values();
      long running = nodes.stream().filter(n -> n.getState() == NodeState.RUNNING).count();
      if (running >= numNodeManagers) {
        return;
      }
      if (System.currentTimeMillis() > deadline) {
        StringBuilder b = new StringBuilder();
        for (RMNode n : nodes) {
          b.append("; ").append(n.getNodeID()).append(' ').append(n.getState())
              .append(": ").append(n.getHealthReport());
        }
        throw new IOException(running + " of " + numNodeManagers
            + " NodeManagers RUNNING after " + timeoutMs / 1000 + " s" + b);
      }
      Thread.sleep(200);
    }
  }

  /** Writes core/hdfs/yarn/mapred-site.xml of the running cluster into RUNDIR/conf. */
  private void writeConf() throws IOException {
    Configuration conf = yarn.getConfig();
    Map<String, Configuration> files = new LinkedHashMap<>();
    for (String f : new String[] {"core-site.xml", "hdfs-site.xml", "yarn-site.xml",
        "mapred-site.xml"}) {
      files.put(f, new Configuration(false));
    }
    for (Map.Entry<String, String> e : conf) {
      String k = e.getKey();
      String v = conf.getRaw(k);
      if (v == null || k.startsWith("test.")) {
        continue;
      }
      String file;
      if (k.startsWith("dfs.")) {
        file = "hdfs-site.xml";
      } else if (k.startsWith("yarn.")) {
        file = "yarn-site.xml";
      } else if (k.startsWith("mapreduce.") || k.startsWith("mapred.")) {
        file = "mapred-site.xml";
      } else {
        file = "core-site.xml";
      }
      files.get(file).set(k, v);
    }
    Path dir = runDir.resolve("conf");
    for (Map.Entry<String, Configuration> e : files.entrySet()) {
      Path tmp = dir.resolve(e.getKey() + ".tmp");
      try (OutputStream out = Files.newOutputStream(tmp)) {
        e.getValue().writeXml(out);
      }
      Files.move(tmp, dir.resolve(e.getKey()), StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
    }
  }

  private void writeConnectionFile() throws IOException {
    Configuration conf = yarn.getConfig();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("v", 1);
    m.put("run_dir", runDir.toString());
    m.put("conf_dir", runDir.resolve("conf").toString());
    m.put("control_dir", runDir.resolve("control").toString());
    m.put("pid", ProcessHandle.current().pid());
    String fsDefault = dfs.getURI().toString();
    m.put("fs_default", fsDefault);
    m.put("namenode_rpc", dfs.getURI().getHost() + ":" + dfs.getNameNodePort());
    m.put("namenode_http", "localhost:" + nnHttpPort);
    m.put("webhdfs", "http://localhost:" + nnHttpPort + "/webhdfs/v1");
    m.put("rm_web", "http://" + conf.get("yarn.resourcemanager.webapp.address"));
    m.put("rm_address", conf.get("yarn.resourcemanager.address"));
    m.put("rm_scheduler", conf.get("yarn.resourcemanager.scheduler.address"));
    m.put("rm_resource_tracker", conf.get("yarn.resourcemanager.resource-tracker.address"));
    m.put("rm_admin", conf.get("yarn.resourcemanager.admin.address"));
    m.put("jobhistory_address", conf.get("mapreduce.jobhistory.address"));
    m.put("jobhistory_web", "http://" + conf.get("mapreduce.jobhistory.webapp.address"));
    m.put("sidecar_http", sidecarPort > 0 ? "127.0.0.1:" + sidecarPort : "");
    List<Object> dns = new ArrayList<>();
    List<DataNode> nodes = dfs.getDataNodes();
    for (int i = 0; i < nodes.size(); i++) {
      DataNode dn = nodes.get(i);
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("host", dn.getDatanodeId().getHostName());
      d.put("ip", dn.getDatanodeId().getIpAddr());
      d.put("rack", i < DN_RACKS.length ? DN_RACKS[i] : "/default-rack");
      d.put("xfer", dn.getDatanodeId().getIpAddr() + ":" + dn.getXferPort());
      d.put("http", dn.getDatanodeId().getIpAddr() + ":" + dn.getInfoPort());
      d.put("ipc", dn.getDatanodeId().getIpAddr() + ":" + dn.getIpcPort());
      dns.add(d);
    }
    m.put("datanodes", dns);
    List<Object> nms = new ArrayList<>();
    for (int i = 0; i < numNodeManagers; i++) {
      NodeManager nm = yarn.getNodeManager(i);
      Map<String, Object> n = new LinkedHashMap<>();
      n.put("id", nm.getNMContext().getNodeId().toString());
      n.put("http", nm.getNMContext().getNodeId().getHost() + ":"
          + nm.getNMContext().getHttpPort());
      nms.add(n);
    }
    m.put("nodemanagers", nms);
    m.put("kafka_bootstrap", kafkaBootstrap);
    m.put("kafka_dir", kafkaDir);
    String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    List<Object> submit = new ArrayList<>(Arrays.asList(java, "-Xmx256m"));
    submit.addAll(Arrays.asList(SHORT_JVM_OPTS.split(" ")));
    submit.addAll(Arrays.asList("-cp", appClasspath,
        SubmitWordCount.class.getName(), "--conf", runDir.resolve("conf").toString()));
    m.put("wordcount_cmd", submit);

    Path tmp = runDir.resolve("hadoop.json.tmp");
    Files.write(tmp, Json.write(m).getBytes(StandardCharsets.UTF_8));
    Files.move(tmp, runDir.resolve("hadoop.json"), StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
  }

  private void readStdin() {
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        System.out.println("harness: " + command(line.trim()));
        System.out.flush();
      }
    } catch (IOException e) {
      System.err.println("harness: stdin: " + e);
    }
    log("stdin closed, stopping");
    stopLatch.countDown();
  }

  private void pollControlDir() {
    File dir = runDir.resolve("control").toFile();
    while (!stopped.get()) {
      File[] reqs = dir.listFiles((d, name) -> name.endsWith(".req"));
      if (reqs != null) {
        Arrays.sort(reqs);
        for (File req : reqs) {
          String base = req.getName().substring(0, req.getName().length() - 4);
          String answer;
          try {
            String cmd = new String(Files.readAllBytes(req.toPath()), StandardCharsets.UTF_8);
            Files.delete(req.toPath());
            answer = command(cmd.trim());
          } catch (IOException e) {
            answer = "ERR " + e;
          }
          log("control %s: %s", base, answer);
          try {
            Path tmp = dir.toPath().resolve(base + ".resp.tmp");
            Files.write(tmp, (answer + "\n").getBytes(StandardCharsets.UTF_8));
            Files.move(tmp, dir.toPath().resolve(base + ".resp"),
                StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
          } catch (IOException e) {
            System.err.println("harness: control answer: " + e);
          }
        }
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Runs one control command and returns "OK ..." or "ERR ...". */
  private synchronized String command(String line) {
    String[] f = line.split("\\s+");
    long t0 = System.nanoTime();
    try {
      switch (f[0]) {
        case "ping":
          return "OK pong";
        case "stop":
          stopLatch.countDown();
          return "OK stopping";
        case "restart-namenode": {
          long down = f.length > 1 ? Long.parseLong(f[1]) : 0;
          dfs.shutdownNameNode(0);
          if (down > 0) {
            Thread.sleep(down);
          }
          dfs.restartNameNode(0, true);
          return "OK restart-namenode " + ms(t0) + "ms port " + dfs.getNameNodePort();
        }
        case "restart-resourcemanager":
          restartResourceManager();
          return "OK restart-resourcemanager " + ms(t0) + "ms";
        case "stop-nodemanager": {
          // Graceful NM stop: it unregisters and the RM marks the node SHUTDOWN. There is no
          // start-nodemanager (MiniYARNCluster cannot restart one in place).
          int idx = Integer.parseInt(f[1]);
          yarn.getNodeManager(idx).stop();
          return "OK stop-nodemanager " + idx + " " + ms(t0) + "ms";
        }
        case "stop-namenode":
          dfs.shutdownNameNode(0);
          return "OK stop-namenode";
        case "start-namenode":
          dfs.restartNameNode(0, true);
          return "OK start-namenode " + ms(t0) + "ms";
        case "restart-datanode": {
          int idx = Integer.parseInt(f[1]);
          long down = f.length > 2 ? Long.parseLong(f[2]) : 0;
          MiniDFSCluster.DataNodeProperties p = dfs.stopDataNode(idx);
          if (down > 0) {
            Thread.sleep(down);
          }
          dfs.restartDataNode(p, true);
          dfs.waitActive();
          return "OK restart-datanode " + idx + " " + ms(t0) + "ms";
        }
        default:
          return "ERR unknown command: " + f[0];
      }
    } catch (Exception e) {
      return "ERR " + f[0] + ": " + e;
    }
  }

  private void shutdown() {
    if (!stopped.compareAndSet(false, true)) {
      return;
    }
    long t0 = System.nanoTime();
    log("stopping");
    // Each part gets a bounded time: a NodeManager waits for finished applications on stop,
    // which can take many seconds; the run dir is disposable, so stop.sh may kill the rest.
    if (yarn != null) {
      boundedStop("yarn", () -> yarn.stop(), 8_000);
    }
    if (dfs != null) {
      boundedStop("dfs", () -> dfs.shutdown(), 10_000);
    }
    log("stopped after %d ms", ms(t0));
  }

  private static void boundedStop(String what, Runnable stop, long timeoutMs) {
    Thread t = new Thread(() -> {
      try {
        stop.run();
      } catch (Throwable e) {
        System.err.println("harness: " + what + " stop: " + e);
      }
    }, "harness-stop-" + what);
    t.setDaemon(true);
    t.start();
    try {
      t.join(timeoutMs);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (t.isAlive()) {
      log("%s did not stop within %d ms, leaving it to process exit", what, timeoutMs);
    }
  }
}
