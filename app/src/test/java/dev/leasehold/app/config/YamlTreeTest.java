package dev.leasehold.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The configuration's tree is the one {@code ObjectMapper.readTree} builds, node type for type. */
class YamlTreeTest {
  private static final ObjectMapper MAPPER =
      new ObjectMapper(new YAMLFactory()).enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  private static void sameAsTheMapper(String yaml) throws JsonProcessingException {
    JsonNode mapped = MAPPER.readTree(yaml);
    JsonNode read = YamlTree.read(yaml);
    if (mapped == null || mapped.isMissingNode()) {
      assertThat(read).as(yaml).isNull();
      return;
    }
    assertThat(read).as(yaml).isEqualTo(mapped);
    assertSameTypes(read, mapped, yaml);
  }

  private static void assertSameTypes(JsonNode read, JsonNode mapped, String yaml) {
    assertThat(read.getClass()).as("%s in %s", mapped, yaml).isEqualTo(mapped.getClass());
    if (mapped.isContainerNode()) {
      assertThat(read.size()).isEqualTo(mapped.size());
      for (int i = 0; mapped.isArray() && i < mapped.size(); i++) {
        assertSameTypes(read.get(i), mapped.get(i), yaml);
      }
      mapped
          .fieldNames()
          .forEachRemaining(name -> assertSameTypes(read.get(name), mapped.get(name), yaml));
    }
  }

  @Test
  void everyShippedExample() throws IOException {
    List<Path> files;
    try (Stream<Path> found = Files.walk(Path.of("..", "examples"))) {
      files = found.filter(p -> p.toString().endsWith(".yaml")).toList();
    }
    assertThat(files).hasSizeGreaterThan(3);
    for (Path file : files) {
      sameAsTheMapper(Files.readString(file));
    }
  }

  @Test
  void scalarsOfEveryKind() throws JsonProcessingException {
    sameAsTheMapper(
        """
        int: 42
        negative: -7
        long: 9000000000
        big: 123456789012345678901234567890
        hex: 0x1F
        float: 1.5
        exp: 6.02e23
        huge: 1.0e400
        yes-string: "yes"
        true-bool: true
        false-bool: false
        tilde: ~
        empty:
        text: hello
        quoted: "a: b"
        multi: |
          one
          two
        binary: !!binary aGVsbG8=
        list: [1, "two", 3.0, null, [x, y], {k: v}]
        nested:
          deeper:
            - name: a
              every: 1s
            - name: b
        anchors:
          base: &base {ttl: 10s, grace: 2s}
          copy: *base
        """);
  }

  @Test
  void emptyAndScalarDocuments() throws JsonProcessingException {
    for (String yaml : List.of("", "# only a comment\n", "---\n", "just text", "[]", "{}", "42")) {
      sameAsTheMapper(yaml);
    }
    // a stream of several documents: the first one, as the mapper reads it
    sameAsTheMapper("a: 1\n---\nb: 2\n");
  }

  @Test
  void duplicateKeysAndSyntaxErrorsAreTheParsersOwnErrors() {
    assertThatThrownBy(() -> YamlTree.read("jobs: []\njobs: []\n"))
        .isInstanceOf(JsonProcessingException.class)
        .hasMessageContaining("Duplicate field 'jobs'");
    assertThatThrownBy(() -> YamlTree.read("a:\n  b: [1, 2\n"))
        .isInstanceOf(JsonProcessingException.class)
        .satisfies(
            e ->
                assertThat(e.getCause())
                    .isInstanceOf(org.yaml.snakeyaml.error.MarkedYAMLException.class));
  }
}
