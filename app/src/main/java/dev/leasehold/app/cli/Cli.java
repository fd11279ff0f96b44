package dev.leasehold.app.cli;

import dev.leasehold.app.config.ConfigException;
import dev.leasehold.app.logging.StartupTrace;
import dev.leasehold.app.wiring.StoreWords;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.store.Redaction;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The command line: {@code run}, {@code validate}, {@code status}, {@code history}, {@code
 * trigger}, {@code pause}, {@code resume}, {@code reset}, {@code nodes}, {@code audit}. Exit codes
 * (docs/cli.md): 0 ok; 2 bad usage or bad config, with one line on stderr; 1 a runtime failure,
 * also one line.
 */
@Command(
    name = "leasehold",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = "Runs every scheduled job of a replicated service exactly once per firing.",
    footer = {
      "",
      "Exit codes: 0 ok, 1 runtime failure, 2 bad usage or bad configuration.",
      "Docs: README.md, docs/cli.md, docs/configuration.md, docs/operations.md"
    })
public final class Cli implements Callable<Integer> {
  public static final int OK = 0;
  public static final int FAILURE = 1;
  public static final int USAGE = 2;

  @Spec CommandSpec spec;

  private final CliContext context;

  public Cli(CliContext context) {
    this.context = context;
  }

  /** Runs one command line and returns its exit code. */
  public int execute(String... args) {
    CommandLine line = new CommandLine(this);
    Map<String, Supplier<Object>> commands = new LinkedHashMap<>();
    commands.put("run", () -> new RunCommand(context));
    commands.put("validate", () -> new ValidateCommand(context));
    commands.put("status", () -> new StatusCommand(context));
    commands.put("history", () -> new HistoryCommand(context));
    commands.put("trigger", () -> new TriggerCommand(context));
    commands.put("backfill", () -> new BackfillCommand(context));
    commands.put("fence", () -> new FenceCommand(context));
    commands.put("pause", () -> new PauseCommand(context));
    commands.put("resume", () -> new ResumeCommand(context));
    commands.put("reset", () -> new ResetCommand(context));
    commands.put("nodes", () -> new NodesCommand(context));
    commands.put("audit", () -> new AuditCommand(context));
    commands.put("ping", () -> new PingCommand(context));
    // no lambda or method reference may name a picocli type: picocli is compiled for Java 5, and
    // the class-data archive keeps such a type only if nothing links it while the archive is made
    commands.put("help", () -> new CommandLine.HelpCommand());
    // picocli builds a reflective model of every command it is given, a good part of a short
    // command's start-up: when the first argument names a command, that one is enough (the
    // others are needed for the usage, 'help' and errors about the command name); the version
    // alone needs none
    Supplier<Object> named = args.length == 0 ? null : commands.get(args[0]);
    boolean versionOnly = args.length == 1 && (args[0].equals("--version") || args[0].equals("-V"));
    if (versionOnly) {
      // nothing to add
    } else if (named != null && !args[0].equals("help")) {
      line.addSubcommand(args[0], named.get());
    } else {
      commands.forEach((name, command) -> line.addSubcommand(name, command.get()));
    }
    line.setOut(context.out());
    line.setErr(context.err());
    line.setExitCodeExceptionMapper(new ExitCodes());
    line.setParameterExceptionHandler(new UsageErrors(context));
    line.setExecutionExceptionHandler(new Failures(context));
    StartupTrace.mark("command line built");
    int code = line.execute(args);
    StartupTrace.mark("command done");
    context.out().flush();
    context.err().flush();
    return code;
  }

  @Override
  public Integer call() {
    // no command given: usage on stderr, bad usage
    spec.commandLine().usage(context.err());
    return USAGE;
  }

  /** One line about a failure, scrubbed of every configured secret. */
  static String message(Exception e) {
    return Redaction.scrub(unscrubbed(e));
  }

  private static String unscrubbed(Exception e) {
    if (e instanceof ConfigException) {
      return e.getMessage();
    }
    if (e instanceof LeaseStoreException) {
      return "leasehold: store error: " + StoreWords.summary(e);
    }
    if (e instanceof IllegalArgumentException) {
      return "leasehold: " + oneLine(e.getMessage());
    }
    return "leasehold: error: " + StoreWords.summary(e);
  }

  static String oneLine(String text) {
    return text == null ? "" : text.replaceAll("\\s*[\\r\\n]+\\s*", " ").strip();
  }

  /** Bad usage: one line, exit 2. */
  private static final class UsageErrors implements CommandLine.IParameterExceptionHandler {
    private final CliContext context;

    UsageErrors(CliContext context) {
      this.context = context;
    }

    @Override
    public int handleParseException(CommandLine.ParameterException e, String[] args) {
      context
          .err()
          .println("leasehold: " + Redaction.scrub(oneLine(e.getMessage())) + " (see --help)");
      context.err().flush();
      return USAGE;
    }
  }

  /** A command that threw: one line, exit 2 for bad configuration, else 1. */
  private static final class Failures implements CommandLine.IExecutionExceptionHandler {
    private final CliContext context;

    Failures(CliContext context) {
      this.context = context;
    }

    @Override
    public int handleExecutionException(
        Exception e, CommandLine command, CommandLine.ParseResult parsed) {
      context.err().println(message(e));
      context.err().flush();
      return e instanceof ConfigException || e instanceof IllegalArgumentException
          ? USAGE
          : FAILURE;
    }
  }

  /** Exit codes only come from commands' return values and the handlers above. */
  private static final class ExitCodes implements CommandLine.IExitCodeExceptionMapper {
    @Override
    public int getExitCode(Throwable exception) {
      return exception instanceof ConfigException ? USAGE : FAILURE;
    }
  }
}
