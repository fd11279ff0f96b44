package dev.leasehold.app.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.leasehold.app.report.TextTable;
import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.JournalEntry;
import dev.leasehold.core.store.Redaction;
import java.net.InetAddress;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The stored form of an audit entry, what it shows, and what it never holds. */
class AuditEntryTest {
  private static final Instant AT = Instant.parse("2026-11-30T09:12:40.031Z");
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JournalEntry stored(AuditEntry entry) {
    return new JournalEntry(AuditTrail.STREAM, "1", entry.at(), entry.body());
  }

  @Test
  void aCommandLineEntryKeepsEveryFieldThroughTheJournalBody() throws Exception {
    Actor who = new Actor(Actor.CLI, "alice", "laptop", "gw-1", null, null);
    AuditEntry entry = new AuditEntry(AT, "pause", "digest", "ok", "reason: relay down", who);

    JsonNode body = JSON.readTree(entry.body());
    assertThat(body.fieldNames())
        .toIterable()
        .containsExactly(
            "action", "job", "result", "detail", "via", "user", "host", "node", "token", "client");
    assertThat(entry.body().length()).isLessThan(Journal.MAX_BODY);
    assertThat(AuditEntry.parse(stored(entry))).contains(entry);

    Map<String, Object> row = entry.row();
    assertThat(row.keySet())
        .containsExactly(
            "time", "action", "job", "result", "detail", "via", "user", "host", "node", "token",
            "client", "by");
    assertThat(row.get("time")).isEqualTo("2026-11-30T09:12:40.031Z");
    assertThat(row.get("by")).isEqualTo("alice@laptop (cli, node gw-1)");
  }

  @Test
  void anHttpEntryNamesTheKindOfTokenAndTheClient() throws Exception {
    Actor who = Actor.http(Actor.READ, InetAddress.getByName("192.0.2.7"), "gw-2");
    AuditEntry entry = new AuditEntry(AT, "resume", "digest", "refused", "HTTP 403", who);

    AuditEntry back = AuditEntry.parse(stored(entry)).orElseThrow();
    assertThat(back.who().via()).isEqualTo("http");
    assertThat(back.who().token()).isEqualTo("read");
    assertThat(back.who().client()).isEqualTo("192.0.2.7");
    assertThat(back.who().user()).isNull();
    assertThat(back.row().get("by")).isEqualTo("read token from 192.0.2.7 (http, node gw-2)");
    assertThat(Actor.http(Actor.NONE, null, "gw-2").describe())
        .isEqualTo("no token (http, node gw-2)");
  }

  @Test
  void aTokenIsOnlyEverItsKindNeverItsValue() {
    assertThatThrownBy(() -> new Actor(Actor.HTTP, null, null, "n", "s3cr3t-admin-token", "::1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("s3cr3t");
    // a stored body that names something else reads back as no token
    JournalEntry forged =
        new JournalEntry(
            AuditTrail.STREAM,
            "2",
            AT,
            "{\"action\":\"pause\",\"result\":\"ok\",\"via\":\"http\",\"token\":\"s3cr3t\"}");
    AuditEntry back = AuditEntry.parse(forged).orElseThrow();
    assertThat(back.who().token()).isEqualTo("none");
    assertThat(back.row().toString()).doesNotContain("s3cr3t");
  }

  @Test
  void configuredSecretsAreScrubbedBeforeTheyAreStored() {
    Redaction.register("Aud1tSecretValue");
    Actor who = new Actor(Actor.CLI, "bob", "host-Aud1tSecretValue", "gw-1", null, null);
    AuditEntry entry =
        new AuditEntry(
            AT, "pause", "job", "ok", "reason: the password is Aud1tSecretValue\nsecond line", who);

    assertThat(entry.body()).doesNotContain("Aud1tSecretValue");
    assertThat(entry.detail()).doesNotContain("\n").contains("second line");
  }

  @Test
  void longFieldsAreCutAndUnreadableBodiesSkipped() {
    Actor who = new Actor(Actor.CLI, "u".repeat(5000), "h", "n", null, null);
    AuditEntry entry = new AuditEntry(AT, "reset", "j", "ok", "d".repeat(20_000), who);
    assertThat(entry.body().length()).isLessThan(Journal.MAX_BODY);
    assertThat(entry.detail()).hasSize(AuditEntry.MAX_DETAIL);

    assertThat(AuditEntry.parse(new JournalEntry("audit", "3", AT, "not json"))).isEmpty();
    assertThat(AuditEntry.parse(new JournalEntry("audit", "4", AT, "[1]"))).isEmpty();
  }

  @Test
  void theTableShowsControlCharactersAsTextAndJsonKeepsThem() {
    Actor who = new Actor(Actor.CLI, "eve\u001b]52;c;aGk=\u0007", "h", "n", null, null);
    AuditEntry entry = new AuditEntry(AT, "pause", "j", "ok", null, who);

    String table = TextTable.render(AuditEntry.TABLE_COLUMNS, List.of(entry.row()));
    assertThat(table).doesNotContain("\u001b").doesNotContain("\u0007").contains("\\x1b]52");
    assertThat(AuditEntry.parse(stored(entry)).orElseThrow().who().user())
        .isEqualTo("eve\u001b]52;c;aGk=\u0007");
  }
}
