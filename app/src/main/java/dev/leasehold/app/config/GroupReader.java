package dev.leasehold.app.config;

import dev.leasehold.core.lease.LeaseNames;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Reads the top-level {@code groups} and checks every job's {@code group} against them. */
final class GroupReader {
  /** Most slots one group may have: each is a lease a waiting run tries in turn. */
  static final int MAX_CONCURRENT = 100;

  /** Longest group name: its slot leases' names must stay valid lease names. */
  static final int MAX_NAME = 60;

  private GroupReader() {}

  /**
   * @param jobSections the job sections, in the order of {@code jobs}
   * @return each group's name and max-concurrent, in file order
   */
  static Map<String, Integer> read(Section root, List<Section> jobSections, List<JobConfig> jobs)
      throws ConfigException {
    Map<String, Integer> groups = new LinkedHashMap<>();
    Optional<Section> section = root.section(ConfigKeys.TOP_GROUPS);
    if (section.isPresent()) {
      for (String name : section.get().keys()) {
        groups.put(name, group(section.get(), name));
      }
    }
    for (int i = 0; i < jobs.size(); i++) {
      String group = jobs.get(i).group();
      if (group != null && !groups.containsKey(group)) {
        throw jobSections
            .get(i)
            .error(
                ConfigKeys.JOB_GROUP,
                "unknown group '"
                    + group
                    + "'; "
                    + (groups.isEmpty()
                        ? "no groups are defined (top-level groups)"
                        : "defined: " + String.join(", ", groups.keySet())));
      }
    }
    return groups;
  }

  private static int group(Section groups, String name) throws ConfigException {
    String problem = LeaseNames.problem(name);
    if (problem == null && name.length() > MAX_NAME) {
      problem = "must be at most " + MAX_NAME + " characters";
    }
    if (problem != null) {
      throw groups.errorAt(name, "invalid group name: " + problem);
    }
    Section g =
        groups
            .member(name)
            .orElseThrow(
                () -> groups.errorAt(name, "expected " + ConfigKeys.MAX_CONCURRENT.name()));
    g.allow(ConfigKeys.GROUP);
    g.requiredText(ConfigKeys.MAX_CONCURRENT);
    return g.value(ConfigKeys.MAX_CONCURRENT);
  }
}
