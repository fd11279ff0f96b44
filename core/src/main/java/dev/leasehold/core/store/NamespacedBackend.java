package dev.leasehold.core.store;

import dev.leasehold.core.job.ExecutionLog;
import dev.leasehold.core.lease.Forgetting;
import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.LeaseStore;
import dev.leasehold.core.lease.NodeRecords;
import dev.leasehold.core.lease.Pauses;
import dev.leasehold.core.lease.RequestSignals;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/** A backend whose leases and history are those of one {@link Namespace}. */
final class NamespacedBackend implements StoreBackend {
  private final StoreBackend delegate;
  private final LeaseStore leases;
  private final ExecutionLog history;
  private final Optional<Pauses> pauses;
  private final Optional<NodeRecords> nodeRecords;
  private final Optional<Forgetting> forgetting;
  private final Optional<Journal> journal;

  NamespacedBackend(StoreBackend delegate, Namespace namespace) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.leases = new NamespacedLeaseStore(delegate.leaseStore(), namespace);
    this.history = new NamespacedExecutionLog(delegate.executionLog(), namespace);
    this.pauses = delegate.pauses().map(p -> NamespacedParts.pauses(p, namespace));
    this.nodeRecords = delegate.nodeRecords().map(n -> NamespacedParts.nodeRecords(n, namespace));
    this.forgetting = delegate.forgetting().map(f -> NamespacedParts.forgetting(f, namespace));
    this.journal = delegate.journal().map(j -> NamespacedParts.journal(j, namespace));
  }

  static StoreFactory factory(StoreFactory factory, Namespace namespace) {
    return new Factory(Objects.requireNonNull(factory, "factory"), namespace);
  }

  /** Opens the backends of {@code delegate} in {@code namespace}. */
  record Factory(StoreFactory delegate, Namespace namespace) implements StoreFactory {
    @Override
    public Set<String> types() {
      return delegate.types();
    }

    @Override
    public String validate(StoreSettings settings) {
      return delegate.validate(settings);
    }

    @Override
    public StoreBackend open(StoreSettings settings) {
      return namespace.wrap(delegate.open(settings));
    }

    @Override
    public List<StoreOption<?>> options() {
      return delegate.options();
    }

    @Override
    public String defaultType() {
      return delegate.defaultType();
    }

    @Override
    public String defaultUrl(String type) {
      return delegate.defaultUrl(type);
    }

    @Override
    public Map<String, String> logLevels() {
      return delegate.logLevels();
    }

    @Override
    public Set<String> driverPackages() {
      return delegate.driverPackages();
    }

    @Override
    public Duration selfCheckTtl(StoreSettings settings) {
      return delegate.selfCheckTtl(settings);
    }
  }

  @Override
  public LeaseStore leaseStore() {
    return leases;
  }

  @Override
  public ExecutionLog executionLog() {
    return history;
  }

  @Override
  public Optional<Pauses> pauses() {
    return pauses;
  }

  @Override
  public Optional<NodeRecords> nodeRecords() {
    return nodeRecords;
  }

  @Override
  public Optional<Forgetting> forgetting() {
    return forgetting;
  }

  /** The delegate's: a signal of another namespace only wakes a daemon for one cheap read. */
  @Override
  public Optional<RequestSignals> requestSignals() {
    return delegate.requestSignals();
  }

  @Override
  public Optional<Journal> journal() {
    return journal;
  }

  @Override
  public void ping() {
    delegate.ping();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
