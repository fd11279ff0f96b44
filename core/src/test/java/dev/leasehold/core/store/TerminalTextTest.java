package dev.leasehold.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TerminalTextTest {
  @Test
  void escapeSequencesBellAndC1BecomeVisibleTextAndTabsStay() {
    assertThat(TerminalText.line("\u001b]52;c;SGVsbG8=\u0007 a\tb \u009b2J \u007f"))
        .isEqualTo("\\x1b]52;c;SGVsbG8=\\x07 a\tb \\x9b2J \\x7f");
  }

  @Test
  void aSingleLineFieldFoldsItsLineBreaksAndOutputKeepsThem() {
    assertThat(TerminalText.line("ok\r\n2026-12-07 INFO forged"))
        .isEqualTo("ok\\r\\n2026-12-07 INFO forged");
    assertThat(TerminalText.lines("one\ntwo\r\n")).isEqualTo("one\ntwo\\r\n");
    assertThat(TerminalText.line("plain text, ünïcode")).isEqualTo("plain text, ünïcode");
  }
}
