package dev.conch.spring.boot.autoconfigure;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.util.ClassUtils;
import org.springframework.util.StreamUtils;
import org.springframework.util.StringUtils;

/**
 * The {@code conch.*} names Boot binds, read from the configuration metadata of every jar ({@code
 * META-INF/spring-configuration-metadata.json}, generated from the {@code @ConfigurationProperties}
 * classes, and {@code additional-spring-configuration-metadata.json}, for what is read without
 * them). A map of objects ({@code conch.offices}) is followed into its value type: {@code
 * conch.offices.<name>.stop-timeout} is a name. Names compare as Boot's relaxed binding does (case,
 * dashes, camelCase; list indices; {@code CONCH_STOP_TIMEOUT} for an environment variable).
 */
final class ConchPropertyNames {

  private static final String[] METADATA = {
    "META-INF/spring-configuration-metadata.json",
    "META-INF/additional-spring-configuration-metadata.json"
  };

  private static final JsonFactory JSON = new JsonFactory();

  /** A map key: any one element. */
  private static final String KEY = "*";

  /** Anything below: a map of values, keyed by names that may hold dots. */
  private static final String ANY = "**";

  /** The known names, dashed, map keys as {@link #KEY}, e.g. {@code conch.offices.*.ttl}. */
  private final List<List<String>> patterns;

  private ConchPropertyNames(List<List<String>> patterns) {
    this.patterns = patterns;
  }

  /** The names in the metadata that {@code classLoader} sees. */
  static ConchPropertyNames load(@Nullable ClassLoader classLoader) {
    ClassLoader loader = (classLoader != null) ? classLoader : ClassUtils.getDefaultClassLoader();
    Set<String> names = new LinkedHashSet<>();
    for (String resource : METADATA) {
      try {
        Enumeration<URL> urls =
            (loader != null)
                ? loader.getResources(resource)
                : ClassLoader.getSystemResources(resource);
        while (urls.hasMoreElements()) {
          try (InputStream in = urls.nextElement().openStream()) {
            String text = StreamUtils.copyToString(in, StandardCharsets.UTF_8);
            // Most jars' metadata names no conch.* property: not parsed at all (Boot's own is
            // large, and this runs on every start).
            if (text.contains("\"conch.")) {
              read(text, (name, type) -> names.addAll(expand(name, type, loader)));
            }
          }
        }
      } catch (IOException | RuntimeException e) {
        // Unreadable metadata: fewer known names, never a failed start. The check is advice.
      }
    }
    return new ConchPropertyNames(names.stream().map(name -> List.of(name.split("\\."))).toList());
  }

