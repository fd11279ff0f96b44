package dev.leasehold.storekit.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.leasehold.core.lease.Journal;
import dev.leasehold.core.lease.JournalEntry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The journal ({@link Journal}): a stream reads back newest first (by time, then by id) from any
 * client, up to a limit; {@code prune} removes only the older entries of its own stream; bodies up
 * to {@link Journal#MAX_BODY} characters come back exactly; bad input is refused with a message
 * that names what was wrong, before the store is touched; {@code putIfAbsent} raced from many
 * threads on several clients gives every caller the same value, for good. Every store of this
 * repository keeps a journal; a store that does not (no {@link
 * dev.leasehold.core.store.StoreBackend#journal}) skips these cases.
 */
public abstract class JournalCases extends LeaseStoreCases {
  private static final Instant T1 = Instant.parse("2026-12-01T10:00:00.001Z");
  private static final Instant T2 = T1.plusMillis(1);
  private static final Instant T3 = T1.plusSeconds(3600);

  private static List<String> bodies(List<JournalEntry> entries) {
    return entries.stream().map(JournalEntry::body).toList();
  }

  private static <T> List<T> reversed(List<T> list) {
    List<T> copy = new ArrayList<>(list);
    Collections.reverse(copy);
    return copy;
  }

  @Test
  void aStreamReadsBackNewestFirstFromAnotherClientUpToTheLimit() {
    Journal journal = journal();
    String stream = freshName();
    JournalEntry second = journal.append(stream, T2, "second");
    JournalEntry third = journal.append(stream, T3, "third");
    JournalEntry first = journal.append(stream, T1, "first");
    assertThat(first.stream()).isEqualTo(stream);
    assertThat(first.at()).isEqualTo(T1);
    assertThat(first.body()).isEqualTo("first");
    assertThat(Set.of(first.id(), second.id(), third.id())).hasSize(3);

    Journal other = newJournal();
    assertThat(other.recent(stream, 10)).containsExactly(third, second, first);
    assertThat(other.recent(stream, 2)).containsExactly(third, second);
    assertThat(other.recent(stream, 1)).containsExactly(third);
    assertThat(other.recent(freshName(), 10)).as("a stream never written").isEmpty();
  }

  @Test
  void entriesOfTheSameTimeAreOrderedByIdTheWriterOrderFirst() {
    Journal journal = journal();
    String stream = freshName();
    List<JournalEntry> appended = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      appended.add(journal.append(stream, T1, "same time " + i));
    }
    JournalEntry later = journal.append(stream, T2, "later");

    List<JournalEntry> read = newJournal().recent(stream, 10);
    assertThat(read.get(0)).isEqualTo(later);
    List<JournalEntry> same = read.subList(1, read.size());
    assertThat(same).isSortedAccordingTo(Comparator.comparing(JournalEntry::id).reversed());
    assertThat(same).containsExactlyElementsOf(reversed(appended));
    assertThat(newJournal().recent(stream, 3))
        .extracting(JournalEntry::body)
        .containsExactly("later", "same time 5", "same time 4");
  }

  @Test
  void pruneRemovesOnlyTheOlderEntriesOfItsOwnStream() {
    Journal journal = journal();
    String stream = freshName();
    String longer = stream + "-b"; // starts with the first stream's name: not part of it
    journal.append(stream, T1, "1");
    journal.append(stream, T2, "2");
    journal.append(stream, T2, "2b");
    journal.append(stream, T3, "3");
    journal.append(longer, T1, "other 1");

    assertThat(newJournal().prune(stream, T2)).as("only the entry before T2").isEqualTo(1);
    assertThat(bodies(journal.recent(stream, 10))).containsExactly("3", "2b", "2");
    assertThat(bodies(journal.recent(longer, 10))).containsExactly("other 1");
    assertThat(journal.prune(stream, T2)).as("nothing older is left").isZero();
    assertThat(journal.prune(stream, T3.plusMillis(1))).isEqualTo(3);
    assertThat(journal.recent(stream, 10)).isEmpty();
    assertThat(bodies(newJournal().recent(longer, 10))).containsExactly("other 1");
    assertThat(journal.prune(freshName(), T3)).as("a stream never written").isZero();
  }

  @Test
  void bodiesUpToTheLongestComeBackExactly() {
    Journal journal = journal();
    String stream = freshName();
    String text = "{\"ü\":\"ñ\\\\\"}\r\n\ttab 日本語 🙂 e\u0301 \u2028 '\"` % _ \n\n";
    StringBuilder b = new StringBuilder();
    while (b.length() + text.length() <= Journal.MAX_BODY) {
      b.append(text);
    }
    while (b.length() < Journal.MAX_BODY) {
      b.append('x');
    }
    String longest = b.toString();
    assertThat(longest).hasSize(Journal.MAX_BODY);
    List<String> written = List.of(longest, "", "\n", " leading and trailing \n", text);
    for (int i = 0; i < written.size(); i++) {
      journal.append(stream, T1.plusMillis(i), written.get(i));
    }

    assertThat(bodies(newJournal().recent(stream, 10)))
        .containsExactlyElementsOf(reversed(written));
  }

  @Test
  void badInputIsRefusedWithAMessageNamingIt() {
    Journal journal = journal();
    String stream = freshName();
    String tooLong = "x".repeat(Journal.MAX_BODY + 1);
    assertThatThrownBy(() -> journal.append(stream, T1, tooLong))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("journal body")
        .hasMessageContaining(String.valueOf(Journal.MAX_BODY));
    assertThatThrownBy(() -> journal.append("bad stream!", T1, "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("journal stream");
    assertThatThrownBy(() -> journal.append("s".repeat(101), T1, "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("journal stream");
    assertThatThrownBy(() -> journal.recent("a/b", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("journal stream");
    assertThatThrownBy(() -> journal.recent(stream, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limit");
    assertThatThrownBy(() -> journal.prune(null, T1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("journal stream");
    assertThatThrownBy(() -> journal.append(stream, null, "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("time");
    assertThatThrownBy(() -> journal.append(stream, T1, "nul \u0000"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("U+0000");
    assertThatThrownBy(() -> journal.append(stream, T1, "half \ud83d"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("surrogate");
    assertThatThrownBy(() -> journal.putIfAbsent("key with space", "v"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("journal key");
    assertThatThrownBy(() -> journal.putIfAbsent(freshName(), tooLong))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("journal value");
    assertThat(journal.recent(stream, 10)).as("nothing refused was written").isEmpty();
  }

  @Test
  void putIfAbsentKeepsTheFirstValue() {
    String key = freshName();
    assertThat(journal().putIfAbsent(key, "first 🙂\nline")).isEqualTo("first 🙂\nline");
    assertThat(newJournal().putIfAbsent(key, "second")).isEqualTo("first 🙂\nline");
    assertThat(journal().putIfAbsent(freshName(), "")).as("an empty value is a value").isEmpty();
  }

  @Test
  void putIfAbsentRacedFromManyThreadsOnSeveralClientsGivesEveryoneOneValue() throws Exception {
    int threads = 12;
    List<Journal> clients = List.of(journal(), newJournal(), newJournal());
    for (int round = 0; round < 5; round++) {
      String key = freshName();
      CyclicBarrier start = new CyclicBarrier(threads);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<String>> answers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
          Journal client = clients.get(i % clients.size());
          String mine = "value-" + i;
          answers.add(
              pool.submit(
                  () -> {
                    start.await();
                    return client.putIfAbsent(key, mine);
                  }));
        }
        Set<String> seen = new HashSet<>();
        for (Future<String> a : answers) {
          seen.add(a.get());
        }
        assertThat(seen).as("round " + round + ": one value for all").hasSize(1);
        String value = seen.iterator().next();
        assertThat(value).startsWith("value-");
        assertThat(newJournal().putIfAbsent(key, "late")).isEqualTo(value);
      } finally {
        pool.shutdownNow();
      }
    }
  }
}
