package dev.leasehold.store.sql;

import java.util.function.Supplier;

/**
 * A statement's text, rendered by jOOQ for the store's dialect the first time it is run and kept
 * from then on; it runs through JDBC. Rendering at first use, not when the store opens, keeps a
 * command that opens the store for one statement ({@code status}, {@code validate --connect}) from
 * rendering all the others. Two threads that race at the first use both render the same text.
 */
final class Rendered {
  private final Supplier<String> render;
  private volatile String text;

  private Rendered(Supplier<String> render) {
    this.render = render;
  }

  static Rendered by(Supplier<String> render) {
    return new Rendered(render);
  }

  String get() {
    String t = text;
    if (t == null) {
      t = render.get();
      text = t;
    }
    return t;
  }
}
