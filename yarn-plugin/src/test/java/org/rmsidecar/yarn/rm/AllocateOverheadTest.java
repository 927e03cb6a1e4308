package org.rmsidecar.yarn.rm;

import static org.junit.Assert.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.yarn.ams.ApplicationMasterServiceProcessor;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateRequest;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.Test;
import org.mockito.Mockito;
import org.rmsidecar.yarn.HintFeed;
import org.rmsidecar.yarn.SidecarHttp;

/**
 * What the processor adds to allocate(): 1,000 apps with 10 hints each (10,000 hints), 50 asks
 * per request, 20,000 calls. Prints p50/p99/max; asserts only that every call was forwarded
 * (a figure, not a timed test).
 */
public class AllocateOverheadTest {
  @Test
  public void printAllocateOverhead() throws Exception {
    HintFeed feed = new HintFeed("bench", new SidecarHttp("http://127.0.0.1:1", 100), null,
        Arrays.asList("place"), 1000, 3_600_000, h -> { });
    StringBuilder b = new StringBuilder("{\"cursor\":10000,\"reset\":true,\"hints\":[");
    int seq = 0;
    for (int a = 1; a <= 1000; a++) {
      for (int i = 0; i < 10; i++) {
        String app = "application_1_" + String.format("%04d", a);
        String hint = i < 8
            ? "{\"v\":1,\"id\":\"p" + seq + "\",\"kind\":\"place\",\"app\":\"" + app + "\",\"task\":\"t" + i
                + "\",\"nodes\":[{\"node\":\"nm" + (i % 50) + ":8041\",\"score\":1}]}"
            : i == 8 ? "{\"v\":1,\"id\":\"r" + seq + "\",\"kind\":\"ratio\",\"app\":\"" + app + "\",\"max_reduces\":2}"
            : "{\"v\":1,\"id\":\"n" + seq + "\",\"kind\":\"node-class\",\"node\":\"nm" + (a % 50)
                + ":8041\",\"map_slow\":true}";
        b.append(seq > 0 ? "," : "").append("{\"seq\":").append(++seq).append(",\"target\":\"t").append(seq)
            .append("\",\"hint\":").append(hint).append('}');
      }
    }
    feed.apply(b.append("]}").toString());
    HintAllocationProcessor proc = new HintAllocationProcessor();
    ApplicationMasterServiceProcessor next = Mockito.mock(ApplicationMasterServiceProcessor.class);
    java.lang.reflect.Field f = HintAllocationProcessor.class.getDeclaredField("next");
    f.setAccessible(true);
    f.set(proc, next);
    YarnConfiguration conf = new YarnConfiguration();
    conf.setBoolean(YarnConfiguration.RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME, true);
    proc.init(conf, feed);
    AllocateResponse resp = Mockito.mock(AllocateResponse.class);
    Mockito.when(resp.getAllocatedContainers()).thenReturn(new ArrayList<>());
    Mockito.when(resp.getCompletedContainersStatuses()).thenReturn(new ArrayList<>());
    int calls = 20_000;
    long[] ns = new long[calls];
    for (int c = 0; c < calls; c++) {
      int a = 1 + c % 1000;
      ApplicationAttemptId id = ApplicationAttemptId.newInstance(ApplicationId.newInstance(1, a), 1);
      List<ResourceRequest> asks = new ArrayList<>();
      asks.add(ResourceRequest.newInstance(Priority.newInstance(20), "*", Resource.newInstance(1024, 1), 40));
      asks.add(ResourceRequest.newInstance(Priority.newInstance(10), "*", Resource.newInstance(1024, 1), 8));
      for (int h = 0; h < 48; h++) {
        asks.add(ResourceRequest.newInstance(Priority.newInstance(20), "nm" + h + ":8041",
            Resource.newInstance(1024, 1), 1 + h % 3));
      }
      AllocateRequest req = AllocateRequest.newInstance(c, 0f, asks, new ArrayList<>(), null);
      long t0 = System.nanoTime();
      proc.allocate(id, req, resp);
      ns[c] = System.nanoTime() - t0;
    }
    Mockito.verify(next, Mockito.times(calls)).allocate(Mockito.any(), Mockito.any(), Mockito.any());
    assertEquals(0, proc.failures.get());
    // The first pass warms the JIT; report the second half.
    long[] tail = Arrays.copyOfRange(ns, calls / 2, calls);
    Arrays.sort(tail);
    System.out.printf("allocate() with the processor (the next processor a mock): p50 %.1f us, p99 %.1f us,"
        + " max %.1f us over %d calls (1,000 apps, 10,000 hints, 50 asks a request)%n",
        tail[tail.length / 2] / 1e3, tail[tail.length * 99 / 100] / 1e3, tail[tail.length - 1] / 1e3,
        tail.length);
  }
}
