package dev.leasehold.spring;

import java.util.Optional;
import java.util.function.Supplier;

/** A value made once, at its first use. */
final class Memo<T> implements Supplier<T> {
  private final Supplier<T> make;
  private volatile T value;

  Memo(Supplier<T> make) {
    this.make = make;
  }

  @Override
  public T get() {
    T v = value;
    if (v == null) {
      synchronized (this) {
        v = value;
        if (v == null) {
          v = make.get();
          value = v;
        }
      }
    }
    return v;
  }

  /** The value if it was made, without making it. */
  Optional<T> ifMade() {
    return Optional.ofNullable(value);
  }
}
