package org.rmsidecar.harness;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** Minimal JSON writer for the connection file (maps, lists, strings, numbers, booleans). */
final class Json {
  private Json() {}

  static String write(Object value) {
    StringBuilder sb = new StringBuilder();
    write(sb, value, 0);
    sb.append('\n');
    return sb.toString();
  }

  private static void write(StringBuilder sb, Object value, int indent) {
    if (value == null) {
      sb.append("null");
    } else if (value instanceof String) {
      quote(sb, (String) value);
    } else if (value instanceof Number || value instanceof Boolean) {
      sb.append(value);
    } else if (value instanceof Map) {
      Map<?, ?> m = (Map<?, ?>) value;
      if (m.isEmpty()) {
        sb.append("{}");
        return;
      }
      sb.append("{\n");
      Iterator<? extends Map.Entry<?, ?>> it = m.entrySet().iterator();
      while (it.hasNext()) {
        Map.Entry<?, ?> e = it.next();
        pad(sb, indent + 1);
        quote(sb, String.valueOf(e.getKey()));
        sb.append(": ");
        write(sb, e.getValue(), indent + 1);
        sb.append(it.hasNext() ? ",\n" : "\n");
      }
      pad(sb, indent);
      sb.append('}');
    } else if (value instanceof List) {
      List<?> l = (List<?>) value;
      if (l.isEmpty()) {
        sb.append("[]");
        return;
      }
      sb.append("[\n");
      for (int i = 0; i < l.size(); i++) {
        pad(sb, indent + 1);
        write(sb, l.get(i), indent + 1);
        sb.append(i + 1 < l.size() ? ",\n" : "\n");
      }
      pad(sb, indent);
      sb.append(']');
    } else {
      quote(sb, value.toString());
    }
  }

  private static void pad(StringBuilder sb, int indent) {
    for (int i = 0; i < indent; i++) {
      sb.append("  ");
    }
  }

  private static void quote(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          sb.append("\\\"");
          break;
        case '\\':
          sb.append("\\\\");
          break;
        case '\n':
          sb.append("\\n");
          break;
        case '\r':
          sb.append("\\r");
          break;
        case '\t':
          sb.append("\\t");
          break;
        default:
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
      }
    }
    sb.append('"');
  }
}
