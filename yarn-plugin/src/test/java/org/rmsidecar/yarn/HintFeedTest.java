package org.rmsidecar.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.Test;

public class HintFeedTest {
  private final List<Hint> seen = new ArrayList<>();

  private HintFeed feed() {
    return new HintFeed("test", new SidecarHttp("http://127.0.0.1:1", 100), "application_1_0001",
        Arrays.asList("speculate", "deny-speculation"), 1000, 60000, seen::add);
  }

  private static String entry(long seq, String target, String hint) {
    return "{\"seq\":" + seq + ",\"target\":\"" + target + "\",\"hint\":" + hint + "}";
  }

  @Test
  public void snapshotThenChangesNewestPerTarget() throws IOException {
    HintFeed f = feed();
    f.apply("{\"cursor\":2,\"reset\":true,\"now_ts\":1000,\"hints\":["
        + entry(1, "t1", "{\"v\":1,\"id\":\"a\",\"kind\":\"speculate\",\"app\":\"application_1_0001\","
            + "\"task\":\"task_1_0001_m_000000\",\"node\":\"n1:1\"}") + ","
        + entry(2, "t2", "{\"v\":1,\"id\":\"b\",\"kind\":\"deny-speculation\",\"app\":\"application_1_0001\","
            + "\"task\":\"task_1_0001_m_000001\",\"expires_ts\":500}") + "]}");
    assertEquals(2, seen.size());
    assertEquals("only a is in force at now_ts 1000", 1, f.inForce().size());
    f.apply("{\"cursor\":3,\"reset\":false,\"now_ts\":1001,\"hints\":["
        + entry(3, "t1", "{\"v\":1,\"id\":\"c\",\"kind\":\"speculate\",\"app\":\"application_1_0001\","
            + "\"task\":\"task_1_0001_m_000000\",\"node\":\"n2:1\"}") + "]}");
    assertEquals(3, seen.size());
    assertEquals(1, f.inForce().size());
    assertEquals("the newer hint for t1 replaced the older", "c", f.inForce().get(0).id);
    assertFalse(f.stale());
  }

  @Test
  public void badBodyKeepsStateAndInvalidHintIsSkipped() throws IOException {
    HintFeed f = feed();
    f.apply("{\"cursor\":1,\"reset\":true,\"hints\":["
        + entry(1, "t1", "{\"v\":1,\"id\":\"a\",\"kind\":\"speculate\",\"app\":\"application_1_0001\","
            + "\"task\":\"task_1_0001_m_000000\"}") + ","
        + entry(2, "t2", "{\"v\":1,\"id\":\"bad\",\"kind\":\"speculate\",\"app\":\"application_1_0001\"}") + ","
        + "{\"seq\":3,\"hint\":{\"kind\":7}}]}");
    assertEquals(1, f.inForce().size());
    assertEquals(2, f.badHints.get());
    for (String bad : new String[] {"not json", "{\"cursor\":\"x\",\"hints\":[]}", "[]",
        "{\"cursor\": 4, \"hints\": [{\"kind\": 7}"}) {
      try {
        f.apply(bad);
        fail("accepted " + bad);
      } catch (IOException e) {
        // expected: state kept
      }
    }
    assertEquals("state kept after bad answers", "a", f.inForce().get(0).id);
  }

  @Test
  public void unreachableSidecarIsStaleAndCounted() throws InterruptedException {
    HintFeed f = new HintFeed("test", new SidecarHttp("http://127.0.0.1:1", 200), null,
        Arrays.asList("place"), 100, 300, h -> { });
    assertTrue("stale before any answer", f.stale());
    f.start();
    Thread.sleep(700);
    f.stop();
    assertTrue(f.failures.get() >= 1);
    assertTrue(f.stale());
  }

  /** A feed started for an owner stops by itself once the owner is garbage collected. */
  @Test
  public void stopsWhenItsOwnerIsCollected() throws Exception {
    HintFeed f = new HintFeed("owned", new SidecarHttp("http://127.0.0.1:1", 100), null,
        Arrays.asList("place"), 100, 60000, h -> { });
    Object owner = new Object();
    f.startFor(owner);
    assertTrue(f.alive());
    owner = null;
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (f.alive() && System.nanoTime() < deadline) {
      System.gc();
      Thread.sleep(100);
    }
    assertFalse("the feed still polls after its owner was collected", f.alive());
  }

  /** Without an owner (or while it lives) the feed keeps polling until stopped. */
  @Test
  public void keepsRunningWhileItsOwnerLives() throws Exception {
    HintFeed f = new HintFeed("owned", new SidecarHttp("http://127.0.0.1:1", 100), null,
        Arrays.asList("place"), 100, 60000, h -> { });
    Object owner = new Object();
    f.startFor(owner);
    for (int i = 0; i < 10; i++) {
      System.gc();
      Thread.sleep(100);
    }
    assertTrue(f.alive());
    f.stop();
    assertFalse(f.alive());
    assertNotNull(owner); // a use after the checks keeps owner reachable through them
  }
}
