package dev.leasehold.core.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A detail in a text log line is one quoted token, whatever the job printed. */
class JobRunQuotingTest {
  @Test
  void quotesBackslashesAndLineBreaksAreEscaped() {
    assertThat(JobRun.quoted("say \"hi\"\\now\nnext"))
        .isEqualTo("\"say \\\"hi\\\"\\\\now\\nnext\"");
  }
}
