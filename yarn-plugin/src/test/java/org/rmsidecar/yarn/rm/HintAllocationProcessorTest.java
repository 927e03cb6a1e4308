package org.rmsidecar.yarn.rm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateRequest;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.ams.ApplicationMasterServiceProcessor;
import org.junit.Before;
import org.junit.Test;
import org.mockito.Mockito;
import org.rmsidecar.yarn.HintFeed;
import org.rmsidecar.yarn.SidecarHttp;

public class HintAllocationProcessorTest {
  private static final String APP = "application_1_0001";
  private final ApplicationAttemptId attempt =
      ApplicationAttemptId.newInstance(ApplicationId.newInstance(1, 1), 1);
  private HintFeed feed;
  private HintAllocationProcessor proc;
  private final List<AllocateRequest> forwarded = new ArrayList<>();

  @Before
  public void setUp() throws Exception {
    feed = new HintFeed("test", new SidecarHttp("http://127.0.0.1:1", 100), null, Arrays.asList("place"), 1000,
        60000, h -> { });
    proc = new HintAllocationProcessor();
    ApplicationMasterServiceProcessor next = Mockito.mock(ApplicationMasterServiceProcessor.class);
    Mockito.doAnswer(inv -> {
      forwarded.add(inv.getArgument(1));
      return null;
    }).when(next).allocate(Mockito.any(), Mockito.any(), Mockito.any());
    YarnConfiguration conf = new YarnConfiguration();
    conf.setBoolean(YarnConfiguration.RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME, true);
    java.lang.reflect.Field f = HintAllocationProcessor.class.getDeclaredField("next");
    f.setAccessible(true);
    f.set(proc, next);
    proc.init(conf, feed);
  }

  private void hints(String... hs) throws Exception {
    StringBuilder b = new StringBuilder("{\"cursor\":" + hs.length + ",\"reset\":true,\"hints\":[");
    for (int i = 0; i < hs.length; i++) {
      b.append(i > 0 ? "," : "").append("{\"seq\":").append(i + 1).append(",\"hint\":").append(hs[i]).append('}');
    }
    feed.apply(b.append("]}").toString());
  }

  private static ResourceRequest ask(int prio, String name, int n) {
    return ResourceRequest.newInstance(Priority.newInstance(prio), name, Resource.newInstance(384, 1), n);
  }

  private Map<String, ResourceRequest> allocate(ResourceRequest... asks) throws Exception {
    AllocateRequest req = AllocateRequest.newInstance(0, 0f, new ArrayList<>(Arrays.asList(asks)),
        new ArrayList<>(), null);
    proc.allocate(attempt, req, Mockito.mock(AllocateResponse.class, Mockito.RETURNS_DEEP_STUBS));
    Map<String, ResourceRequest> out = new HashMap<>();
    for (ResourceRequest r : forwarded.get(forwarded.size() - 1).getAskList()) {
      out.put(r.getPriority().getPriority() + " " + r.getResourceName(), r);
    }
    return out;
  }

  @Test
  public void noHintsPassesTheAsksThrough() throws Exception {
    Map<String, ResourceRequest> out = allocate(ask(20, "*", 3), ask(10, "*", 1));
    assertEquals(2, out.size());
    assertEquals(3, out.get("20 *").getNumContainers());
    assertTrue(out.get("20 *").getRelaxLocality());
  }

  @Test
  public void strictPlacePinsMapsToTheHintedNode() throws Exception {
    hints("{\"v\":1,\"id\":\"p1\",\"kind\":\"place\",\"app\":\"" + APP + "\",\"task\":\"t0\",\"strict\":true,"
        + "\"nodes\":[{\"node\":\"nm2:8041\",\"score\":1}]}",
        "{\"v\":1,\"id\":\"p2\",\"kind\":\"place\",\"app\":\"" + APP + "\",\"task\":\"t1\",\"strict\":true,"
        + "\"nodes\":[{\"node\":\"nm2:8041\",\"score\":1}]}");
    Map<String, ResourceRequest> out = allocate(ask(20, "*", 3), ask(20, "dn1:50010", 3), ask(10, "*", 1));
    assertEquals(2, out.get("20 nm2:8041").getNumContainers());
    assertNotNull("rack ask added", out.get("20 /default-rack"));
    assertFalse("off-switch closed while strict", out.get("20 *").getRelaxLocality());
    assertFalse(out.get("20 /default-rack").getRelaxLocality());
    assertEquals("other hosts of the priority emptied", 0, out.get("20 dn1:50010").getNumContainers());
    assertTrue("reduces untouched", out.get("10 *").getRelaxLocality());
  }

