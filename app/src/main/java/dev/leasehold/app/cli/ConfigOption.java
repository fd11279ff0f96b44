package dev.leasehold.app.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The {@code --config FILE} option shared by every command. */
final class ConfigOption {
  @Option(
      names = {"-c", "--config"},
      required = true,
      paramLabel = "FILE",
      description = "The YAML configuration file.")
  Path file;
}
