package dev.leasehold.app.config;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.leasehold.app.config.ConfigKeys.Key;
import java.util.List;

/**
 * The JSON Schema (draft 2020-12) of the configuration file, derived from {@link ConfigKeys}, the
 * same definitions the loader checks keys against. Editors with a YAML language server use it
 * through a {@code # yaml-language-server: $schema=...} line. The schema checks shape (keys, types,
 * exactly one schedule and one action); the loader checks meaning as well (cron syntax, zones,
 * URLs), so a file the schema accepts can still be refused by {@code validate}.
 */
public final class ConfigSchema {
  /** Where the schema is published in the repository. */
  public static final String PUBLISHED = "docs/leasehold.schema.json";

  /** A duration, or text holding a placeholder that becomes one. */
  static final String DURATION_PATTERN = "^(\\s*([0-9]+(ms|s|m|h|d))+\\s*|.*\\$\\{.*\\}.*)$";

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private ConfigSchema() {}

  /** The schema as pretty-printed JSON text, ending in a newline. */
  public static String text() {
    try {
      return JSON.writeValueAsString(schema()) + "\n";
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static ObjectNode schema() {
    ObjectNode root = JSON.createObjectNode();
    root.put("$schema", "https://json-schema.org/draft/2020-12/schema");
    root.put("title", "Leasehold daemon configuration");
    root.put(
        "description",
        "One YAML file read by every replica (run, validate, status, history, trigger).");
    ObjectNode props = section(root, ConfigKeys.TOP);
    root.putArray("required").add(ConfigKeys.TOP_JOBS.name());
    ObjectNode store = (ObjectNode) props.get(ConfigKeys.TOP_STORE.name());
    section(
        (ObjectNode) section(store, ConfigKeys.STORE).get(ConfigKeys.STORE_HISTORY.name()),
        ConfigKeys.HISTORY);
    section(property(props, ConfigKeys.TOP_LEASE), ConfigKeys.LEASE);
    section(property(props, ConfigKeys.TOP_ADMIN), ConfigKeys.ADMIN);
    section(property(props, ConfigKeys.TOP_LOG), ConfigKeys.LOG);
    ObjectNode group =
        (ObjectNode) property(props, ConfigKeys.TOP_GROUPS).get("additionalProperties");
    section(group, ConfigKeys.GROUP);
    group.putArray("required").add(ConfigKeys.MAX_CONCURRENT.name());
    notify(property(props, ConfigKeys.TOP_NOTIFY));
    section(property(props, ConfigKeys.TOP_RETRY), ConfigKeys.RETRY);
    ObjectNode job = (ObjectNode) property(props, ConfigKeys.TOP_JOBS).get("items");
    ObjectNode jobProps = section(job, ConfigKeys.JOB);
    job.putArray("required").add(ConfigKeys.JOB_NAME.name());
    ArrayNode allOf = job.putArray("allOf");
    allOf.addObject().set("oneOf", exactlyOne(ConfigKeys.SCHEDULES));
    allOf.addObject().set("oneOf", exactlyOne(ConfigKeys.ACTIONS));
    http(property(jobProps, ConfigKeys.JOB_HTTP));
    after(property(jobProps, ConfigKeys.JOB_AFTER));
    notify(property(jobProps, ConfigKeys.JOB_NOTIFY));
    section(property(jobProps, ConfigKeys.JOB_RETRY), ConfigKeys.RETRY);
    property(props, ConfigKeys.TOP_JOBS).put("minItems", 1);
    // an exclude item: a calendar's name or a window; a calendar: a list of windows
    ArrayNode item =
        ((ObjectNode) property(jobProps, ConfigKeys.JOB_EXCLUDE).get("items")).putArray("anyOf");
    item.addObject().put("type", "string");
    section(item.addObject(), ConfigKeys.EXCLUSION);
    ObjectNode calendar =
        (ObjectNode) property(props, ConfigKeys.TOP_CALENDARS).get("additionalProperties");
    calendar.put("type", "array");
    section(calendar.putObject("items"), ConfigKeys.EXCLUSION);
    ObjectNode check = (ObjectNode) property(props, ConfigKeys.TOP_CHECKS).get("items");
    ObjectNode checkProps = section(check, ConfigKeys.CHECK);
    check
        .putArray("required")
        .add(ConfigKeys.CHECK_NAME.name())
        .add(ConfigKeys.CHECK_PING_KEY.name());
    check.set("oneOf", exactlyOne(ConfigKeys.CHECK_SCHEDULES));
    notify(property(checkProps, ConfigKeys.CHECK_NOTIFY));
    return root;
  }

  /** {@code after}: a job name, or a mapping {@code {job, on}}. */
  private static void after(ObjectNode after) {
    ArrayNode oneOf = after.putArray("oneOf");
    oneOf.addObject().put("type", "string");
    ObjectNode map = oneOf.addObject();
    section(map, ConfigKeys.AFTER);
    map.putArray("required").add(ConfigKeys.AFTER_JOB.name());
    ObjectNode on = (ObjectNode) property((ObjectNode) map.get("properties"), ConfigKeys.AFTER_ON);
    ObjectNode items = on.putObject("items");
    items.put("type", "string");
    items.putArray("enum").add("succeeded").add("failed").add("any");
  }

  private static void notify(ObjectNode notify) {
    ObjectNode props = section(notify, ConfigKeys.NOTIFY);
    http(property(props, ConfigKeys.NOTIFY_HTTP));
    required(property(props, ConfigKeys.NOTIFY_NTFY), ConfigKeys.NTFY, ConfigKeys.NTFY_URL);
    required(
        property(props, ConfigKeys.NOTIFY_TELEGRAM),
        ConfigKeys.TELEGRAM,
        ConfigKeys.TELEGRAM_BOT_TOKEN,
        ConfigKeys.TELEGRAM_CHAT_ID);
    required(
        property(props, ConfigKeys.NOTIFY_EMAIL),
        ConfigKeys.EMAIL,
        ConfigKeys.EMAIL_SMTP,
        ConfigKeys.EMAIL_FROM,
        ConfigKeys.EMAIL_TO);
  }

  private static void required(ObjectNode node, List<Key<?>> keys, Key<?>... required) {
    section(node, keys);
    ArrayNode names = node.putArray("required");
    for (Key<?> key : required) {
      names.add(key.name());
    }
  }

  private static void http(ObjectNode http) {
    section(http, ConfigKeys.HTTP);
    http.putArray("required").add(ConfigKeys.HTTP_URL.name());
  }

  /** The schema of {@code key} among a section's {@code properties}. */
  private static ObjectNode property(ObjectNode properties, Key<?> key) {
    return (ObjectNode) properties.get(key.name());
  }

  private static ArrayNode exactlyOne(List<Key<?>> keys) {
    ArrayNode oneOf = JSON.createArrayNode();
    for (Key<?> key : keys) {
      oneOf.addObject().putArray("required").add(key.name());
    }
    return oneOf;
  }

  /** Writes the schema of a section holding {@code keys}; returns its {@code properties}. */
  private static ObjectNode section(ObjectNode node, List<Key<?>> keys) {
    node.put("type", "object");
    node.put("additionalProperties", false);
    ObjectNode props = node.putObject("properties");
    for (Key<?> key : keys) {
      ObjectNode p = props.putObject(key.name());
      String description =
          key.description()
              + (key.defaultText() == null ? "" : " Default: " + key.defaultText() + ".");
      p.put("description", description);
      switch (key.kind()) {
        case TEXT -> {
          if (key.values().isEmpty()) {
            scalar(p);
          } else {
            p.put("type", "string");
            // a placeholder may stand for one of the values
            p.put("pattern", "^((?i)" + String.join("|", key.values()) + "|.*\\$\\{.*\\}.*)$");
          }
        }
        case DURATION -> {
          p.put("type", "string");
          p.put("pattern", DURATION_PATTERN);
        }
        case TEXT_LIST -> {
          p.put("type", "array");
          scalar(p.putObject("items"));
        }
        case TEXT_MAP -> {
          p.put("type", "object");
          scalar(p.putObject("additionalProperties"));
        }
        case SECTION -> {}
        case SECTION_LIST -> {
          p.put("type", "array");
          p.putObject("items");
        }
        case SECTION_MAP -> {
          p.put("type", "object");
          p.putObject("additionalProperties");
        }
      }
    }
    return props;
  }

  /** A YAML scalar read as text: a string, or a number or boolean written without quotes. */
  private static void scalar(ObjectNode p) {
    p.putArray("type").add("string").add("number").add("boolean");
  }
}
