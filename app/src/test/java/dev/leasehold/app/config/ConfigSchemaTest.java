package dev.leasehold.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The published JSON Schema ({@code docs/leasehold.schema.json}) is exactly what {@link
 * ConfigSchema} derives from the loader's key definitions, every example file passes it, and files
 * with shape errors are refused by both the schema and the loader.
 */
class ConfigSchemaTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final JsonSchema SCHEMA =
      JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(ConfigSchema.text());
  private static final Map<String, String> ENV = Map.of();

  @TempDir Path dir;

  @Test
  void thePublishedSchemaIsTheOneDerivedFromTheLoadersKeys() throws Exception {
    Path published = ROOT.resolve(ConfigSchema.PUBLISHED);
    if (Boolean.getBoolean("leasehold.schema.update")) {
      Files.writeString(published, ConfigSchema.text());
    }
    assertThat(published).exists();
    assertThat(Files.readString(published))
        .as(
            "docs/leasehold.schema.json is stale; regenerate it with: mvn -pl app -am test"
                + " -Dtest=ConfigSchemaTest -Dsurefire.failIfNoSpecifiedTests=false"
                + " -Dleasehold.schema.update=true")
        .isEqualTo(ConfigSchema.text());
  }

  static Stream<Path> examples() throws Exception {
    try (Stream<Path> files = Files.list(ROOT.resolve("examples"))) {
      return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList().stream();
    }
  }

  @ParameterizedTest
  @MethodSource("examples")
  void everyExamplePassesTheSchemaAndTheLoader(Path example) throws Exception {
    Set<ValidationMessage> problems = SCHEMA.validate(YAML.readTree(example.toFile()));
    assertThat(problems).as(example.toString()).isEmpty();
    new ConfigLoader(Map.of("NODE", "n1"), "n1").load(example);
  }

  @ParameterizedTest
  @MethodSource("examples")
  void everyExampleNamesTheSchemaForEditors(Path example) throws Exception {
    assertThat(Files.readAllLines(example).get(0))
        .isEqualTo("# yaml-language-server: $schema=../docs/leasehold.schema.json");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "colour: red\njobs:\n  - {name: a, every: 1s, command: [\"true\"]}\n",
        "jobs: []\n",
        "node: n\n",
        "jobs:\n  - {name: a, command: [\"true\"]}\n",
        "jobs:\n  - {name: a, every: 1s, cron: \"* * * * *\", command: [\"true\"]}\n",
        "jobs:\n  - {name: a, every: 1s}\n",
        "jobs:\n  - {name: a, every: 1s, command: [\"true\"], class: x.Y}\n",
        "jobs:\n  - {name: a, every: 1s, comand: [\"true\"]}\n",
        "jobs:\n  - {name: a, every: 30, command: [\"true\"]}\n",
        "lease: {ttl: 30}\njobs:\n  - {name: a, every: 1s, command: [\"true\"]}\n",
        "log: {format: xml}\njobs:\n  - {name: a, every: 1s, command: [\"true\"]}\n",
        "store: {type: h2, passwd: x}\njobs:\n  - {name: a, every: 1s, command: [\"true\"]}\n",
        "admin: {listen: 8077, tokn: x}\njobs:\n  - {name: a, every: 1s, command: [\"true\"]}\n",
        "jobs:\n  - {name: a, every: 1s, http: {method: GET}}\n",
      })
  void aShapeErrorIsRefusedByTheSchemaAndByTheLoader(String yaml) throws Exception {
    JsonNode tree = YAML.readTree(yaml);
    assertThat(SCHEMA.validate(tree)).as("schema on:%n%s", yaml).isNotEmpty();
    Path file = dir.resolve("bad.yaml");
    Files.writeString(file, yaml);
    assertThatThrownBy(() -> new ConfigLoader(ENV, "n1").load(file))
        .as("loader on:%n%s", yaml)
        .isInstanceOf(ConfigException.class);
  }

  @Test
  void placeholdersAreAcceptedWhereTheLoaderResolvesThem() throws Exception {
    String yaml =
        "node: ${NODE}\nlease: {ttl: \"${TTL:-30s}\"}\nlog: {format: \"${FMT:-json}\"}\n"
            + "jobs:\n  - {name: a, every: \"${EVERY}\", command: [\"true\"]}\n";
    assertThat(SCHEMA.validate(YAML.readTree(yaml))).isEmpty();
  }

  @Test
  void eachSectionOfTheSchemaListsExactlyTheKeysTheLoaderAllows() {
    JsonNode props = ConfigSchema.schema().get("properties");
    assertThat(names(props)).containsExactlyElementsOf(ConfigKeys.names(ConfigKeys.TOP));
    assertThat(names(props.get("store").get("properties")))
        .containsExactlyElementsOf(ConfigKeys.names(ConfigKeys.STORE));
    JsonNode job = props.get("jobs").get("items").get("properties");
    assertThat(names(job)).containsExactlyElementsOf(ConfigKeys.names(ConfigKeys.JOB));
    assertThat(names(job.get("http").get("properties")))
        .containsExactlyElementsOf(ConfigKeys.names(ConfigKeys.HTTP));
  }

  private static List<String> names(JsonNode node) {
    return Stream.iterate(node.fieldNames(), i -> i)
        .limit(1)
        .flatMap(
            i -> {
              List<String> out = new java.util.ArrayList<>();
              i.forEachRemaining(out::add);
              return out.stream();
            })
        .toList();
  }
}
