package dev.leasehold.app.cli;

import dev.leasehold.fencing.FenceFile;
import dev.leasehold.fencing.StaleFenceException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code fence check --file PATH}: for a job's command that writes somewhere without a database (a
 * backup volume, an export directory). Compares the run's fence ({@code $LEASEHOLD_FENCE}, or
 * {@code --fence}) with the highest recorded in PATH and records it, under an exclusive lock on
 * PATH; exit 0 when it is at least as high, 1 when a higher fence was already seen (a newer run
 * wrote there: this one is stale and must not write), 2 for bad usage.
 */
@Command(
    name = "fence",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = "Fencing for what a job's command writes.",
    subcommands = FenceCommand.Check.class)
final class FenceCommand implements Callable<Integer> {
  private final CliContext context;

  FenceCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() {
    context.err().println("leasehold: fence: give a subcommand: check (see --help)");
    return Cli.USAGE;
  }

  @Command(
      name = "check",
      mixinStandardHelpOptions = true,
      versionProvider = VersionProvider.class,
      description = {
        "Records the run's fence in FILE under a file lock, refusing a stale one.",
        "Exit 0 when the fence is at least the highest recorded; 1 when a higher one was seen",
        "(this run is stale: do not write); 2 when no fence is given."
      })
  static final class Check implements Callable<Integer> {
    @picocli.CommandLine.ParentCommand FenceCommand parent;

    @Option(
        names = "--file",
        required = true,
        paramLabel = "PATH",
        description = "The fence file (created when missing), e.g. next to the backup.")
    Path file;

    @Option(
        names = "--fence",
        paramLabel = "N",
        description = "The fence; default: $LEASEHOLD_FENCE, which the daemon gives every job.")
    Long fence;

    @Override
    public Integer call() throws IOException {
      CliContext context = parent.context;
      long value;
      if (fence != null) {
        value = fence;
      } else {
        String env = context.env().get("LEASEHOLD_FENCE");
        if (env == null || env.isBlank()) {
          throw new IllegalArgumentException(
              "fence check: --fence is not given and LEASEHOLD_FENCE is not set");
        }
        try {
          value = Long.parseLong(env.strip());
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(
              "fence check: LEASEHOLD_FENCE: expected a whole number, got " + env);
        }
      }
      if (value < 0) {
        throw new IllegalArgumentException("fence check: the fence must not be negative");
      }
      try {
        long seen = FenceFile.check(file, value);
        context
            .out()
            .println("fence " + value + " recorded in " + file + " (before: " + seen + ")");
        return Cli.OK;
      } catch (StaleFenceException e) {
        context.err().println("leasehold: " + e.getMessage());
        return Cli.FAILURE;
      }
    }
  }
}
