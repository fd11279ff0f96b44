package dev.leasehold.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every configuration key is defined once: as one named constant of {@link ConfigKeys}, listed in
 * exactly one section, and the loader can reach a value only through such a constant (the {@link
 * Section} methods that read a key take a key, never its name as text).
 */
class ConfigKeysTest {

  /** The section lists: each key of the file belongs to exactly one of them. */
  private static final List<List<ConfigKeys.Key<?>>> SECTIONS =
      List.of(
          ConfigKeys.TOP,
          ConfigKeys.STORE,
          ConfigKeys.HISTORY,
          ConfigKeys.LEASE,
          ConfigKeys.ADMIN,
          ConfigKeys.LOG,
          ConfigKeys.GROUP,
          ConfigKeys.JOB,
          ConfigKeys.CHECK,
          ConfigKeys.AFTER,
          ConfigKeys.RETRY,
          ConfigKeys.NOTIFY,
          ConfigKeys.NTFY,
          ConfigKeys.TELEGRAM,
          ConfigKeys.EMAIL,
          ConfigKeys.HTTP,
          ConfigKeys.EXCLUSION);

  @Test
  void everyKeyOfEverySectionIsANamedConstantAndEveryConstantIsInOneSection() throws Exception {
    Map<ConfigKeys.Key<?>, String> constants = new IdentityHashMap<>();
    for (Field f : ConfigKeys.class.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == ConfigKeys.Key.class) {
        f.setAccessible(true);
        constants.put((ConfigKeys.Key<?>) f.get(null), f.getName());
      }
    }
    Map<ConfigKeys.Key<?>, Integer> listed = new IdentityHashMap<>();
    List<String> inline = new ArrayList<>();
    for (List<ConfigKeys.Key<?>> section : SECTIONS) {
      for (ConfigKeys.Key<?> key : section) {
        listed.merge(key, 1, Integer::sum);
        if (!constants.containsKey(key)) {
          inline.add(key.name());
        }
      }
    }
    assertThat(inline).as("keys defined inside a section list, not as constants").isEmpty();
    assertThat(listed).allSatisfy((key, times) -> assertThat(times).as(key.name()).isOne());
    assertThat(constants.keySet())
        .allSatisfy(
            key -> assertThat(listed).as(constants.get(key) + " in a section").containsKey(key));
    // the two groups the loader chooses among are keys of the job section
    assertThat(ConfigKeys.JOB)
        .containsAll(ConfigKeys.SCHEDULES)
        .containsAll(ConfigKeys.ACTIONS)
        .containsAll(ConfigKeys.COMMAND_ONLY);
    assertThat(ConfigKeys.NOTIFY).containsAll(ConfigKeys.NOTIFIERS);
    assertThat(ConfigKeys.EXCLUSION).containsAll(ConfigKeys.EXCLUSION_FORMS);
    assertThat(ConfigKeys.CHECK).containsAll(ConfigKeys.CHECK_SCHEDULES);
  }

  @Test
  void theSectionReadsAKeyOnlyThroughItsDefinition() {
    // what a String may still name: the file (root), a path below a key (env.NAME, command[2]),
    // a name the file chose (a group's, a calendar's), or a problem
    List<String> allowed = List.of("root", "pathOf", "errorAt", "member", "memberList", "error");
    List<String> byName =
        Arrays.stream(Section.class.getDeclaredMethods())
            .filter(m -> !Modifier.isPrivate(m.getModifiers()) && !m.isSynthetic())
            .filter(m -> Arrays.asList(m.getParameterTypes()).contains(String.class))
            .map(Method::getName)
            .filter(name -> !allowed.contains(name))
            .toList();
    assertThat(byName).as("Section methods that take a key's name as text").isEmpty();
  }
}
