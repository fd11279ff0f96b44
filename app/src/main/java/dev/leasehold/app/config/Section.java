package dev.leasehold.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.leasehold.core.schedule.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads one YAML mapping strictly: every value is checked for its type, placeholders are resolved
 * in text values before they are interpreted, and every error names the field path ({@code
 * jobs[2].cron}). A key holding YAML {@code null} counts as absent.
 */
final class Section {
  private final String file;
  private final String path;
  private final JsonNode node;
  private final Placeholders placeholders;

  private Section(String file, String path, JsonNode node, Placeholders placeholders) {
    this.file = file;
    this.path = path;
    this.node = node;
    this.placeholders = placeholders;
  }

  static Section root(String file, JsonNode node, Placeholders placeholders)
      throws ConfigException {
    if (!node.isObject()) {
      throw new ConfigException(file, null, "expected a mapping at the top, got " + kind(node));
    }
    return new Section(file, "", node, placeholders);
  }

  String file() {
    return file;
  }

  String path() {
    return path;
  }

  String pathOf(String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  /** An error about this section as a whole. */
  ConfigException error(String problem) {
    return new ConfigException(file, path, problem);
  }

  /** An error about {@code key} of this section. */
  ConfigException error(ConfigKeys.Key<?> key, String problem) {
    return errorAt(key.name(), problem);
  }

  /**
   * An error about {@code subPath} below this section, a path made of a key and what it holds
   * ({@code env.NAME}, {@code command[2]}) or a name the file chose (a group's).
   */
  ConfigException errorAt(String subPath, String problem) {
    return new ConfigException(file, pathOf(subPath), problem);
  }

  /** Rejects any key not in {@code keys}, naming the closest allowed key when there is one. */
  Section allow(List<ConfigKeys.Key<?>> keys) throws ConfigException {
    Set<String> allowed = ConfigKeys.names(keys);
    Iterator<String> names = node.fieldNames();
    while (names.hasNext()) {
      String key = names.next();
      if (!allowed.contains(key)) {
        String hint = closest(key, allowed);
        throw errorAt(
            key,
            "unknown key"
                + (hint == null ? "" : " (did you mean '" + hint + "'?)")
                + "; expected one of: "
                + String.join(", ", allowed));
      }
    }
    return this;
  }

  /** The keys of this mapping, in file order. */
  List<String> keys() {
    List<String> keys = new ArrayList<>();
    node.fieldNames().forEachRemaining(keys::add);
    return keys;
  }

  boolean has(ConfigKeys.Key<?> key) {
    return has(key.name());
  }

  private boolean has(String key) {
    JsonNode value = node.get(key);
    return value != null && !value.isNull();
  }

  /** The value of {@code key} read and checked by its parser; empty when absent. */
  <T> Optional<T> get(ConfigKeys.Key<T> key) throws ConfigException {
    return key.reader().read(this, key);
  }

  /** The value of {@code key}, or its default when absent (null when it has no typed default). */
  <T> T value(ConfigKeys.Key<T> key) throws ConfigException {
    return get(key).orElse(key.defaultValue());
  }

  Optional<String> text(ConfigKeys.Key<?> key) throws ConfigException {
    return text(key.name());
  }

  private Optional<String> text(String key) throws ConfigException {
    if (!has(key)) {
      return Optional.empty();
    }
    return Optional.of(scalar(key, node.get(key)));
  }

  String requiredText(ConfigKeys.Key<?> key) throws ConfigException {
    String value = text(key).orElseThrow(() -> error(key, "is required"));
    if (value.isBlank()) {
      throw error(key, "must not be empty");
    }
    return value;
  }

  Optional<Duration> duration(ConfigKeys.Key<?> key) throws ConfigException {
    Optional<String> text = text(key);
    if (text.isEmpty()) {
      return Optional.empty();
    }
    if (node.get(key.name()).isNumber()) {
      throw error(key, "'" + text.get() + "' has no unit; expected e.g. 500ms, 30s, 5m, 1h");
    }
    try {
      return Optional.of(Durations.parse(text.get()));
    } catch (IllegalArgumentException e) {
      throw error(key, e.getMessage());
    }
  }

  /** A duration that must be greater than zero. */
  Optional<Duration> positiveDuration(ConfigKeys.Key<?> key) throws ConfigException {
    Optional<Duration> d = duration(key);
    if (d.isPresent() && (d.get().isZero() || d.get().isNegative())) {
      throw error(key, "must be greater than 0");
    }
    return d;
  }

  /** Whether {@code key} is present and holds a mapping (not a scalar or a list). */
  boolean isMapping(ConfigKeys.Key<?> key) {
    return has(key.name()) && node.get(key.name()).isObject();
  }

  Optional<Section> section(ConfigKeys.Key<?> key) throws ConfigException {
    return section(key.name());
  }

  /** The mapping a name chosen in the file holds, such as a group's under {@code groups}. */
  Optional<Section> member(String name) throws ConfigException {
    return section(name);
  }

  private Optional<Section> section(String key) throws ConfigException {
    if (!has(key)) {
      return Optional.empty();
    }
    JsonNode value = node.get(key);
    if (!value.isObject()) {
      throw errorAt(key, "expected a mapping, got " + kind(value));
    }
    return Optional.of(new Section(file, pathOf(key), value, placeholders));
  }

  /** The mappings of a list of mappings, each with its path ({@code jobs[0]}, ...). */
  List<Section> sections(ConfigKeys.Key<?> listKey) throws ConfigException {
    String key = listKey.name();
    List<Section> out = new ArrayList<>();
    if (!has(key)) {
      return out;
    }
    JsonNode value = node.get(key);
    if (!value.isArray()) {
      throw errorAt(key, "expected a list, got " + kind(value));
    }
    for (int i = 0; i < value.size(); i++) {
      String itemPath = pathOf(key) + "[" + i + "]";
      JsonNode item = value.get(i);
      if (!item.isObject()) {
        throw new ConfigException(file, itemPath, "expected a mapping, got " + kind(item));
      }
      out.add(new Section(file, itemPath, item, placeholders));
    }
    return out;
  }

  /**
   * One item of a list whose items are either a name (text) or a mapping: exactly one of {@code
   * name} and {@code section} is set; {@code path} is the item's field path ({@code exclude[1]}).
   */
  record Item(String path, String name, Section section) {}

  /** The items of a list of names and mappings, such as {@code exclude}. */
  List<Item> items(ConfigKeys.Key<?> listKey) throws ConfigException {
    return items(listKey.name());
  }

  /**
   * The items of the list a name chosen in the file holds, such as a calendar's: a {@link #member}
   * that is a list.
   */
  List<Item> memberList(String name) throws ConfigException {
    return items(name);
  }

  private List<Item> items(String key) throws ConfigException {
    List<Item> out = new ArrayList<>();
    if (!has(key)) {
      return out;
    }
    JsonNode value = node.get(key);
    if (!value.isArray()) {
      throw errorAt(key, "expected a list, got " + kind(value));
    }
    for (int i = 0; i < value.size(); i++) {
      String sub = key + "[" + i + "]";
      JsonNode item = value.get(i);
      if (item.isObject()) {
        out.add(new Item(pathOf(sub), null, new Section(file, pathOf(sub), item, placeholders)));
      } else {
        out.add(new Item(pathOf(sub), scalar(sub, item), null));
      }
    }
    return out;
  }

  Optional<List<String>> textList(ConfigKeys.Key<?> listKey) throws ConfigException {
    String key = listKey.name();
    if (!has(key)) {
      return Optional.empty();
    }
    JsonNode value = node.get(key);
    if (!value.isArray()) {
      throw errorAt(key, "expected a list of strings, got " + kind(value));
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < value.size(); i++) {
      out.add(scalar(key + "[" + i + "]", value.get(i)));
    }
    return Optional.of(out);
  }

  /** The list's text values as written, placeholders unresolved (empty where not text). */
  List<String> rawTextList(ConfigKeys.Key<?> listKey) {
    String key = listKey.name();
    List<String> out = new ArrayList<>();
    JsonNode value = node.get(key);
    if (value != null && value.isArray()) {
      value.forEach(item -> out.add(item.isTextual() ? item.asText() : ""));
    }
    return out;
  }

  Map<String, String> textMap(ConfigKeys.Key<?> mapKey) throws ConfigException {
    String key = mapKey.name();
    Map<String, String> out = new LinkedHashMap<>();
    if (!has(key)) {
      return out;
    }
    JsonNode value = node.get(key);
    if (!value.isObject()) {
      throw errorAt(key, "expected a mapping of names to strings, got " + kind(value));
    }
    Iterator<Map.Entry<String, JsonNode>> fields = value.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> e = fields.next();
      out.put(e.getKey(), scalar(key + "." + e.getKey(), e.getValue()));
    }
    return out;
  }

  private String scalar(String key, JsonNode value) throws ConfigException {
    if (value == null || value.isNull()) {
      throw errorAt(key, "expected a value, got nothing");
    }
    if (!value.isValueNode()) {
      throw errorAt(key, "expected a single value, got " + kind(value));
    }
    if (!value.isTextual()) {
      return value.asText();
    }
    try {
      return placeholders.resolve(value.asText());
    } catch (IllegalArgumentException e) {
      throw errorAt(key, e.getMessage());
    }
  }

  static String kind(JsonNode value) {
    if (value == null || value.isNull() || value.isMissingNode()) {
      return "nothing";
    }
    if (value.isArray()) {
      return "a list";
    }
    if (value.isObject()) {
      return "a mapping";
    }
    if (value.isNumber()) {
      return "a number";
    }
    if (value.isBoolean()) {
      return "true/false";
    }
    return "text";
  }

  private static String closest(String key, Set<String> allowed) {
    String best = null;
    int bestDistance = 3;
    for (String candidate : allowed) {
      int d = distance(key, candidate);
      if (d < bestDistance) {
        best = candidate;
        bestDistance = d;
      }
    }
    return best;
  }

  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
