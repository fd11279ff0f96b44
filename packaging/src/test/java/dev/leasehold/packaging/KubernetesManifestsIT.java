package dev.leasehold.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * examples/kubernetes/leasehold.yaml checked offline (no API server can run here, and kubectl's
 * client-side dry run needs one): each object read strictly into the Kubernetes API's Java types
 * (fabric8 kubernetes-model: a misspelled field or a wrong type fails), then what the example
 * promises: 3 replicas, NODE from the pod name, probes on /health at the admin port, the grace
 * period from the file's shutdown-grace and kill-grace, the ConfigMap it mounts and the Secret it
 * mounts, created by the command in the file's header (never a literal token in the file), a
 * PodDisruptionBudget over the same pods; and the ConfigMap's Leasehold file passes `validate`.
 */
class KubernetesManifestsIT {
  private static final Path FILE = Release.SOURCE.resolve("examples/kubernetes/leasehold.yaml");
  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory())
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);

  @Test
  void theManifestsAreWellFormedAndKeepTheirPromises() throws Exception {
    List<JsonNode> documents = new ArrayList<>();
    try (var parser = YAML.getFactory().createParser(FILE.toFile())) {
      YAML.readValues(parser, JsonNode.class).forEachRemaining(documents::add);
    }
    assertThat(documents)
        .extracting(document -> document.path("kind").asText())
        .containsExactly("ConfigMap", "Deployment", "PodDisruptionBudget", "Service");
    ConfigMap configMap = strict(documents.get(0), ConfigMap.class, "v1");
    Deployment deployment = strict(documents.get(1), Deployment.class, "apps/v1");
    PodDisruptionBudget budget = strict(documents.get(2), PodDisruptionBudget.class, "policy/v1");
    Service service = strict(documents.get(3), Service.class, "v1");
    // the Secret is made by the command in the header: its name and keys
    String text = Files.readString(FILE);
    Matcher create =
        Pattern.compile("kubectl create secret generic (\\S+)((?:\\s*\\\\\\s*#\\s*--from-\\S+)+)")
            .matcher(text);
    assertThat(create.find()).as("a kubectl create secret command in the header").isTrue();
    String secretName = create.group(1);
    Set<String> secretKeys = new java.util.HashSet<>();
    Matcher from = Pattern.compile("--from-(?:file|literal)=([a-z-]+)=").matcher(create.group(2));
    while (from.find()) {
      secretKeys.add(from.group(1));
    }
    assertThat(text).doesNotContain("stringData").doesNotContain("change-me");

    assertThat(deployment.getSpec().getReplicas()).isEqualTo(3);
    Map<String, String> podLabels = deployment.getSpec().getTemplate().getMetadata().getLabels();
    assertThat(podLabels).containsAllEntriesOf(deployment.getSpec().getSelector().getMatchLabels());
    assertThat(podLabels).containsAllEntriesOf(budget.getSpec().getSelector().getMatchLabels());
    assertThat(podLabels).containsAllEntriesOf(service.getSpec().getSelector());
    assertThat(budget.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);

    PodSpec pod = deployment.getSpec().getTemplate().getSpec();
    Container container = pod.getContainers().get(0);
    assertThat(container.getImage()).endsWith(":" + Release.VERSION);
    assertThat(container.getEnv())
        .anySatisfy(
            env -> {
              assertThat(env.getName()).isEqualTo("NODE");
              assertThat(env.getValueFrom().getFieldRef().getFieldPath())
                  .isEqualTo("metadata.name");
            });
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(10001L);
    int adminPort = container.getPorts().get(0).getContainerPort();
    for (Probe probe :
        List.of(
            container.getStartupProbe(),
            container.getReadinessProbe(),
            container.getLivenessProbe())) {
      assertThat(probe.getHttpGet().getPath()).isEqualTo("/health");
      assertThat(probe.getHttpGet().getPort().getStrVal())
          .isEqualTo(container.getPorts().get(0).getName());
    }

    String config = configMap.getData().get("leasehold.yaml");
    JsonNode leasehold = YAML.readTree(config);
    assertThat(leasehold.path("node").asText()).isEqualTo("${NODE}");
    assertThat(leasehold.path("admin").path("listen").asText()).isEqualTo("0.0.0.0:" + adminPort);
    long grace = seconds(leasehold.path("shutdown-grace").asText("30s"));
    long killGrace = 10;
    for (JsonNode job : leasehold.path("jobs")) {
      killGrace = Math.max(killGrace, seconds(job.path("kill-grace").asText("10s")));
    }
    assertThat(pod.getTerminationGracePeriodSeconds())
        .as("terminationGracePeriodSeconds: shutdown-grace + the largest kill-grace + a margin")
        .isGreaterThan(grace + killGrace);

    // the file and the password file are mounted where the configuration and args say
    Map<String, Volume> volumes = new java.util.HashMap<>();
    pod.getVolumes().forEach(volume -> volumes.put(volume.getName(), volume));
    String configPath = container.getArgs().get(container.getArgs().indexOf("--config") + 1);
    VolumeMount configMount = mountAt(container, configPath);
    assertThat(volumes.get(configMount.getName()).getConfigMap().getName())
        .isEqualTo(configMap.getMetadata().getName());
    assertThat(configMap.getData()).containsKey(configMount.getSubPath());
    String passwordFile = leasehold.path("store").path("password-file").asText();
    VolumeMount secretMount = mountAt(container, Path.of(passwordFile).getParent().toString());
    Volume secretVolume = volumes.get(secretMount.getName());
    assertThat(secretVolume.getSecret().getSecretName()).isEqualTo(secretName);
    String passwordKey = Path.of(passwordFile).getFileName().toString();
    assertThat(secretVolume.getSecret().getItems())
        .anyMatch(item -> item.getPath().equals(passwordKey));
    assertThat(secretKeys).contains(passwordKey);
    // the admin token: a file of the same Secret, read by the daemon (no variable holds it)
    String tokenFile = leasehold.path("admin").path("token-file").asText();
    assertThat(Path.of(tokenFile).getParent()).isEqualTo(Path.of(passwordFile).getParent());
    String tokenKey = Path.of(tokenFile).getFileName().toString();
    assertThat(secretVolume.getSecret().getItems())
        .anyMatch(item -> item.getPath().equals(tokenKey));
    assertThat(secretKeys).contains(tokenKey);
    assertThat(leasehold.path("admin").has("token")).isFalse();
    for (VolumeMount mount : container.getVolumeMounts()) {
      assertThat(volumes).containsKey(mount.getName());
    }

    // the ConfigMap's file is a valid Leasehold configuration (the password file in a temp dir)
    Path dir = Files.createTempDirectory("leasehold-k8s-it-");
    try {
      Path password = dir.resolve("db-password");
      Files.writeString(password, "a-database-password");
      Path token = dir.resolve("admin-token");
      Files.writeString(token, "validate-only-token-0123456789\n");
      Path file = dir.resolve("leasehold.yaml");
      Files.writeString(
          file,
          config.replace(passwordFile, password.toString()).replace(tokenFile, token.toString()));
      Commands.Result result =
          Commands.run(
              List.of(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-jar",
                  Release.SOURCE.resolve("app/target/leasehold.jar").toString(),
                  "validate",
                  "--config",
                  file.toString()),
              Map.of("NODE", "leasehold-7d9f-abcde"),
              dir,
              Duration.ofMinutes(2));
      assertThat(result.exit()).as("leasehold validate:\n%s", result.output()).isZero();
    } finally {
      Commands.deleteTree(dir);
    }
  }

  /** Reads one object into its API type; any field the type does not have fails the test. */
  private static <T> T strict(JsonNode document, Class<T> type, String apiVersion)
      throws Exception {
    assertThat(document.path("apiVersion").asText()).isEqualTo(apiVersion);
    T object = YAML.treeToValue(document, type);
    List<String> unknown = new ArrayList<>();
    unknownFields(
        object,
        type.getSimpleName(),
        unknown,
        java.util.Collections.newSetFromMap(new IdentityHashMap<>()));
    assertThat(unknown).as("fields the Kubernetes API does not have").isEmpty();
    return object;
  }

  /** fabric8's types keep fields they do not know in additionalProperties: none may be there. */
  private static void unknownFields(
      Object value, String path, List<String> unknown, Set<Object> seen) throws Exception {
    if (value == null || !seen.add(value)) {
      return;
    }
    if (value instanceof Collection<?> collection) {
      int i = 0;
      for (Object element : collection) {
        unknownFields(element, path + "[" + i++ + "]", unknown, seen);
      }
      return;
    }
    if (value instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        unknownFields(entry.getValue(), path + "." + entry.getKey(), unknown, seen);
      }
      return;
    }
    if (!value.getClass().getName().startsWith("io.fabric8.kubernetes.api.model")) {
      return;
    }
    for (Method method : value.getClass().getMethods()) {
      if (method.getParameterCount() != 0
          || Modifier.isStatic(method.getModifiers())
          || !method.getName().startsWith("get")
          || method.getName().equals("getClass")) {
        continue;
      }
      Object property = method.invoke(value);
      if (method.getName().equals("getAdditionalProperties")) {
        if (property instanceof Map<?, ?> extra && !extra.isEmpty()) {
          unknown.add(path + ": " + extra.keySet());
        }
        continue;
      }
      unknownFields(property, path + "." + method.getName().substring(3), unknown, seen);
    }
  }

  private static VolumeMount mountAt(Container container, String path) {
    return container.getVolumeMounts().stream()
        .filter(mount -> mount.getMountPath().equals(path))
        .findFirst()
        .orElseThrow(() -> new AssertionError("nothing mounted at " + path));
  }

  private static long seconds(String duration) {
    Matcher matcher = Pattern.compile("(\\d+)(ms|s|m|h)").matcher(duration);
    assertThat(matcher.matches()).as("duration %s", duration).isTrue();
    long amount = Long.parseLong(matcher.group(1));
    return switch (matcher.group(2)) {
      case "ms" -> amount / 1000;
      case "s" -> amount;
      case "m" -> amount * 60;
      default -> amount * 3600;
    };
  }
}
