package dev.leasehold.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PlaceholdersTest {
  private final Placeholders placeholders =
      new Placeholders(Map.of("NODE", "gateway-1", "EMPTY", "", "PASS", "s3cret$1"));

  @Test
  void aSetVariableIsReplaced() {
    assertThat(placeholders.resolve("node ${NODE}!")).isEqualTo("node gateway-1!");
  }

  @Test
  void aDefaultIsUsedWhenTheVariableIsUnsetOrEmpty() {
    assertThat(placeholders.resolve("${MISSING:-fallback}")).isEqualTo("fallback");
    assertThat(placeholders.resolve("${EMPTY:-fallback}")).isEqualTo("fallback");
    assertThat(placeholders.resolve("${MISSING:-}")).isEmpty();
  }

  @Test
  void anEmptyValueWithoutDefaultIsKept() {
    assertThat(placeholders.resolve("[${EMPTY}]")).isEqualTo("[]");
  }

  @Test
  void replacementTextIsTakenLiterally() {
    assertThat(placeholders.resolve("${PASS}")).isEqualTo("s3cret$1");
  }

  @Test
  void aDoubledDollarKeepsThePlaceholderAsText() {
    assertThat(placeholders.resolve("echo $${LEASEHOLD_FENCE} ${NODE}"))
        .isEqualTo("echo ${LEASEHOLD_FENCE} gateway-1");
  }

  @Test
  void shellVariablesWithoutBracesAreLeftAlone() {
    assertThat(placeholders.resolve("echo $LEASEHOLD_FIRE_TIME"))
        .isEqualTo("echo $LEASEHOLD_FIRE_TIME");
  }

  @Test
  void anUnsetVariableWithoutDefaultNamesTheVariable() {
    assertThatThrownBy(() -> placeholders.resolve("${DB_PASSWORD}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("DB_PASSWORD is not set");
  }

  @Test
  void aMalformedPlaceholderIsAnError() {
    assertThatThrownBy(() -> placeholders.resolve("${not closed"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("malformed placeholder");
  }

  @Test
  void aMalformedPlaceholderDoesNotEchoTheValueWhichMayBeASecret() {
    assertThatThrownBy(() -> placeholders.resolve("Hunter2-${oops"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("character 9")
        .message()
        .doesNotContain("Hunter2");
  }
}