  /**
   * Hands each {@code conch.*} property of the metadata {@code json} to {@code property}: its name
   * and its type ({@code ""} if it has none). Read with jackson-core's streaming parser, which
   * conch-core brings: not Boot's {@code JsonParserFactory}, whose fallback when no JSON library is
   * on the class path (an application of the starter alone) turns most entries into strings.
   */
  static void read(String json, BiConsumer<String, String> property) throws IOException {
    try (JsonParser parser = JSON.createParser(json)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return;
      }
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        boolean properties = "properties".equals(parser.currentName());
        if (parser.nextToken() != JsonToken.START_ARRAY || !properties) {
          parser.skipChildren();
          continue;
        }
        for (JsonToken entry = parser.nextToken();
            entry != null && entry != JsonToken.END_ARRAY;
            entry = parser.nextToken()) {
          if (entry != JsonToken.START_OBJECT) {
            parser.skipChildren();
            continue;
          }
          String name = null;
          String type = "";
          while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String field = parser.currentName();
            JsonToken value = parser.nextToken();
            if (value == JsonToken.VALUE_STRING && "name".equals(field)) {
              name = parser.getText();
            } else if (value == JsonToken.VALUE_STRING && "type".equals(field)) {
              type = parser.getText();
            } else {
              parser.skipChildren();
            }
          }
          if (name != null && name.startsWith("conch.")) {
            property.accept(name, type);
          }
        }
      }
    }
  }

  /** {@code name}, or for a map the names below it. */
  private static List<String> expand(String name, String type, @Nullable ClassLoader loader) {
    if (!type.startsWith("java.util.Map<")) {
      return List.of(name);
    }
    String value = type.substring(type.indexOf(',') + 1, type.length() - 1).trim();
    if (!value.startsWith("dev.conch.") || value.contains("<")) {
      return List.of(name + "." + ANY);
    }
    List<String> names = new ArrayList<>();
    try {
      // Its setters, as Boot's JavaBeanBinder binds them: read by reflection, not by java.beans'
      // introspection, whose first use made the check take 66-76 ms on the one-office app's
      // main thread instead of 44-49.
      for (Method method : ClassUtils.forName(value, loader).getMethods()) {
        String setter = method.getName();
        if (setter.length() > 3
            && setter.startsWith("set")
            && method.getParameterCount() == 1
            && !Modifier.isStatic(method.getModifiers())) {
          String property = StringUtils.uncapitalizeAsProperty(setter.substring(3));
          names.add(name + "." + KEY + "." + DataObjectPropertyName.toDashedForm(property));
        }
      }
    } catch (ClassNotFoundException | LinkageError e) {
      return List.of(name + "." + ANY);
    }
    return names;
  }

  /** Whether Boot binds {@code name} to a {@code conch.*} property. */
  boolean isKnown(ConfigurationPropertyName name, boolean environmentVariable) {
    for (List<String> pattern : this.patterns) {
      if (matches(pattern, name)
          || (environmentVariable && squashed(name).matches(squashedPattern(pattern)))) {
        return true;
      }
    }
    return false;
  }

  /** The known name closest to {@code name} when it is a near miss ({@code conch.tll}), or null. */
  @Nullable String closest(ConfigurationPropertyName name) {
    List<String> elements = new ArrayList<>();
    for (int i = 0; i < name.getNumberOfElements() && !name.isNumericIndex(i); i++) {
      elements.add(name.getElement(i, Form.UNIFORM));
    }
    String typed = String.join(".", elements);
    String last = elements.get(elements.size() - 1);
    int allowed = Math.min(2, Math.max(1, last.length() / 3));
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (List<String> pattern : this.patterns) {
      List<String> candidate = new ArrayList<>();
      List<String> uniform = new ArrayList<>();
      for (int i = 0; i < pattern.size(); i++) {
        String element = pattern.get(i);
        if (element.equals(ANY)) {
          candidate = null;
          break;
        }
        if (element.equals(KEY)) {
          if (i >= elements.size()) {
            candidate = null;
            break;
          }
          candidate.add(name.getElement(i, Form.ORIGINAL));
          uniform.add(elements.get(i));
        } else {
          candidate.add(element);
          uniform.add(uniform(element));
        }
      }
      if (candidate == null) {
        continue;
      }
      int distance = distance(typed, String.join(".", uniform));
      if (distance < bestDistance) {
        bestDistance = distance;
        best = String.join(".", candidate);
      }
    }
    return (bestDistance > 0 && bestDistance <= allowed) ? best : null;
  }

  private static boolean matches(List<String> pattern, ConfigurationPropertyName name) {
    int n = name.getNumberOfElements();
    for (int i = 0; i < pattern.size(); i++) {
      String element = pattern.get(i);
      if (element.equals(ANY)) {
        return n > i;
      }
      if (i >= n) {
        return true; // a group above known names, as an empty YAML map leaves it
      }
      if (!element.equals(KEY) && !uniform(element).equals(name.getElement(i, Form.UNIFORM))) {
        return false;
      }
    }
    for (int i = pattern.size(); i < n; i++) {
      if (!name.isNumericIndex(i)) {
        return false; // below a leaf: only list indices bind
      }
    }
    return true;
  }

  /** An environment variable's name, whose underscores may have been dashes or dots. */
  private static String squashed(ConfigurationPropertyName name) {
    StringBuilder squashed = new StringBuilder();
    for (int i = 0; i < name.getNumberOfElements() && !name.isNumericIndex(i); i++) {
      squashed.append(name.getElement(i, Form.UNIFORM).replace("_", ""));
    }
    return squashed.toString();
  }

  private static String squashedPattern(List<String> pattern) {
    StringBuilder regex = new StringBuilder();
    for (String element : pattern) {
      regex.append(
          element.equals(KEY) || element.equals(ANY) ? ".+" : "\\Q" + uniform(element) + "\\E");
    }
    return regex.toString();
  }

  private static String uniform(String dashed) {
    return dashed.replace("-", "").toLowerCase(Locale.ROOT);
  }

  /** The edit distance, an adjacent swap counting one ({@code tll} is one from {@code ttl}). */
  static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = (a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
