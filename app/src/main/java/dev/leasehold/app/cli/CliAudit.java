package dev.leasehold.app.cli;

import dev.leasehold.app.audit.Actor;
import dev.leasehold.app.audit.AuditEntry;
import dev.leasehold.app.audit.AuditTrail;
import dev.leasehold.app.config.DaemonConfig;
import dev.leasehold.core.lease.LeaseStoreException;
import dev.leasehold.core.store.StoreBackend;

/**
 * The audit entry of one command that changes something ({@code pause}, {@code resume}, {@code
 * trigger}, {@code reset}): the command says how it ended ({@link #ok}, {@link #refused}, {@link
 * #failed}) and {@link #around} records it once, as this command line's user, host and node; a
 * command that throws is recorded as failed with its one-line error, unless the store failed under
 * it (the entry could not be written either). A command refused before the store is opened (an
 * unknown job, a bad option) is not recorded: the store is not touched then.
 */
final class CliAudit {
  /** The body of an audited command: its exit code. */
  @FunctionalInterface
  interface Body {
    int run();
  }

  private final AuditTrail trail;
  private final Actor who;
  private final String action;
  private final String job;
  private String result;
  private String detail;
  private boolean recorded;

  CliAudit(
      StoreBackend backend, CliContext context, DaemonConfig config, String action, String job) {
    this.trail = AuditTrail.of(backend, context.clock());
    this.who = Actor.cli(config.node());
    this.action = action;
    this.job = job;
  }

  void ok(String detail) {
    set(AuditEntry.OK, detail);
  }

  void refused(String detail) {
    set(AuditEntry.REFUSED, detail);
  }

  void failed(String detail) {
    set(AuditEntry.FAILED, detail);
  }

  private void set(String result, String detail) {
    this.result = result;
    this.detail = detail;
  }

  /** Records what was set now, once (for a command that goes on waiting after its action). */
  void record() {
    if (!recorded) {
      recorded = true;
      String r = result == null ? AuditEntry.FAILED : result;
      trail.record(who, action, job, r, detail);
    }
  }

  /** Runs {@code body} and records how it ended. */
  int around(Body body) {
    int code;
    try {
      code = body.run();
    } catch (LeaseStoreException e) {
      // the store failed under the command: the entry would fail alike, and its warning would be
      // a second line beside the command's one-line error
      throw e;
    } catch (RuntimeException e) {
      failed(Cli.message(e));
      record();
      throw e;
    }
    if (result == null) {
      set(code == Cli.OK ? AuditEntry.OK : AuditEntry.FAILED, null);
    }
    record();
    return code;
  }
}
