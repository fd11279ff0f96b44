package dev.leasehold.app.config;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A YAML document as the Jackson tree {@code ObjectMapper.readTree} builds, read token by token
 * from the YAML parser. Without an {@code ObjectMapper}: setting one up (its deserializers, its
 * date formats and the locale data they load) cost every command that reads a configuration about
 * 45 ms, an eighth of a {@code validate}'s time in the JVM. Duplicate keys are refused by the
 * parser, as before.
 */
final class YamlTree {
  private static final YAMLFactory FACTORY = factory();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private YamlTree() {}

  private static YAMLFactory factory() {
    // the constructor, as the mapper's factory was made: one from YAMLFactory.builder() reads an
    // empty value ("key:") as "" where this one reads null
    YAMLFactory factory = new YAMLFactory();
    factory.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    return factory;
  }

  /**
   * @return the root of the text's first document, or {@code null} when it has none
   * @throws JsonProcessingException what the YAML parser found wrong, with its location
   */
  static JsonNode read(String text) throws JsonProcessingException {
    try (JsonParser parser = FACTORY.createParser(text)) {
      JsonToken first = parser.nextToken();
      return first == null ? null : value(parser, first);
    } catch (JsonProcessingException e) {
      throw e;
    } catch (IOException e) {
      // a parser over a string reads nothing from outside
      throw new UncheckedIOException(e);
    }
  }

  private static JsonNode value(JsonParser parser, JsonToken token) throws IOException {
    switch (token) {
      case START_OBJECT:
        ObjectNode object = NODES.objectNode();
        for (JsonToken t = parser.nextToken(); t == JsonToken.FIELD_NAME; t = parser.nextToken()) {
          String name = parser.currentName();
          object.set(name, value(parser, parser.nextToken()));
        }
        return object;
      case START_ARRAY:
        ArrayNode array = NODES.arrayNode();
        for (JsonToken t = parser.nextToken(); t != JsonToken.END_ARRAY; t = parser.nextToken()) {
          array.add(value(parser, t));
        }
        return array;
      case VALUE_STRING:
        return NODES.textNode(parser.getText());
      case VALUE_NUMBER_INT:
        return switch (parser.getNumberType()) {
          case INT -> NODES.numberNode(parser.getIntValue());
          case LONG -> NODES.numberNode(parser.getLongValue());
          default -> NODES.numberNode(parser.getBigIntegerValue());
        };
      case VALUE_NUMBER_FLOAT:
        return switch (parser.getNumberType()) {
          case BIG_DECIMAL -> NODES.numberNode(parser.getDecimalValue());
          case FLOAT -> NODES.numberNode(parser.getFloatValue());
          default -> NODES.numberNode(parser.getDoubleValue());
        };
      case VALUE_TRUE:
        return NODES.booleanNode(true);
      case VALUE_FALSE:
        return NODES.booleanNode(false);
      case VALUE_NULL:
        return NODES.nullNode();
      case VALUE_EMBEDDED_OBJECT:
        Object embedded = parser.getEmbeddedObject();
        if (embedded == null) {
          return NODES.nullNode();
        }
        return embedded instanceof byte[] bytes
            ? NODES.binaryNode(bytes)
            : NODES.pojoNode(embedded);
      default:
        throw new JsonParseException(parser, "unexpected " + token);
    }
  }
}
