package dev.leasehold.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.leasehold.app.config.ConfigKeys.Key;
import dev.leasehold.core.store.StoreOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The key tables of docs/configuration.md agree with {@link ConfigKeys}: each section's table lists
 * exactly the keys the loader allows, and every typed default appears, as written in the file, in
 * its key's default column. A key added, removed or given another default without its reference row
 * fails here.
 */
class ConfigReferenceTest {
  private static final Path REFERENCE =
      Path.of("..").toAbsolutePath().normalize().resolve("docs/configuration.md");

  static Stream<Arguments> sections() {
    return Stream.of(
        Arguments.of("## Top level", "", ConfigKeys.TOP),
        Arguments.of("## `store`", "", ConfigKeys.STORE),
        Arguments.of("### `store.history`", "", ConfigKeys.HISTORY),
        Arguments.of("## `lease`", "", ConfigKeys.LEASE),
        Arguments.of("## `admin`", "", ConfigKeys.ADMIN),
        Arguments.of("## `notify`", "", ConfigKeys.NOTIFY),
        Arguments.of("### `notify.ntfy`", "", ConfigKeys.NTFY),
        Arguments.of("### `notify.telegram`", "", ConfigKeys.TELEGRAM),
        Arguments.of("### `notify.email`", "", ConfigKeys.EMAIL),
        Arguments.of("## `retry`", "", ConfigKeys.RETRY),
        Arguments.of("## `log`", "", ConfigKeys.LOG),
        Arguments.of("## `groups`", "groups.<name>.", ConfigKeys.GROUP),
        Arguments.of("## `jobs[]`", "", ConfigKeys.JOB),
        Arguments.of("### Exclusion windows, `start` and `end`", "", ConfigKeys.EXCLUSION),
        Arguments.of("### `jobs[].after`", "", ConfigKeys.AFTER),
        Arguments.of("## `checks[]`", "", ConfigKeys.CHECK));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("sections")
  void theReferenceTableListsExactlyTheSectionsKeysWithTheirDefaults(
      String heading, String prefix, List<Key<?>> keys) throws Exception {
    Map<String, String> rows = table(heading);
    Map<String, String> documented = new LinkedHashMap<>();
    rows.forEach(
        (key, value) -> {
          // store options are declared by the store factories, not by the loader
          if (key.startsWith(prefix) && !key.startsWith("options.")) {
            documented.put(key.substring(prefix.length()), value);
          }
        });
    assertThat(documented.keySet())
        .as("keys of the table under %s in docs/configuration.md", heading)
        .containsExactlyInAnyOrderElementsOf(ConfigKeys.names(keys));
    for (Key<?> key : keys) {
      if (key.defaultValue() != null) {
        String written =
            key.defaultValue() instanceof Duration d ? ConfigKeys.show(d) : key.defaultText();
        assertThat(documented.get(key.name()))
            .as("default of %s%s under %s", prefix, key.name(), heading)
            .contains("`" + written + "`");
      }
    }
  }

  @Test
  void theStoreTableNamesEveryStoreTypeAndOnlyOptionsAStoreDeclares() throws Exception {
    Map<String, String> store = table("## `store`");
    String typeRow =
        Files.readAllLines(REFERENCE).stream()
            .filter(l -> l.startsWith("| `type` |"))
            .findFirst()
            .orElseThrow();
    for (String type : StoreCatalog.discovered().types(ConfigKeys.ADAPTERS)) {
      assertThat(typeRow).as("store types in docs/configuration.md").contains("`" + type + "`");
    }
    Map<String, StoreOption<?>> declared = StoreCatalog.discovered().options();
    store.forEach(
        (key, defaultCell) -> {
          if (key.startsWith("options.")) {
            String name = key.substring("options.".length());
            assertThat(declared).as("store option %s declared by a store", key).containsKey(name);
            assertThat(defaultCell)
                .as("default of store.%s", key)
                .contains("`" + declared.get(name).defaultText() + "`");
          }
        });
  }

  /** The first key table after {@code heading}: key (without backticks) to its default cell. */
  private static Map<String, String> table(String heading) throws Exception {
    List<String> lines = Files.readAllLines(REFERENCE);
    int at = lines.indexOf(heading);
    assertThat(at).as("heading %s in docs/configuration.md", heading).isNotNegative();
    Map<String, String> rows = new LinkedHashMap<>();
    boolean inTable = false;
    for (String line : lines.subList(at + 1, lines.size())) {
      if (line.startsWith("#")) {
        break;
      }
      if (line.equals("| key | default | meaning |")) {
        inTable = true;
        continue;
      }
      if (inTable) {
        if (!line.startsWith("|")) {
          break;
        }
        List<String> cells = cells(line);
        if (!cells.get(0).startsWith("---")) {
          rows.put(cells.get(0).replace("`", ""), cells.get(1));
        }
      }
    }
    assertThat(rows).as("key table under %s", heading).isNotEmpty();
    return rows;
  }

  private static List<String> cells(String row) {
    List<String> cells = new ArrayList<>();
    for (String cell : row.substring(1, row.length() - 1).split("\\|", -1)) {
      cells.add(cell.strip());
    }
    return cells;
  }
}
