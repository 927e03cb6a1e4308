package org.rmsidecar.yarn;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;

/** The few HTTP calls the plug-ins make, with bounded timeouts; nothing beyond the JDK. */
public final class SidecarHttp {
  private final String base;
  private final int timeoutMs;
  /** "Bearer <token>", or null when the sidecar needs none. */
  private final String authorization;

  public SidecarHttp(String baseUrl, long timeoutMs) {
    this(baseUrl, timeoutMs, null);
  }

  /** token: the sidecar's http.token, sent as a bearer token on every call; null or empty: none. */
  public SidecarHttp(String baseUrl, long timeoutMs, String token) {
    this.base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.timeoutMs = (int) Math.min(Integer.MAX_VALUE, timeoutMs);
    this.authorization = token == null || token.isEmpty() ? null : "Bearer " + token;
  }

  public String base() {
    return base;
  }

  /** GET path; extraWaitMs is added to the read timeout (long polls). */
  public String get(String pathAndQuery, long extraWaitMs) throws IOException {
    HttpURLConnection c = open(pathAndQuery, extraWaitMs);
    c.setRequestMethod("GET");
    return read(c, pathAndQuery);
  }

  /** POST body with a content type. */
  public String post(String path, String contentType, byte[] body) throws IOException {
    HttpURLConnection c = open(path, 0);
    c.setRequestMethod("POST");
    c.setDoOutput(true);
    c.setRequestProperty("Content-Type", contentType);
    c.setFixedLengthStreamingMode(body.length);
    try (OutputStream o = c.getOutputStream()) {
      o.write(body);
    }
    return read(c, path);
  }

  private HttpURLConnection open(String path, long extraWaitMs) throws IOException {
    HttpURLConnection c = (HttpURLConnection) new URL(base + path).openConnection();
    c.setConnectTimeout(timeoutMs);
    c.setReadTimeout((int) Math.min(Integer.MAX_VALUE, timeoutMs + extraWaitMs));
    c.setUseCaches(false);
    if (authorization != null) {
      c.setRequestProperty("Authorization", authorization);
    }
    return c;
  }

  private static String read(HttpURLConnection c, String path) throws IOException {
    try {
      int code = c.getResponseCode();
      InputStream in = code >= 400 ? c.getErrorStream() : c.getInputStream();
      String body = in == null ? "" : slurp(in);
      if (code != 200) {
        throw new IOException(path + ": HTTP " + code + ": " + abbreviate(body));
      }
      return body;
    } finally {
      c.disconnect();
    }
  }

  private static String slurp(InputStream in) throws IOException {
    try (InputStream i = in) {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      byte[] buf = new byte[8192];
      for (int n; (n = i.read(buf)) > 0; ) {
        b.write(buf, 0, n);
      }
      return new String(b.toByteArray(), StandardCharsets.UTF_8);
    }
  }

  static String abbreviate(String s) {
    s = s.trim();
    return s.length() > 200 ? s.substring(0, 200) + "..." : s;
  }
}
