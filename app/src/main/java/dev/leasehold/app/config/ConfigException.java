package dev.leasehold.app.config;

import java.util.List;

/**
 * A bad configuration, reported as one line per error: the file, where in it (a field path such as
 * {@code jobs[2].cron} or {@code line 7}) and what is wrong. The loader gathers every error of a
 * file ({@link #all()}); the CLI prints {@link #getMessage()}, those lines, and exits with code 2;
 * no stack trace is ever shown for it.
 */
public final class ConfigException extends Exception {
  private static final long serialVersionUID = 1L;

  private final String file;
  private final String where;
  private final String problem;
  private final List<ConfigException> all;

  public ConfigException(String file, String where, String problem) {
    super(oneLine(file, where, problem), null, false, false);
    this.file = file;
    this.where = where;
    this.problem = problem;
    this.all = List.of(this);
  }

  private ConfigException(List<ConfigException> all) {
    super(
        String.join("\n", all.stream().map(ConfigException::getMessage).toList()),
        null,
        false,
        false);
    ConfigException first = all.get(0);
    this.file = first.file;
    this.where = first.where;
    this.problem = first.problem;
    this.all = List.copyOf(all);
  }

  /**
   * Several errors of one file as one exception: its message is their lines, one per error, in file
   * order; {@link #where()} and {@link #problem()} are the first one's.
   */
  static ConfigException all(List<ConfigException> errors) {
    return errors.size() == 1 ? errors.get(0) : new ConfigException(errors);
  }

  /** Every error this exception reports (itself alone, unless it gathers several). */
  public List<ConfigException> all() {
    return all;
  }

  /** The file as the user named it. */
  public String file() {
    return file;
  }

  /**
   * The field path ({@code jobs[2].cron}) or {@code line N}, or {@code null} for the whole file.
   */
  public String where() {
    return where;
  }

  public String problem() {
    return problem;
  }

  private static String oneLine(String file, String where, String problem) {
    String text = file + ": " + (where == null || where.isEmpty() ? "" : where + ": ") + problem;
    return text.replaceAll("\\s*[\\r\\n]+\\s*", " ").strip();
  }
}
