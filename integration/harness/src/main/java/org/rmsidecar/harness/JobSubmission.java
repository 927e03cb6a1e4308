package org.rmsidecar.harness;

import org.apache.hadoop.mapreduce.Job;

/**
 * Submits a configured job and reports it on stdout in the lines the Go suite
 * reads (JOBID, APPID, and STATE when it waits), then exits the JVM with the
 * job's outcome.
 */
final class JobSubmission {
  private JobSubmission() {}

  /**
   * Submits job and prints its ids. Without wait it exits 0 at once, leaving
   * the job to the cluster; with wait it exits 0 when the job succeeded, else
   * 1. verbose prints the job's progress while waiting.
   */
  static void submitAndExit(Job job, boolean wait, boolean verbose) throws Exception {
    job.submit();
    String jobId = job.getJobID().toString();
    System.out.println("JOBID " + jobId);
    System.out.println("APPID " + jobId.replaceFirst("^job_", "application_"));
    System.out.flush();
    if (!wait) {
      System.exit(0);
    }
    boolean ok = job.waitForCompletion(verbose);
    System.out.println("STATE " + job.getJobState());
    System.out.flush();
    System.exit(ok ? 0 : 1);
  }
}