  @Test
  public void ratioHoldsReduceAsksAndLiftingTheCapReleasesThem() throws Exception {
    hints("{\"v\":1,\"id\":\"r1\",\"kind\":\"ratio\",\"app\":\"" + APP + "\",\"max_reduces\":0}");
    Map<String, ResourceRequest> out = allocate(ask(20, "*", 2), ask(10, "*", 1));
    assertEquals(0, out.get("10 *").getNumContainers());
    assertEquals("maps uncapped", 2, out.get("20 *").getNumContainers());
    hints("{\"v\":1,\"id\":\"r2\",\"kind\":\"ratio\",\"app\":\"" + APP + "\"}");
    out = allocate();
    assertEquals("cap lifted: the AM's own ask is re-sent", 1, out.get("10 *").getNumContainers());
  }

  @Test
  public void nodeClassBlacklistsSlowNodesWhileOnlyThatTypeIsAsked() throws Exception {
    hints("{\"v\":1,\"id\":\"n1\",\"kind\":\"node-class\",\"node\":\"nm1:8041\",\"map_slow\":true}");
    allocate(ask(20, "*", 2), ask(20, "nm1:8041", 1));
    AllocateRequest req = forwarded.get(forwarded.size() - 1);
    assertNotNull(req.getResourceBlacklistRequest());
    assertEquals(Arrays.asList("nm1:8041"), req.getResourceBlacklistRequest().getBlacklistAdditions());
    // The maps are placed; only reduces asked now: the node comes off the blacklist.
    allocate(ask(20, "*", 0), ask(20, "nm1:8041", 0), ask(10, "*", 1));
    req = forwarded.get(forwarded.size() - 1);
    assertEquals(Arrays.asList("nm1:8041"), req.getResourceBlacklistRequest().getBlacklistRemovals());
  }

  @Test
  public void bindingsOfEveryReducePinStrictlyPartialOnesOnlyPrefer() throws Exception {
    String b = "{\"v\":1,\"kind\":\"reduce-binding\",\"app\":\"" + APP + "\",\"node\":\"nm2:8041\",\"reducers\":2,";
    hints(b + "\"id\":\"b0\",\"partition\":0}", b + "\"id\":\"b1\",\"partition\":1}");
    Map<String, ResourceRequest> out = allocate(ask(10, "*", 2));
    assertEquals(2, out.get("10 nm2:8041").getNumContainers());
    assertFalse("every reduce bound: no other node may take one", out.get("10 *").getRelaxLocality());
    hints(b + "\"id\":\"b2\",\"partition\":0}");
    out = allocate(ask(10, "*", 2));
    assertEquals(1, out.get("10 nm2:8041").getNumContainers());
    assertTrue("one of two bound: the other reduce may run anywhere", out.get("10 *").getRelaxLocality());
  }

  @Test
  public void aFailingRewritePassesTheRequestThrough() throws Exception {
    hints("{\"v\":1,\"id\":\"p1\",\"kind\":\"place\",\"app\":\"" + APP + "\",\"task\":\"t0\","
        + "\"nodes\":[{\"node\":\"nm2:8041\",\"score\":1}]}");
    AllocateRequest req = Mockito.mock(AllocateRequest.class);
    Mockito.when(req.getAskList()).thenThrow(new IllegalStateException("boom"));
    proc.allocate(attempt, req, Mockito.mock(AllocateResponse.class, Mockito.RETURNS_DEEP_STUBS));
    assertEquals(1, forwarded.size());
    assertEquals(1, proc.failures.get());
    assertNull(null);
  }
}
