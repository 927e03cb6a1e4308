package org.rmsidecar.yarn;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/** The plug-ins send rmsidecar.sidecar.token as a bearer token, and nothing when it is unset. */
public class SidecarHttpTest {
  private HttpServer server;
  private final AtomicReference<String> authorization = new AtomicReference<>();
  private String url;

  @Before
  public void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/v1/hints/changes", ex -> {
      authorization.set(ex.getRequestHeaders().getFirst("Authorization"));
      byte[] b = "{}".getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(200, b.length);
      try (OutputStream o = ex.getResponseBody()) {
        o.write(b);
      }
    });
    server.start();
    url = "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @After
  public void stop() {
    server.stop(0);
  }

  @Test
  public void sendsTheConfiguredToken() throws IOException {
    Configuration conf = new Configuration(false);
    conf.set(RmSidecarConfig.SIDECAR_TOKEN, "tok-1");
    RmSidecarConfig.sidecarHttp(conf, url).get("/v1/hints/changes", 0);
    assertEquals("Bearer tok-1", authorization.get());
  }

  @Test
  public void sendsNoAuthorizationWithoutAToken() throws IOException {
    RmSidecarConfig.sidecarHttp(new Configuration(false), url).get("/v1/hints/changes", 0);
    assertNull(authorization.get());
  }
}
