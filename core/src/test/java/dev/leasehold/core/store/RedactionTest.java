package dev.leasehold.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Passwords with URL delimiters in them, in user info and queries, and echoed by drivers. */
class RedactionTest {
  /** Each holds characters that end a URL part: / @ : # % ? */
  static final List<String> CORPUS =
      List.of("pa/ss@wo:rd#1%?x", "s3cr/et@127.0.0.1:99", "h#sh?q%25p@ss/w:rd", "@/:#%?tail");

  @Test
  void aPasswordInUserInfoIsHiddenWhateverItHoldsAndTheHostStays() {
    for (String pw : CORPUS) {
      for (String scheme : List.of("jdbc:mariadb", "redis", "mongodb", "jdbc:postgresql")) {
        String url = scheme + "://user:" + pw + "@db.example:1234/app";
        assertThat(Redaction.redactUrl(url))
            .as(url)
            .isEqualTo(scheme + "://user:***@db.example:1234/app");
      }
    }
  }

  @Test
  void credentialLikeQueryValuesAreHidden() {
    assertThat(Redaction.redactUrl("jdbc:postgresql://h/db?user=u&password=p/@:x&ssl=true"))
        .isEqualTo("jdbc:postgresql://h/db?user=u&password=***&ssl=true");
    assertThat(Redaction.redactUrl("https://api.example/v1?api_key=abc123&x=1"))
        .isEqualTo("https://api.example/v1?api_key=***&x=1");
    assertThat(Redaction.redactUrl("https://api.example/v1?access_token=abc&apikey=def"))
        .isEqualTo("https://api.example/v1?access_token=***&apikey=***");
    assertThat(Redaction.redactUrl("https://h/?lock_key=tick"))
        .as("a word merely ending in key")
        .isEqualTo("https://h/?lock_key=tick");
  }

  @Test
  void aRegisteredSecretIsScrubbedEvenWhereADriverQuotesOnlyAPartOfIt() {
    Redaction.register("Pw-3x/@mple:pass");

    // MariaDB's driver misparses such a URL and quotes a piece of the password as the port
    String driverMessage = "Incorrect port value : pass@127.0.0.1 (Pw-3x)";

    assertThat(Redaction.scrub(driverMessage)).doesNotContain("pass@", "Pw-3x", "mple");
    assertThat(Redaction.scrub("login failed for Pw-3x%2F%40mple%3Apass"))
        .doesNotContain("Pw-3x", "mple", "%3Apass");
  }

  @Test
  void userInfoThatIsOnlyAPasswordIsHiddenAndRegisteredForRedis() {
    assertThat(Redaction.redactUrl("redis://Zulu9Yank8@cache:6379/0"))
        .isEqualTo("redis://***@cache:6379/0");
    Redaction.registerUrl("redis://Zulu9Yank8@cache:6379/0");
    assertThat(Redaction.scrub("NOAUTH for Zulu9Yank8")).isEqualTo("NOAUTH for ***");
  }

  @Test
  void queryOptionsWhoseNameEndsInPasswordAreHidden() {
    assertThat(
            Redaction.redactUrl(
                "jdbc:mariadb://h/db?keyStorePassword=a1&trustStorePassword=b2&sslpassword=c3"
                    + "&ssl.key.password=d4&user=u"))
        .isEqualTo(
            "jdbc:mariadb://h/db?keyStorePassword=***&trustStorePassword=***&sslpassword=***"
                + "&ssl.key.password=***&user=u");
  }

  @Test
  void aSecretWithQuotesOrBackslashesIsFoundEscapedToo() {
    String secret = "Qu\"ote\\Back-7";
    Redaction.register(secret);
    assertThat(Redaction.scrub("raw " + secret)).isEqualTo("raw ***");
    assertThat(Redaction.scrub("{\"m\":\"Qu\\\"ote\\\\Back-7\"}")).isEqualTo("{\"m\":\"***\"}");
  }

  @Test
  void partsOfTwoOrThreeCharactersAreHiddenWhereTheyStandAlone() {
    Redaction.register("Vx@Wy:zebra-crossing");
    assertThat(Redaction.scrub("user Vx at host Wy")).isEqualTo("user *** at host ***");
    assertThat(Redaction.scrub("Wy:zebra-crossing")).isEqualTo("***");
    assertThat(Redaction.scrub("VxWy stays")).isEqualTo("VxWy stays");
  }
}
