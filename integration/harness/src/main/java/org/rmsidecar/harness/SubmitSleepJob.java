package org.rmsidecar.harness;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.mapreduce.InputFormat;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.lib.output.NullOutputFormat;

/**
 * Submits a job whose tasks only sleep, with stragglers on demand, to the harness cluster: the
 * plug-in tests need task times they control, which wordcount on a tiny input does not give.
 *
 * <pre>
 * SubmitSleepJob --conf CONFDIR [--maps N] [--reduces R] [--map-ms MS] [--reduce-ms MS]
 *                [--slow-task I --slow-ms MS] [--slow-node-port PORT] [--split-hosts h1,h2]
 *                [--name NAME] [--no-wait] [-D key=value ...]
 * </pre>
 *
 * A map sleeps map-ms in 100 steps (its progress rises evenly, as a record reader's would).
 * The first attempt of map I (--slow-task) sleeps slow-ms instead: a straggler whose backup is
 * fast. With --slow-node-port every map on the NodeManager with that port (the container's
 * NM_PORT) sleeps slow-ms: a slow node. Prints "JOBID", "APPID" at submission and "STATE" at
 * the end like SubmitWordCount.
 */
public final class SubmitSleepJob {
  static final String MAP_MS = "rmsidecar.test.sleep.map-ms";
  static final String REDUCE_MS = "rmsidecar.test.sleep.reduce-ms";
  static final String SLOW_TASK = "rmsidecar.test.sleep.slow-task";
  static final String SLOW_MS = "rmsidecar.test.sleep.slow-ms";
  static final String SLOW_NODE_PORT = "rmsidecar.test.sleep.slow-node-port";
  static final String MAPS = "rmsidecar.test.sleep.maps";
  static final String SPLIT_HOSTS = "rmsidecar.test.sleep.split-hosts";
  private static final int STEPS = 100;

  private SubmitSleepJob() {}

