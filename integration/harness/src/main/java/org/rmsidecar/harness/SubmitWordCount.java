package org.rmsidecar.harness;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.examples.WordCount;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;

/**
 * Submits the stock hadoop-mapreduce-examples wordcount (its TokenizerMapper and IntSumReducer,
 * shipped in the examples jar) to the running harness cluster.
 *
 * <pre>
 * SubmitWordCount --conf CONFDIR [--generate-files N --generate-lines L] [--reduces R]
 *                 [--no-wait] [-D key=value ...] INPUT OUTPUT
 * </pre>
 *
 * Prints "APPID application_..." and "JOBID job_..." as soon as the job is submitted, then
 * (unless --no-wait) "STATE SUCCEEDED|FAILED|KILLED" when it ends; exits 0 only on SUCCEEDED.
 */
public final class SubmitWordCount {
  private SubmitWordCount() {}

  public static void main(String[] args) throws Exception {
    String confDir = null;
    int genFiles = 0;
    int genLines = 20000;
    int reduces = 1;
    boolean wait = true;
    List<String> pos = new ArrayList<>();
    List<String[]> props = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--conf":
          confDir = args[++i];
          break;
        case "--generate-files":
          genFiles = Integer.parseInt(args[++i]);
          break;
        case "--generate-lines":
          genLines = Integer.parseInt(args[++i]);
          break;
        case "--reduces":
          reduces = Integer.parseInt(args[++i]);
          break;
        case "--no-wait":
          wait = false;
          break;
        case "-D": {
          String kv = args[++i];
          int eq = kv.indexOf('=');
          props.add(new String[] {kv.substring(0, eq), kv.substring(eq + 1)});
          break;
        }
        default:
          pos.add(args[i]);
      }
    }
    if (confDir == null || pos.size() != 2) {
      System.err.println("usage: SubmitWordCount --conf CONFDIR [--generate-files N]"
          + " [--generate-lines L] [--reduces R] [--no-wait] [-D k=v] INPUT OUTPUT");
      System.exit(2);
    }
    Configuration conf = new Configuration();
    for (String f : new String[] {"core-site.xml", "hdfs-site.xml", "yarn-site.xml",
        "mapred-site.xml"}) {
      conf.addResource(new Path(Paths.get(confDir, f).toUri()));
    }
    for (String[] kv : props) {
      conf.set(kv[0], kv[1]);
    }
    Path in = new Path(pos.get(0));
    Path out = new Path(pos.get(1));
    if (genFiles > 0) {
      generate(conf, in, genFiles, genLines);
    }

    Job job = Job.getInstance(conf, "rmsidecar-wordcount");
    job.setJarByClass(WordCount.class);
    job.setMapperClass(WordCount.TokenizerMapper.class);
    job.setCombinerClass(WordCount.IntSumReducer.class);
    job.setReducerClass(WordCount.IntSumReducer.class);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(IntWritable.class);
    job.setNumReduceTasks(reduces);
    FileInputFormat.addInputPath(job, in);
    FileOutputFormat.setOutputPath(job, out);
    JobSubmission.submitAndExit(job, wait, true);
  }

  /** Writes N text files of L lines of pseudo-random words (seeded) under dir. */
  private static void generate(Configuration conf, Path dir, int files, int lines)
      throws IOException {
    String[] words = {
      "yarn", "hdfs", "kafka", "sidecar", "map", "reduce", "shuffle", "block", "rack", "node",
      "straggler", "speculate", "locality", "container", "queue", "label", "priority", "hint"
    };
    FileSystem fs = dir.getFileSystem(conf);
    Random rnd = new Random(42);
    for (int f = 0; f < files; f++) {
      Path p = new Path(dir, String.format("part-%04d.txt", f));
      try (OutputStream o = fs.create(p, true)) {
        StringBuilder sb = new StringBuilder();
        for (int l = 0; l < lines; l++) {
          sb.setLength(0);
          int n = 4 + rnd.nextInt(8);
          for (int w = 0; w < n; w++) {
            if (w > 0) {
              sb.append(' ');
            }
            sb.append(words[rnd.nextInt(words.length)]);
          }
          sb.append('\n');
          o.write(sb.toString().getBytes(StandardCharsets.UTF_8));
        }
      }
    }
    System.out.println("GENERATED " + files + " files under " + dir);
  }
}
