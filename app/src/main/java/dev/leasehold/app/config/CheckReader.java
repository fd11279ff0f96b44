package dev.leasehold.app.config;

import dev.leasehold.app.config.ConfigKeys.Key;
import dev.leasehold.core.check.CheckDefinition;
import dev.leasehold.core.lease.LeaseNames;
import dev.leasehold.core.schedule.Schedule;
import dev.leasehold.core.store.Redaction;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Reads and validates the heartbeat checks ({@code checks:}); each error names its field. */
final class CheckReader {
  private final ZoneId defaultZone;
  private final NotifyConfig defaultNotify;

  /**
   * @param defaultZone the top-level zone, for a cron check without its own
   * @param defaultNotify the top-level notifier, for a check without its own, or {@code null}
   */
  CheckReader(ZoneId defaultZone, NotifyConfig defaultNotify) {
    this.defaultZone = defaultZone;
    this.defaultNotify = defaultNotify;
  }

  List<CheckConfig> readAll(List<Section> sections) throws ConfigException {
    Map<String, String> seen = new HashMap<>();
    List<CheckConfig> checks = new ArrayList<>();
    for (Section s : sections) {
      CheckConfig check = read(s);
      String earlier = seen.putIfAbsent(check.name(), s.path());
      if (earlier != null) {
        throw s.error(
            ConfigKeys.CHECK_NAME,
            "duplicate check name '" + check.name() + "' (also " + earlier + ")");
      }
      checks.add(check);
    }
    return checks;
  }

  private CheckConfig read(Section s) throws ConfigException {
    s.allow(ConfigKeys.CHECK);
    String name = s.requiredText(ConfigKeys.CHECK_NAME);
    String problem = LeaseNames.problem(name);
    if (problem != null) {
      throw s.error(ConfigKeys.CHECK_NAME, "invalid check name '" + name + "': " + problem);
    }
    String key = s.text(ConfigKeys.CHECK_PING_KEY).filter(k -> !k.isBlank()).orElse(null);
    // scrubbed from every output and withheld from jobs before anything else can print it
    Redaction.register(key);
    ZoneId zone = s.get(ConfigKeys.CHECK_ZONE).orElse(defaultZone);
    Key<?> kind = JobReader.exactlyOne(s, ConfigKeys.CHECK_SCHEDULES, "period");
    if (s.has(ConfigKeys.CHECK_ZONE) && kind != ConfigKeys.CHECK_CRON) {
      throw s.error(ConfigKeys.CHECK_ZONE, "only applies to a 'cron' check");
    }
    Duration grace = s.value(ConfigKeys.CHECK_GRACE);
    CheckDefinition definition;
    if (kind == ConfigKeys.CHECK_EVERY) {
      Duration every = s.duration(ConfigKeys.CHECK_EVERY).orElseThrow();
      if (every.isZero() || every.isNegative()) {
        throw s.error(ConfigKeys.CHECK_EVERY, "the period must be greater than 0");
      }
      definition = CheckDefinition.every(name, every, grace);
    } else {
      try {
        Schedule cron = Schedule.cron(s.requiredText(ConfigKeys.CHECK_CRON), zone);
        definition = CheckDefinition.cron(name, cron, grace);
      } catch (IllegalArgumentException e) {
        throw s.error(ConfigKeys.CHECK_CRON, e.getMessage());
      }
    }
    if (key == null) {
      throw s.error(ConfigKeys.CHECK_PING_KEY, "required: the secret a ping must carry");
    }
    if (key.length() < CheckConfig.MIN_KEY_LENGTH) {
      throw s.error(
          ConfigKeys.CHECK_PING_KEY,
          "too short to resist guessing ("
              + key.length()
              + " characters); use at least "
              + CheckConfig.MIN_KEY_LENGTH
              + ", e.g. the output of: openssl rand -hex 16");
    }
    return new CheckConfig(definition, key, notify(s, zone));
  }

  private NotifyConfig notify(Section s, ZoneId zone) throws ConfigException {
    Optional<Section> own = s.section(ConfigKeys.CHECK_NOTIFY);
    if (own.isEmpty()) {
      if (defaultNotify == null) {
        return null;
      }
      Set<String> on = new HashSet<>(defaultNotify.on());
      on.retainAll(CheckConfig.EVENTS);
      return new NotifyConfig(defaultNotify.channels(), on, defaultNotify.message(), zone);
    }
    NotifyConfig notify = JobReader.notify(own.get());
    if (notify == null) {
      return null; // notify: {} sends nothing
    }
    for (String event : notify.on()) {
      if (!CheckConfig.EVENTS.contains(event)) {
        throw own.get()
            .error(
                ConfigKeys.NOTIFY_ON,
                "unknown event '"
                    + event
                    + "' for a check; expected "
                    + String.join(", ", CheckConfig.EVENTS));
      }
    }
    return notify.inZone(zone);
  }
}