  public static void main(String[] args) throws Exception {
    String confDir = null;
    boolean wait = true;
    String name = "rmsidecar-sleep";
    List<String[]> props = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--conf":
          confDir = args[++i];
          break;
        case "--maps":
          props.add(new String[] {MAPS, args[++i]});
          break;
        case "--reduces":
          props.add(new String[] {"mapreduce.job.reduces", args[++i]});
          break;
        case "--map-ms":
          props.add(new String[] {MAP_MS, args[++i]});
          break;
        case "--reduce-ms":
          props.add(new String[] {REDUCE_MS, args[++i]});
          break;
        case "--slow-task":
          props.add(new String[] {SLOW_TASK, args[++i]});
          break;
        case "--slow-ms":
          props.add(new String[] {SLOW_MS, args[++i]});
          break;
        case "--slow-node-port":
          props.add(new String[] {SLOW_NODE_PORT, args[++i]});
          break;
        case "--split-hosts":
          props.add(new String[] {SPLIT_HOSTS, args[++i]});
          break;
        case "--name":
          name = args[++i];
          break;
        case "--no-wait":
          wait = false;
          break;
        case "-D": {
          String kv = args[++i];
          int eq = kv.indexOf('=');
          if (eq < 0) {
            usage("-D " + kv + ": want key=value");
          }
          props.add(new String[] {kv.substring(0, eq), kv.substring(eq + 1)});
          break;
        }
        default:
          usage("unknown argument " + a);
      }
    }
    if (confDir == null) {
      usage("--conf is required");
    }
    Configuration conf = new Configuration();
    for (String f : new String[] {"core-site.xml", "hdfs-site.xml", "yarn-site.xml",
        "mapred-site.xml"}) {
      conf.addResource(new Path(Paths.get(confDir, f).toUri()));
    }
    conf.setInt("mapreduce.job.reduces", 1);
    for (String[] kv : props) {
      conf.set(kv[0], kv[1]);
    }
    Job job = Job.getInstance(conf, name);
    job.setJarByClass(SubmitSleepJob.class);
    job.setInputFormatClass(SleepInputFormat.class);
    job.setMapperClass(SleepMapper.class);
    job.setReducerClass(SleepReducer.class);
    job.setMapOutputKeyClass(IntWritable.class);
    job.setMapOutputValueClass(NullWritable.class);
    job.setOutputFormatClass(NullOutputFormat.class);
    JobSubmission.submitAndExit(job, wait, false);
  }

  private static void usage(String why) {
    System.err.println("SubmitSleepJob: " + why);
    System.err.println("usage: SubmitSleepJob --conf CONFDIR [--maps N] [--reduces R] [--map-ms MS]"
        + " [--reduce-ms MS] [--slow-task I --slow-ms MS] [--slow-node-port PORT]"
        + " [--split-hosts h1,h2] [--name NAME] [--no-wait] [-D k=v]");
    System.exit(2);
  }

  /** One split per map, no data; its hosts are --split-hosts. */
  public static final class SleepSplit extends InputSplit implements Writable {
    private int index;
    private String[] hosts = new String[0];

    public SleepSplit() {}

    SleepSplit(int index, String[] hosts) {
      this.index = index;
      this.hosts = hosts;
    }

    @Override
    public long getLength() {
      return 0;
    }

    @Override
    public String[] getLocations() {
      return hosts;
    }

    @Override
    public void write(DataOutput out) throws IOException {
      out.writeInt(index);
      out.writeInt(hosts.length);
      for (String h : hosts) {
        out.writeUTF(h);
      }
    }

    @Override
    public void readFields(DataInput in) throws IOException {
      index = in.readInt();
      hosts = new String[in.readInt()];
      for (int i = 0; i < hosts.length; i++) {
        hosts[i] = in.readUTF();
      }
    }
  }

  /** N splits; each map reads STEPS records and sleeps between them. */
  public static final class SleepInputFormat extends InputFormat<IntWritable, NullWritable> {
    @Override
    public List<InputSplit> getSplits(JobContext ctx) {
      Configuration c = ctx.getConfiguration();
      int n = c.getInt(MAPS, 4);
      String[] hosts = c.getTrimmedStrings(SPLIT_HOSTS);
      List<InputSplit> out = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        out.add(new SleepSplit(i, hosts));
      }
      return out;
    }

    @Override
    public RecordReader<IntWritable, NullWritable> createRecordReader(InputSplit split,
        TaskAttemptContext ctx) {
      return new RecordReader<IntWritable, NullWritable>() {
        private int i;
        private final IntWritable key = new IntWritable();

        @Override
        public void initialize(InputSplit s, TaskAttemptContext c) {}

        @Override
        public boolean nextKeyValue() {
          key.set(i);
          return i++ < STEPS;
        }

        @Override
        public IntWritable getCurrentKey() {
          return key;
        }

        @Override
        public NullWritable getCurrentValue() {
          return NullWritable.get();
        }

        @Override
        public float getProgress() {
          return Math.min(1f, i / (float) STEPS);
        }

        @Override
        public void close() {}
      };
    }
  }

  /** Sleeps its share per record; stragglers sleep longer. */
  public static final class SleepMapper
      extends Mapper<IntWritable, NullWritable, IntWritable, NullWritable> {
    private long stepMs;

    @Override
    protected void setup(Context ctx) {
      Configuration c = ctx.getConfiguration();
      long ms = c.getLong(MAP_MS, 2000);
      int task = ctx.getTaskAttemptID().getTaskID().getId();
      int attempt = ctx.getTaskAttemptID().getId();
      String slowPort = c.get(SLOW_NODE_PORT, "");
      boolean slowNode = !slowPort.isEmpty() && slowPort.equals(System.getenv("NM_PORT"));
      boolean straggler = c.getInt(SLOW_TASK, -1) == task && attempt == 0;
      if (slowNode || straggler) {
        ms = c.getLong(SLOW_MS, 30000);
      }
      stepMs = ms / STEPS;
    }

    @Override
    protected void map(IntWritable k, NullWritable v, Context ctx)
        throws IOException, InterruptedException {
      Thread.sleep(stepMs);
      if (k.get() == 0) {
        ctx.write(k, v);
      }
    }
  }

  /** Sleeps reduce-ms. */
  public static final class SleepReducer
      extends Reducer<IntWritable, NullWritable, NullWritable, NullWritable> {
    @Override
    protected void setup(Context ctx) throws InterruptedException {
      Thread.sleep(ctx.getConfiguration().getLong(REDUCE_MS, 500));
    }
  }
}
